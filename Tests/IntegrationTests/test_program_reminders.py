"""A training program's reminder (docs/programs.md) under a real systemd user manager: run inside scripts/test-systemd,
as test_systemd_faults.py is, with the daemon that scripts/install put into the throw-away home.

`intervalctl program remind NAME --on EXPR` installs a timer that systemd lists with its next elapse on the given
days; starting its service shows the notification, whose Start (pressed through dunst) runs the next day and whose
Later leaves a transient timer an hour away; `--off` leaves no unit behind; what systemd cannot read is refused with
systemd's words, and the reminder that was there stays.
"""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import NotifyLog, press, wait_until
from test_systemd_faults import BINDIR, ctl, get, installed, systemctl  # noqa: F401 (installed is a fixture)

pytestmark = pytest.mark.skipif(
    "INTERVALD_TEST_SYSTEMD_DIR" not in os.environ or "INTERVALD_TEST_NOTIFY_LOG" not in os.environ,
    reason="needs scripts/test-systemd (a systemd user manager, its bus and dunst)",
)

UNIT_DIR = Path(os.environ.get("XDG_CONFIG_HOME", "/nonexistent")) / "systemd" / "user"
PROGRAMS = Path(os.environ.get("XDG_CONFIG_HOME", "/nonexistent")) / "intervald" / "programs"
PROGRESS = Path(os.environ.get("XDG_STATE_HOME", "/nonexistent")) / "intervald" / "programs"
TIMER = "intervald-remind-quick.timer"
SERVICE_UNIT = "intervald-remind-quick.service"

PROGRAM = """name "Quick Base"
countdown 100ms
week 1 {
  2x day { 500ms walk "Warm-up", 500ms run }
}
"""


@pytest.fixture
def program(installed):  # noqa: F811 (the imported fixture)
    """The program in the home's own programs, no progress, no reminder, dunst empty."""
    PROGRAMS.mkdir(parents=True, exist_ok=True)
    (PROGRAMS / "quick.program").write_text(PROGRAM)
    for path in PROGRESS.glob("quick.json"):
        path.unlink()
    subprocess.run(["dunstctl", "close-all"], check=True, timeout=10)
    yield
    ctl("program", "remind", "quick", "--off")
    systemctl("stop", "intervald.service", check=False)


def reminder_units():
    return sorted(path.name for path in UNIT_DIR.glob("intervald-remind-*"))


def shown(unit, prop):
    return systemctl("show", "-p", prop, "--value", unit).stdout.strip()


def test_a_reminder_comes_on_the_given_days_and_its_start_runs_the_next_day(program):
    set_up = ctl("program", "remind", "quick", "--on", "Mon,Wed,Fri 18:00")
    assert set_up.returncode == 0, set_up.stderr
    assert set_up.stdout.startswith("Reminder: Mon,Wed,Fri 18:00 (next: "), set_up.stdout
    assert reminder_units() == [SERVICE_UNIT, TIMER]
    assert TIMER in systemctl("list-timers", "--all", "--no-pager").stdout
    assert shown(TIMER, "UnitFileState") == "enabled"
    assert shown(TIMER, "ActiveState") == "active"
    # systemd's own reading of the expression, and its next elapse on one of those days at 18:00.
    assert "OnCalendar=Mon,Wed,Fri *-*-* 18:00:00" in shown(TIMER, "TimersCalendar")
    next_elapse = shown(TIMER, "NextElapseUSecRealtime")
    assert re.match(r"(Mon|Wed|Fri) \d{4}-\d\d-\d\d 18:00:00", next_elapse), next_elapse
    assert ctl("program", "show", "quick").stdout.splitlines()[1] == "Reminder: Mon,Wed,Fri 18:00"

    # What the timer starts at that time: the notification, with the next day and its length.
    log = NotifyLog()
    systemctl("start", SERVICE_UNIT)
    [note] = log.wait_for(1)
    assert note["summary"] == "Quick Base: Week 1, Day 1 today (0:01)"
    assert shown(SERVICE_UNIT, "Result") == "success"

    # Start, pressed through dunst, runs day 1; once it finishes, the next reminder says day 2.
    press("program:quick")
    wait_until(lambda: get("State") == "running", 10, "the reminder's Start to run the day")
    status = json.loads(ctl("status", "--json").stdout)
    assert status["plan_name"] == "Quick Base · Week 1, Day 1"
    wait_until(lambda: json.loads(ctl("program", "show", "quick", "--json").stdout)["next"] == "1.2", 15,
               "day 1 to finish and be done")
    subprocess.run(["dunstctl", "close-all"], check=True, timeout=10)
    log = NotifyLog()
    systemctl("start", SERVICE_UNIT)
    wait_until(lambda: any(n["summary"] == "Quick Base: Week 1, Day 2 today (0:01)" for n in log.entries()), 10,
               "the reminder of day 2")

    # Later: a transient timer an hour away, which starts the same command.
    press("later:quick")
    later = wait_until(lambda: [line.split()[0] for line in systemctl(
        "list-units", "--all", "--plain", "--no-legend", "intervald-remind-quick.later-*.timer").stdout.splitlines()],
        10, "Later's timer")
    assert len(later) == 1, later
    assert shown(later[0], "ActiveState") == "active"
    assert "{ OnActiveUSec=1h ;" in shown(later[0], "TimersMonotonic")
    later_service = later[0].removesuffix(".timer") + ".service"
    assert shown(later_service, "ExecStart").startswith(f"{{ path={BINDIR / 'intervalctl'} ; argv[]=")
    assert "program remind --now quick" in shown(later_service, "ExecStart")

    # --off: no unit file, no timer, no Later left.
    off = ctl("program", "remind", "quick", "--off")
    assert off.returncode == 0, off.stderr
    assert off.stdout == "quick: no more reminders.\n"
    assert reminder_units() == []
    assert "intervald-remind" not in systemctl("list-timers", "--all", "--no-pager").stdout
    assert systemctl("list-unit-files", "--no-legend", "intervald-remind-*", check=False).stdout.strip() == ""
    assert not (UNIT_DIR / "timers.target.wants" / TIMER).exists()
    assert ctl("program", "remind", "quick", "--off").stdout == "quick had no reminder.\n"


def test_a_calendar_expression_systemd_cannot_read_is_refused_and_the_earlier_reminder_stays(program):
    assert ctl("program", "remind", "quick", "--on", "Sat 09:30").returncode == 0
    before = (UNIT_DIR / TIMER).read_text()

    refused = ctl("program", "remind", "quick", "--on", "Mon,Wed,Fry 18:00")
    assert refused.returncode == 64, refused.stdout + refused.stderr
    assert refused.stderr.startswith(
        "intervalctl: error: systemd refused the calendar expression 'Mon,Wed,Fry 18:00': "), refused.stderr
    assert (UNIT_DIR / TIMER).read_text() == before
    assert "OnCalendar=Sat *-*-* 09:30:00" in shown(TIMER, "TimersCalendar")
    assert shown(TIMER, "LoadState") == "loaded"

    # A line break would write a line of its own into the unit file: refused before systemd sees it.
    injected = ctl("program", "remind", "quick", "--on", "Mon 18:00\nExecStartPre=/bin/false")
    assert injected.returncode == 64
    assert injected.stderr.startswith("intervalctl: error: --on: column 10: a calendar expression cannot hold U+000A\n")
    assert (UNIT_DIR / TIMER).read_text() == before

    unknown = ctl("program", "remind", "nothing", "--on", "Mon 18:00")
    assert unknown.returncode == 1
    assert "no program named 'nothing'" in unknown.stderr
    assert reminder_units() == [SERVICE_UNIT, TIMER]


def test_the_window_sets_and_removes_the_reminder_on_the_programs_page(program, tmp_path):
    from window_harness import Window
    # The window of this home: its reminders go where the user manager reads units.
    window = Window(tmp_path, env={"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"],
                                   "XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]})
    try:
        window.tab("Plans")
        window.press("push button", "Quick Base")
        window.usable("push button", "Back")
        # What Set did is read from systemd: the toast that says it lasts seconds, less than a walk of the accessible
        # tree on a loaded machine may take.
        window.type("Remind Me On", "Tue,Thu 07:15")
        window.press("push button", "Set")
        wait_until(lambda: reminder_units() == [SERVICE_UNIT, TIMER] and shown(TIMER, "ActiveState") == "active", 15,
                   "the window's reminder to be installed and started")
        assert "OnCalendar=Tue,Thu *-*-* 07:15:00" in shown(TIMER, "TimersCalendar")

        window.type("Remind Me On", "")
        window.press("push button", "Set")
        wait_until(lambda: reminder_units() == [], 15, "the window to remove the reminder")
        assert "intervald-remind" not in systemctl("list-timers", "--all", "--no-pager").stdout
    finally:
        window.close()

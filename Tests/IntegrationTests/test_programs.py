"""Training programs (docs/programs.md) through the real daemon on the test bus: `intervalctl start NAME` runs the
next day, only a finished day advances the program, a stopped one stays in history with its day, a day killed with
kill -9 resumes and advances only at its end, and the person's corrections (done, repeat, goto, reset)."""
import json
import os
import signal
import subprocess

import pytest

from conftest import BusMonitor, ctl, desktop_required, name_owner_pid, wait_until
from test_durability import get

pytestmark = desktop_required()

#: Days of a second or two, so that a whole day runs within a test.
PROGRAM = """# Three short weeks for the tests.
name "Quick Base"
countdown 100ms

week 1 {
  2x day { 500ms walk "Warm-up", 500ms run }
}
week 2 {
  day { 2x(500ms run, 500ms walk) }
  day { 4x(1s run, 1s walk) }
}
"""


@pytest.fixture
def config_home(tmp_path):
    home = tmp_path / "config"
    (home / "intervald" / "programs").mkdir(parents=True)
    (home / "intervald" / "programs" / "quick.program").write_text(PROGRAM)
    return home


@pytest.fixture
def daemon_environment(config_home):
    return {"XDG_CONFIG_HOME": str(config_home)}


@pytest.fixture
def program_ctl(config_home, tmp_path):
    environment = {"XDG_CONFIG_HOME": str(config_home), "XDG_STATE_HOME": str(tmp_path / "state")}
    return lambda *args: ctl(*args, env=environment)


def progress(program_ctl):
    shown = program_ctl("program", "show", "quick", "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def plan_name(program_ctl):
    """The running workout's name, from `intervalctl status --json` (busctl escapes the "·")."""
    return json.loads(program_ctl("status", "--json").stdout)["plan_name"]


def history(program_ctl):
    return json.loads(program_ctl("history", "--json").stdout)["workouts"]


def run_to_the_end(program_ctl, *arguments):
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        started = program_ctl("start", "quick", *arguments)
        assert started.returncode == 0, started.stderr
        signals.wait_for("Finished", timeout=20)
    finally:
        signals.close()
    return started.stdout


def test_finishing_a_day_makes_start_run_the_next_and_a_stopped_day_stays_next(activatable_daemon, program_ctl):
    assert "Quick Base · Week 1, Day 1" in run_to_the_end(program_ctl)
    wait_until(lambda: progress(program_ctl)["next"] == "1.2", 10, "day 1.1 done")
    assert "Quick Base · Week 1, Day 2" in program_ctl("start", "quick").stdout
    assert plan_name(program_ctl) == "Quick Base · Week 1, Day 2"
    assert program_ctl("stop").returncode == 0
    # Stopped half-way: still next, and in history as stopped, with its day.
    assert progress(program_ctl)["next"] == "1.2"
    records = history(program_ctl)
    assert [(r["result"], r["program"], r["day"]) for r in records] == [
        ("finished", "quick", "1.1"), ("stopped", "quick", "1.2")]
    assert records[1]["plan"] == "Quick Base · Week 1, Day 2"
    shown = progress(program_ctl)
    assert [d["day"] for d in shown["days"] if d["done"]] == ["1.1"]
    # A day chosen with --day runs that day; finishing it moves the program past it.
    assert "Week 2, Day 1" in run_to_the_end(program_ctl, "--day", "2.1")
    wait_until(lambda: progress(program_ctl)["next"] == "2.2", 10, "day 2.1 done")


def test_a_day_killed_mid_way_resumes_and_is_done_only_at_its_end(activatable_daemon, program_ctl):
    assert program_ctl("program", "goto", "2.2", "quick").returncode == 0
    assert program_ctl("start", "quick").returncode == 0
    wait_until(lambda: get("SegmentIndex") >= 2, 10, "a few cues of day 2.2")
    os.kill(name_owner_pid(), signal.SIGKILL)
    wait_until(lambda: name_owner_pid() is None, 5, "the killed daemon to leave the bus")
    assert progress(program_ctl)["next"] == "2.2", "nothing advanced by the crash"
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        # The next call activates a new daemon, which continues the day.
        assert get("State") == "running"
        assert plan_name(program_ctl) == "Quick Base · Week 2, Day 2"
        signals.wait_for("Finished", timeout=20)
    finally:
        signals.close()
    wait_until(lambda: progress(program_ctl)["next"] is None, 10, "the last day done")
    assert [(r["result"], r["day"]) for r in history(program_ctl)] == [("finished", "2.2")]
    complete = program_ctl("start", "quick")
    assert complete.returncode == 1 and "complete" in complete.stderr


def test_a_day_skipped_to_its_end_is_finished_in_the_history_but_not_done(activatable_daemon, program_ctl):
    """Skipped through, Week 2, Day 2 counted as done; it is recorded with its time skipped, and stays next."""
    assert program_ctl("program", "goto", "2.2", "quick").returncode == 0
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert program_ctl("start", "quick").returncode == 0
        for _ in range(8):
            if signals.received("Finished"):
                break
            assert program_ctl("skip").returncode == 0
        signals.wait_for("Finished", timeout=10)
    finally:
        signals.close()
    record = wait_until(lambda: history(program_ctl), 10, "the history record")[-1]
    assert (record["result"], record["day"]) == ("finished", "2.2")
    assert record["done_us"] + record["skipped_us"] == record["planned_us"] == 8_000_000
    assert record["skipped_us"] > 6_000_000, record
    assert progress(program_ctl)["next"] == "2.2", "a day skipped through is not done (docs/programs.md)"
    shown = program_ctl("history")
    assert "skipped)" in shown.stdout.splitlines()[0], shown.stdout


def test_a_reminder_without_a_systemd_user_session_is_refused_in_words_and_leaves_nothing(program_ctl, config_home,
                                                                                        tmp_path):
    """With no systemd user manager (here the bus's own activation of it exits 1, as on a session bus that systemd did
    not start), the reminder's unit files stayed behind, `remind` then printed "Reminder: …", and `--off` failed."""
    services = tmp_path / "services"
    services.mkdir()
    (services / "org.freedesktop.systemd1.service").write_text(
        "[D-BUS Service]\nName=org.freedesktop.systemd1\nExec=/bin/false\n")
    config = tmp_path / "bus.conf"
    config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path={tmp_path / "bus.sock"}</listen><servicedir>{services}</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
</policy></busconfig>""")
    bus = subprocess.Popen(["dbus-daemon", "--config-file", str(config), "--nofork", "--print-address"],
                           stdout=subprocess.PIPE, text=True)
    try:
        address = bus.stdout.readline().strip()
        environment = {"XDG_CONFIG_HOME": str(config_home), "DBUS_SESSION_BUS_ADDRESS": address}
        units = config_home / "systemd" / "user"
        refused = ctl("program", "remind", "quick", "--on", "Mon,Wed,Fri 18:00", env=environment)
        assert refused.returncode == 69, refused
        assert refused.stderr == ("intervalctl: error: this session has no systemd user manager, which reminders "
                                  "need; nothing was changed\n"), refused.stderr
        assert not units.exists() or not list(units.iterdir()), "no unit file left behind"
        shown = ctl("program", "remind", "quick", env=environment)
        assert shown.stdout == "quick has no reminder ('--on' sets one).\n"
        assert ctl("program", "remind", "quick", "--off", env=environment).stdout == "quick had no reminder.\n"
        # Files left by an earlier version are removed by --off, since no systemd runs their timer.
        units.mkdir(parents=True, exist_ok=True)
        for name in ("intervald-remind-quick.timer", "intervald-remind-quick.service"):
            (units / name).write_text("[Timer]\nOnCalendar=Mon 18:00\n")
        off = ctl("program", "remind", "quick", "--off", env=environment)
        assert off.returncode == 0 and off.stdout == "quick: no more reminders.\n", off
        assert not list(units.iterdir())
    finally:
        bus.terminate()
        bus.wait(timeout=10)


def test_done_repeat_goto_and_reset_correct_the_progress(program_ctl):
    assert program_ctl("program", "done", "quick").stdout.strip() == "Quick Base: next is Week 1, Day 2 (0:01)"
    assert program_ctl("program", "repeat", "quick").stdout.strip() == "Quick Base: next is Week 1, Day 1 (0:01)"
    assert program_ctl("program", "goto", "2.1", "quick").stdout.strip() == "Quick Base: next is Week 2, Day 1 (0:02)"
    missing = program_ctl("program", "goto", "3.1", "quick")
    assert missing.returncode == 1 and "has no day 3.1" in missing.stderr
    assert program_ctl("program", "goto", "x", "quick").returncode == 64
    shown = progress(program_ctl)
    assert shown["next"] == "2.1" and [c["how"] for c in shown["done_days"]] == ["marked"]
    assert program_ctl("program", "reset", "quick").returncode == 0
    shown = progress(program_ctl)
    assert shown["next"] == "1.1" and shown["done_days"] == []
    listed = json.loads(program_ctl("programs", "--json").stdout)
    assert [(p["name"], p["days"], p["done"], p["next"]) for p in listed] == [("quick", 4, 0, "1.1")]
    assert program_ctl("program", "show", "nothing").returncode == 1
    assert program_ctl("start", "quick", "--day", "9.9").returncode == 65


def test_a_wrong_program_is_refused_with_its_located_diagnostic(config_home, program_ctl, tmp_path):
    wrong = config_home / "intervald" / "programs" / "wrong.program"
    wrong.write_text('name "Wrong"\nweek 1 {\n  day { 5m walk; 20x run }\n}\n')
    checked = program_ctl("plan", "check", str(wrong))
    assert checked.returncode == 65
    assert f"{wrong}:3:22: error:" in checked.stderr
    started = program_ctl("start", "wrong")
    assert started.returncode == 65 and f"{wrong}:3:22: error:" in started.stderr

"""Training programs (docs/programs.md) through the real daemon on the test bus: `intervalctl start NAME` runs the
next day, only a finished day advances the program, a stopped one stays in history with its day, a day killed with
kill -9 resumes and advances only at its end, and the person's corrections (done, repeat, goto, reset)."""
import json
import os
import signal

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

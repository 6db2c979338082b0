"""Cues you feel (docs/reference.md §4d): the activated daemon asks the real feedbackd for an event at each change,
countdown pip and the finish, on the test desktop's bus. feedbackd runs with a theme of dummy feedbacks (no vibration
motor here) and logs `Event 'NAME' for 'APP_ID' from :1.N` for each TriggerFeedback it gets: that log is what is
read. Without feedbackd, the workout's cues are unchanged."""
import os
import re

import pytest

from conftest import attach_if_failed, ctl, desktop_required, owns_name, wait_until
from feedbackd import APP_ID, FEEDBACK, FEEDBACKD, FINISH, PIP, REST, WORK, Feedbackd

pytestmark = desktop_required()


@pytest.fixture
def feedbackd(tmp_path, activatable_daemon, request):
    if not os.access(FEEDBACKD, os.X_OK):
        pytest.skip("feedbackd is not installed (scripts/setup-deps)")
    started = Feedbackd(tmp_path)
    yield started
    started.close()
    attach_if_failed(request, "feedbackd", started.log_path)
    attach_if_failed(request, "intervald", activatable_daemon)


def test_feedbackd_gets_one_event_per_cue_in_order_with_the_finish_last(activatable_daemon, feedbackd, monitor):
    signals = monitor()
    assert ctl("start", "-e", "countdown 1s\n2s run\n2s walk").returncode == 0
    signals.wait_for("Finished")
    events = feedbackd.wait_for(FINISH)
    # The countdown's pip before the walk and before the finish, which comes last.
    assert [name for name, _ in events] == [WORK, PIP, REST, PIP, FINISH]
    assert {app for _, app in events} == {APP_ID}
    assert len(signals.received("SegmentStarted")) == 2
    # Each event ran its quiet feedback alone: the theme's sound-level one for work was left out.
    assert re.findall(r"Running (\d+) feedbacks", feedbackd.text()) == ["1"] * 5


def test_haptics_switched_off_during_a_workout_ask_for_nothing_more(
        activatable_daemon, daemon_config, feedbackd, monitor):
    signals = monitor()
    assert ctl("start", "-e", "2s run, 2s walk, 2s run").returncode == 0
    signals.wait_for("SegmentStarted")
    feedbackd.wait_for(WORK)
    reloads = activatable_daemon.read_text().count("Reloaded the settings.")
    temporary = daemon_config.with_name(daemon_config.name + ".new")
    temporary.write_text(daemon_config.read_text() + "[haptics]\nenabled = false\n")
    temporary.rename(daemon_config)
    wait_until(lambda: activatable_daemon.read_text().count("Reloaded the settings.") > reloads, 10,
               "the daemon to read the changed file")
    signals.wait_for("Finished", timeout=15)
    assert len(signals.received("SegmentStarted")) == 3
    assert [name for name, _ in feedbackd.events()] == [WORK]


def test_without_feedbackd_every_cue_comes_it_is_said_once_and_asked_once(activatable_daemon, monitor, tmp_path):
    assert not owns_name(FEEDBACK)
    signals = monitor()
    calls = monitor(f"type='method_call',interface='{FEEDBACK}'")
    assert ctl("start", "-e", "1s run, 1s walk, 1s run").returncode == 0
    signals.wait_for("Finished")
    assert [m["payload"]["data"][0] for m in signals.received("SegmentStarted")] == [0, 1, 2]
    # One calm line: no D-Bus error text where feedbackd is simply not there.
    log = activatable_daemon.read_text()
    said = [line for line in log.splitlines() if "feedbackd" in line]
    assert len(said) == 1 and "No cues you feel: feedbackd is not running here." in said[0], said
    assert "error=" not in said[0], said
    # The first cue found no feedbackd; the others asked nothing.
    assert [m["payload"]["data"][1] for m in calls.received("TriggerFeedback")] == [WORK]
    # feedbackd coming onto the bus is heard: the next workout's cues are asked for again.
    with_feedbackd = Feedbackd(tmp_path)
    try:
        assert ctl("start", "-e", "1s walk").returncode == 0
        assert [name for name, _ in with_feedbackd.wait_for(FINISH)] == [REST, FINISH]
    finally:
        with_feedbackd.close()


def test_a_foreground_run_asks_feedbackd_too_and_not_with_haptics_off(feedbackd, tmp_path):
    config = tmp_path / "run.toml"
    config.write_text("[notifications]\nsound = false\n")
    env = {"XDG_STATE_HOME": str(tmp_path / "run-state")}
    run = ctl("run", "--no-notifications", "--config", str(config), "-e", "1s run, 1s walk", env=env)
    assert run.returncode == 0, run.stderr
    assert [name for name, _ in feedbackd.wait_for(FINISH)] == [WORK, REST, FINISH]
    off = tmp_path / "off.toml"
    off.write_text("[notifications]\nsound = false\n[haptics]\nenabled = false\n")
    assert ctl("run", "--no-notifications", "--config", str(off), "-e", "1s walk", env=env).returncode == 0
    # A run with haptics on after it: whatever the run with them off had asked for would have come before its events.
    assert ctl("run", "--no-notifications", "--config", str(config), "-e", "1s run", env=env).returncode == 0
    wait_until(lambda: len(feedbackd.events()) >= 5, 10, "the last run's events")
    assert [name for name, _ in feedbackd.events()] == [WORK, REST, FINISH, WORK, FINISH]

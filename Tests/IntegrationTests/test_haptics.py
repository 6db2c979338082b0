"""Cues you feel (docs/reference.md §4d): the activated daemon asks the real feedbackd for an event at each change,
countdown pip and the finish, on the test desktop's bus. feedbackd runs with a theme of dummy feedbacks (no vibration
motor here) and logs `Event 'NAME' for 'APP_ID' from :1.N` for each TriggerFeedback it gets: that log is what is
read. Without feedbackd, the workout's cues are unchanged."""
import json
import os
import re
import subprocess

import pytest

from conftest import attach_if_failed, ctl, desktop_required, owns_name, wait_until

pytestmark = desktop_required()

FEEDBACKD = "/usr/libexec/feedbackd"
FEEDBACK = "org.sigxcpu.Feedback"
APP_ID = "org.intervald.IntervalTimer"
WORK, REST, PIP, FINISH = "message-new-sms", "message-new-instant", "button-pressed", "alarm-clock-elapsed"
EVENT = re.compile(r"Event '([^']*)' for '([^']*)' from (\S+)")


class Feedbackd:
    """feedbackd on the test bus with a theme of dummy feedbacks, its debug log in a file; ended at the end."""

    def __init__(self, tmp_path):
        theme = tmp_path / "feedback-theme.json"
        quiet = [{"event-name": name, "type": "Dummy", "duration": duration}
                 for name, duration in ((WORK, 300), (REST, 100), (PIP, 15), (FINISH, 1000))]
        # A sound-level feedback for the work event too: intervald asks for the quiet profile at most, so feedbackd
        # must run one feedback for it, never two.
        full = [{"event-name": WORK, "type": "Dummy", "duration": 300}]
        # Every profile there: feedbackd 0.0.3 looks up each level down to silent, and a missing one is an assertion.
        theme.write_text(json.dumps({"name": "test", "profiles": [
            {"name": "full", "feedbacks": full}, {"name": "quiet", "feedbacks": quiet},
            {"name": "silent", "feedbacks": []}]}))
        self.log_path = tmp_path / "feedbackd.log"
        self.process = subprocess.Popen(
            [FEEDBACKD],
            env={**os.environ, "GSETTINGS_BACKEND": "memory", "FEEDBACK_THEME": str(theme), "G_MESSAGES_DEBUG": "all"},
            # GLib writes debug messages to stdout, warnings to stderr.
            stdout=self.log_path.open("w"), stderr=subprocess.STDOUT)
        wait_until(lambda: owns_name(FEEDBACK) or self.process.poll() is not None, 10, "feedbackd on the bus")
        assert self.process.poll() is None, self.log_path.read_text()

    def text(self):
        return self.log_path.read_text(errors="replace")

    def events(self):
        """(event, app id) of each TriggerFeedback, in the order feedbackd got them."""
        return [(match[1], match[2]) for match in EVENT.finditer(self.text())]

    def wait_for(self, event, timeout=10):
        return wait_until(lambda: any(name == event for name, _ in self.events()) and self.events(), timeout,
                          f"feedbackd to get {event}")

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        wait_until(lambda: not owns_name(FEEDBACK), 10, "feedbackd to leave the bus")


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


def test_without_feedbackd_every_cue_comes_and_it_is_said_once(activatable_daemon, monitor):
    assert not owns_name(FEEDBACK)
    signals = monitor()
    assert ctl("start", "-e", "1s run, 1s walk, 1s run").returncode == 0
    signals.wait_for("Finished")
    assert [m["payload"]["data"][0] for m in signals.received("SegmentStarted")] == [0, 1, 2]
    assert activatable_daemon.read_text().count("feedbackd does not answer") == 1

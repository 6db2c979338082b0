"""feedbackd, the haptic feedback daemon of Phosh and Plasma Mobile, on the session bus of the test desktop (or of the
benchmark's) with a theme of dummy feedbacks: there is no vibration motor here, so what is read is its debug log,
which has `Event 'NAME' for 'APP_ID' from :1.N` for each TriggerFeedback it gets."""
import json
import os
import re
import subprocess

from conftest import owns_name, wait_until

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

"""Every output of the workout agrees with the daemon's State after every command in every state (spec §17): the
notification dunst shows, the tray item, the MPRIS player as playerctl reads it, the window through AT-SPI and
`intervalctl status`. A skip while paused showed "All out · 20 s" with a Pause button while the status said paused.

The file's name sorts after test_plasma.py on purpose (see test_window_editor.py)."""
import json
import shutil
import subprocess

import pytest

from conftest import PATH, SERVICE, busctl, ctl, name_owner_pid, owns_name, wait_until
from window_harness import COUNTDOWN, Atspi, accessibility_bus, daemon_environment, gi, window  # noqa: F401

pytestmark = pytest.mark.skipif(shutil.which("playerctl") is None, reason="needs playerctl (scripts/setup-deps)")

PLAN = 'name "Agree"\n3x(1m run, 1m walk)'
STATES = ("idle", "running", "paused")
#: What each command leaves, from each state (on its second segment): the state and the segment (None: idle), and
#: whether it succeeds. `replace` is `start --replace`.
EXPECTED = {
    ("idle", "start"): ("running", 0, True), ("idle", "pause"): ("idle", None, False),
    ("idle", "resume"): ("idle", None, False), ("idle", "skip"): ("idle", None, False),
    ("idle", "restart"): ("idle", None, False), ("idle", "stop"): ("idle", None, True),
    ("running", "start"): ("running", 1, False), ("running", "pause"): ("paused", 1, True),
    ("running", "resume"): ("running", 1, False), ("running", "skip"): ("running", 2, True),
    ("running", "restart"): ("running", 1, True), ("running", "stop"): ("idle", None, True),
    ("paused", "start"): ("paused", 1, False), ("paused", "pause"): ("paused", 1, False),
    ("paused", "resume"): ("running", 1, True), ("paused", "skip"): ("paused", 2, True),
    ("paused", "restart"): ("paused", 1, True), ("paused", "stop"): ("idle", None, True),
    ("idle", "replace"): ("running", 0, True), ("running", "replace"): ("running", 0, True),
    ("paused", "replace"): ("running", 0, True),
}
LABELS = {0: "Run", 1: "Walk", 2: "Run"}


def from_status():
    status = json.loads(ctl("status", "--json").stdout)
    return (status["state"], status["segment_label"] or None) if status["state"] != "idle" else ("idle", None)


def from_notification(notify_log):
    """The one notification dunst shows: "Paused · Walk" or "Walk · 1 minute"; none when idle."""
    shown = subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True).stdout.strip()
    if shown == "0":
        return ("idle", None)
    # The last one dunst showed (each replacement is a line of the log scripts/test-desktop keeps).
    summary = notify_log.entries()[-1]["summary"]
    if summary.startswith("Paused · "):
        return ("paused", summary.removeprefix("Paused · "))
    return ("running", summary.split(" · ")[0])


def from_tray():
    """The tray item's title: "Walk · 0:59 — next: Run 1:00", "Walk · 0:59 — paused"; no item when idle."""
    service = f"org.kde.StatusNotifierItem-{name_owner_pid()}-1"
    if not owns_name(service):
        return ("idle", None)
    title = json.loads(busctl("--json=short", "get-property", service, "/StatusNotifierItem",
                              "org.kde.StatusNotifierItem", "Title").stdout)["data"]
    return ("paused" if title.endswith("— paused") else "running", title.split(" · ")[0])


def from_mpris():
    if not owns_name("org.mpris.MediaPlayer2.intervald"):
        return ("idle", None)
    status = subprocess.run(["playerctl", "-p", "intervald", "status"], capture_output=True, text=True).stdout
    title = subprocess.run(["playerctl", "-p", "intervald", "metadata", "xesam:title"], capture_output=True,
                           text=True).stdout
    return ({"Playing\n": "running", "Paused\n": "paused"}.get(status, status), title.split(" · ")[0].strip())


def from_window(window):
    """The workout page: its Pause or Resume button, which can be pressed, and the segment's label; when idle, the
    page of no workout, whose buttons cannot be pressed (GTK 4.8 keeps a page's last extents once it is hidden)."""
    def laid_out(role, name, state=None):
        for control in window.matches(role, name):
            try:
                extents = control.get_extents(Atspi.CoordType.WINDOW)
                pressable = state is None or control.get_state_set().contains(state)
            except gi.repository.GLib.Error:  # gone meanwhile
                continue
            if extents.width > 0 and extents.height > 0 and pressable:
                return True
        return False

    sensitive = Atspi.StateType.SENSITIVE
    state = "paused" if laid_out("push button", "Resume", sensitive) else "running" \
        if laid_out("push button", "Pause", sensitive) else "idle"
    if state == "idle":
        return (state, None)
    # The segment's label is the title over the countdown (the finish page lists kinds by the same words).
    countdown = next(window.matches("label", COUNTDOWN), None)
    titles = [window.find("label", name, root=countdown.get_parent()) for name in ("Run", "Walk")] if countdown \
        else []
    return (state, next((title.get_name() for title in titles if title is not None), None))


def outputs(window, notify_log):
    return {"status": from_status(), "notification": from_notification(notify_log), "tray": from_tray(),
            "mpris": from_mpris(), "window": from_window(window)}


def reach(state, window, notify_log):
    """Puts the daemon into `state` on the plan's second segment (Walk), or idle, and waits until all agree."""
    ctl("stop")
    if state != "idle":
        assert ctl("start", "-e", PLAN).returncode == 0
        wait_until(lambda: from_status() == ("running", "Run"), 5, "the workout to run")
        assert ctl("skip").returncode == 0
        if state == "paused":
            assert ctl("pause").returncode == 0
    expected = (state, "Walk" if state != "idle" else None)
    try:
        wait_until(lambda: set(outputs(window, notify_log).values()) == {expected}, 10, "every output to agree")
    except AssertionError as failure:
        raise AssertionError(f"{expected}: {outputs(window, notify_log)}") from failure


def test_every_output_agrees_with_the_state_after_every_command_in_every_state(window, activatable_daemon, notify_log):
    disagreements = []
    for (state, command), (after, segment, succeeds) in EXPECTED.items():
        reach(state, window, notify_log)
        if command == "restart":  # the window's Restart Interval and MPRIS Previous; intervalctl has none
            result = busctl("call", SERVICE, PATH, "org.intervald.Timer1", "Restart", check=False)
        else:
            result = ctl(*{"start": ["start", "-e", PLAN], "replace": ["start", "--replace", "-e", PLAN]}.get(
                command, [command]))
        assert (result.returncode == 0) == succeeds, (state, command, result.stderr)
        expected = (after, LABELS[segment] if segment is not None else None)
        try:
            wait_until(lambda: set(outputs(window, notify_log).values()) == {expected}, 5, "every output to agree")
        except AssertionError:
            disagreements.append((state, command, expected, outputs(window, notify_log)))
    ctl("stop")
    assert disagreements == [], "\n".join(map(str, disagreements))

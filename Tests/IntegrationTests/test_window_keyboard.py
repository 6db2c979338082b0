"""The window from the keyboard (docs/window.md), keys typed through the X server: the Keyboard Shortcuts window and
its keys, Space and the arrows on the workout, and a focused control or text field keeping its own keys
(window_harness.py has the window's harness; test_window_editor.py presses every key the shortcuts window lists)."""
import shutil
import subprocess

import pytest

from conftest import ctl, desktop_required, wait_until
from window_harness import (Atspi, accessibility_bus, click, daemon_config, daemon_environment,  # noqa: F401
                            focus_window_on_screen, key, response, text_of, timer_property, window)

pytestmark = desktop_required()


def test_the_keyboard_shortcuts_are_listed(window):
    window.menu("Keyboard Shortcuts")
    for title in ("Pause or resume", "Skip to the next interval", "Preferences", "Full screen"):
        window.wait("label", title)


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_ctrl_question_mark_opens_the_keyboard_shortcuts_and_ctrl_comma_preferences(window):
    """Ctrl+? did nothing, though the Keyboard Shortcuts window lists it."""
    focus_window_on_screen(window)
    key("ctrl+question")
    window.wait("label", "Skip to the next interval")
    key("Escape")
    wait_until(lambda: not window.find("label", "Skip to the next interval"), 10, "the shortcuts window closed")
    focus_window_on_screen(window)
    key("ctrl+comma")
    window.wait("label", "Volume in percent")


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_space_and_the_arrows_act_on_the_workout_and_a_focused_text_field_keeps_them(window):
    assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    focus_window_on_screen(window)
    # The workout's Pause has the focus: Space pauses, as in a media player, and again resumes.
    key("space")
    wait_until(lambda: timer_property("State") == '"paused"', 5, "Space to pause")
    window.wait("push button", "Resume")
    key("space")
    wait_until(lambda: timer_property("State") == '"running"', 5, "Space to resume")
    key("Right")
    wait_until(lambda: timer_property("SegmentIndex") == "1", 5, "Right to skip")
    # Typed into the one-line field, Space is a space and the arrows move the cursor: the workout goes on.
    window.tab("Plans")
    entry = window.usable("text", "One-line plan")
    # The field is at the page's top, on the screen as the page opens.
    wait_until(lambda: 0 < entry.get_extents(Atspi.CoordType.SCREEN).y < 360, 5, "the field to be on the screen")
    click(entry)
    wait_until(lambda: entry.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the field to have the focus")
    subprocess.run(["xdotool", "type", "--delay", "20", "2x(1m run,"], check=True, timeout=10)
    key("space")
    key("Left")
    key("Right")
    subprocess.run(["xdotool", "type", "--delay", "20", "1m walk)"], check=True, timeout=10)
    wait_until(lambda: text_of(entry) == "2x(1m run, 1m walk)", 5, "the typed plan with its space")
    window.wait("label", "4:00, 4 segments")
    assert timer_property("State") == '"running"'
    assert timer_property("SegmentIndex") == "1"
    ctl("stop")


def test_space_on_a_focused_stop_presses_stop_which_asks_first(window):
    """A focused control keeps its own keys: Space on Stop is Stop's (its question), not the workout's pause."""
    assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    focus_window_on_screen(window)
    key("Tab")  # from Pause to Skip
    key("Tab")  # to Stop
    stop = window.find("push button", "Stop")
    wait_until(lambda: stop.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "Stop to have the focus")
    key("space")
    window.usable("push button", response("Keep Going"))
    assert timer_property("State") == '"running"'
    window.press("push button", response("Keep Going"))
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the question to close")
    assert timer_property("State") == '"running"'
    ctl("stop")

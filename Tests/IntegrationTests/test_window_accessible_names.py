"""Every control on every page, menu and dialog of the window has an accessible name, said once, as a screen reader
says it (docs/window.md, "Accessibility and languages"); window_harness.py has the window's harness and the check
(controls_without_a_name)."""
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import ctl, desktop_required, wait_until
from window_harness import (accessibility_bus, controls_without_a_name, daemon_config, daemon_environment,  # noqa: F401
                            focus_window_on_screen, history_line, key, read_menu, response, said_twice, window,
                            window_environment)

pytestmark = desktop_required()


def test_a_name_said_twice_is_found():
    assert said_twice("Keep Editing Keep Editing") and said_twice("Speak Speak a sample") and said_twice("OK OK")
    assert not said_twice("Speak a sample") and not said_twice("Walk, run, walk") and not said_twice("")


def walk_menu(window, button, item):
    """The badly named accessibles of the menu of `button`, while it is open: the menu (the parent of its item `item`
    that is a menu) and what it holds."""
    def menu():
        node = window.find("menu item", item)
        while node is not None and node.get_role_name() != "menu":
            node = node.get_parent()
        return controls_without_a_name(window, node)

    return read_menu(window, button, item, menu)


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_every_control_on_every_page_menu_and_dialog_has_an_accessible_name_said_once(window, tmp_path):
    """The calculator's solve toggles read "GtkToggleButton", and one image button "GtkImage"; then History's Export
    menu button "GtkMenuButton", the editor's Kind arrows "GtkToggleButton", the shortcuts window "GtkShortcutsWindow",
    a question's buttons "Keep Editing Keep Editing" and Preferences' "Speak Speak a sample"."""
    history = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_text(history_line("Tabata", int(time.time()) - 3600, "finished"))
    assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    for page in ("Workout", "Plans", "History", "Calculator"):
        window.tab(page)
        assert controls_without_a_name(window) == [], page
    focus_window_on_screen(window)
    assert walk_menu(window, window.main_menu, "Preferences") == [], "the main menu"
    window.tab("History")
    assert walk_menu(window, "Export", "Export as CSV…") == [], "History's Export menu"

    def question(button, shown, answer, what):
        """Walks the question `button` asks, once its `shown` shows; answers `answer`, which leaves the main window
        alone."""
        window.press("push button", button)
        asked = window.wait("dialog", re.compile(r".*"))
        window.usable("push button", response(shown), root=asked)
        assert controls_without_a_name(window, asked) == [], what
        window.press("push button", response(answer))
        wait_until(lambda: window.app.get_child_count() == 1, 5, f"{what} to close")

    window.tab("Workout")
    question("Stop", "Keep Going", "Keep Going", "the question Stop asks")
    ctl("stop")
    window.open_plan("Tabata")
    assert controls_without_a_name(window) == [], "a plan's page"
    assert walk_menu(window, "Plan Menu", "Duplicate") == [], "a plan's menu"
    window.press("push button", "Back")
    window.press("push button", "Couch to 5K")
    window.wait("list", "Week 9")
    assert controls_without_a_name(window) == [], "a program's page"
    assert walk_menu(window, "Program Menu", "Mark Next Day Done") == [], "a program's menu"
    window.press("push button", "Back")
    # The editor, a row's menu and the question its Cancel asks.
    window.press("push button", "New Plan")
    editor = window.wait("frame", "Plan Editor")
    window.usable("text", "Duration", root=editor)
    assert controls_without_a_name(window, editor) == [], "the plan editor"
    assert walk_menu(window, re.compile(r"Actions for .*"), "Duplicate") == [], "a row's menu"
    window.type("Name", "Changed")
    question("Cancel", "Keep Editing", "Discard", "the question the editor's Cancel asks")
    # Preferences and the keyboard shortcuts, each a window of its own, closed with Escape.
    for title in ("Preferences", "Keyboard Shortcuts"):
        window.menu(title)
        assert controls_without_a_name(window, window.wait("frame", title)) == [], title
        focus_window_on_screen(window, title)
        key("Escape")
        wait_until(lambda: window.app.get_child_count() == 1, 5, f"{title} to close")


def test_every_row_under_a_plans_steps_is_named(window):
    """A repeat's row under Steps was an unnamed list item: a screen reader said nothing where "8 ×" folds out."""
    window.open_plan("Tabata")
    steps = window.wait("list", "Steps")
    rows = window.all("list item", root=steps)
    assert len(rows) >= 5, [row.get_name() for row in rows]
    unnamed = [index for index, row in enumerate(rows) if not (row.get_name() or "").strip()]
    assert not unnamed, f"rows {unnamed} of {[row.get_name() for row in rows]} have no name"

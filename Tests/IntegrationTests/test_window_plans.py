"""The Plans page and a plan's page (docs/window.md), driven through AT-SPI as a person with a screen reader would,
against the real daemon on the test desktop: the one-line plan's field, its problems in words, saved as a plan; a
plan's page, its steps and repeats as rows, opened at its top; a plan duplicated, renamed, deleted with Undo, copied as
one line, and one written by another program (window_harness.py has the window's harness)."""
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, ctl, desktop_required, wait_until
from window_harness import (Atspi, accessibility_bus, click, daemon_config, daemon_environment,  # noqa: F401
                            focus_window_on_screen, key, marked_invalid, response, text_of, timer_property, window,
                            window_environment)

pytestmark = desktop_required()


def test_a_mistyped_one_line_plan_says_what_is_wrong_in_words_marks_the_field_and_a_good_one_its_length(window):
    """The field was below every plan, out of view; its errors were compiler text (`<inline>:1:6: error: …`), the
    field was not marked, and fixing the text moved the page under the pointer."""
    window.tab("Plans")
    entry = window.usable("text", "One-line plan")
    assert 0 < entry.get_extents(Atspi.CoordType.SCREEN).y < 360, "in view as the page opens, above the plans"
    programs = window.wait("list", "Training Programs")
    window.type("One-line plan", "8x(30s run, 30sx walk)")
    problem = wait_until(lambda: window.find("label", re.compile(r"Unknown duration unit 'sx'.*\.")), 5,
                         "the problem in words")
    assert "<inline>" not in problem.get_name() and "^" not in problem.get_name()
    wait_until(lambda: marked_invalid(entry), 5, "the field marked")
    below_with_problem = programs.get_extents(Atspi.CoordType.SCREEN).y
    start = window.wait("push button", "Start")
    assert not start.get_state_set().contains(Atspi.StateType.SENSITIVE)
    window.type("One-line plan", "8x(30s run, 30s walk)")
    window.wait("label", "8:00, 16 segments")
    wait_until(lambda: not marked_invalid(entry), 5, "the mark gone")
    assert programs.get_extents(Atspi.CoordType.SCREEN).y == below_with_problem, "the page did not move"
    wait_until(lambda: start.get_state_set().contains(Atspi.StateType.SENSITIVE), 5, "Start to be enabled")
    assert start.get_action_iface().do_action(0)
    wait_until(lambda: timer_property("PlanName") == '"8x(30s run, 30s walk)"', 10, "the one-line plan to start")
    ctl("stop")


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_a_plan_page_opens_at_its_title_however_far_the_last_one_was_scrolled(window):
    """A plan's page opened from a scrolled list opened scrolled, its title clipped; and one opened while the wheel's
    scroll of the last page still glided (GTK's kinetic deceleration, for a moment after the wheel stops) was put back
    where that page was scrolled to, its Totals at the top (a fresh machine's CI: the AT-SPI walks between the presses
    were quick enough there to land inside the glide)."""
    window.open_plan("Paced 5K intervals")
    timeline = window.wait("filler", "Timeline")
    top = timeline.get_extents(Atspi.CoordType.SCREEN).y
    # Found before the scroll, so that Back and Tabata are pressed within the glide, as a quick hand presses them.
    back = window.usable("push button", "Back")
    tabata = window.usable("push button", "Tabata")
    # The wheel, over the page, scrolls it down: the timeline goes up, off the screen.
    subprocess.run(["xdotool", "mousemove", "400", "300", "click", "--repeat", "20", "5"], check=True, timeout=20)
    wait_until(lambda: timeline.get_extents(Atspi.CoordType.SCREEN).y < top - 50, 5, "the page to scroll")
    assert back.get_action_iface().do_action(0)
    assert tabata.get_action_iface().do_action(0)
    wait_until(lambda: len(window.all("label", "Tabata")) >= 2, 10, "the page of Tabata")
    # The title is set at the click; the extents follow at GTK's next layout, a frame later. A page that opens
    # scrolled never comes to its top; one that does stays there.
    wait_until(lambda: timeline.get_extents(Atspi.CoordType.SCREEN).y == top, 5, "the page at its top")
    time.sleep(0.5)  # longer than a glide: nothing may move it afterwards
    assert timeline.get_extents(Atspi.CoordType.SCREEN).y == top


def test_a_plans_page_shows_its_steps_and_repeats_as_rows_and_the_header_bars_back_returns_to_the_list(window):
    window.open_plan("Tabata")
    steps = window.wait("list", "Steps")
    assert window.find("list item", "Warm-up", root=steps) is not None
    # A repeat is an expander row, named after its head: its total and round, and its steps inside it.
    repeat = window.find("list item", "8 ×", root=steps)
    assert repeat is not None and window.find("label", "4:00, 0:30 per round", root=repeat) is not None
    assert all(window.find("list item", name, root=repeat) for name in ("All out · Work", "Rest"))
    total = window.find("list item", "Total", root=window.wait("list", "Totals"))
    assert total is not None and window.find("label", "12:00", root=total) is not None
    window.press("push button", "Back")
    window.usable("text", "One-line plan")
    wait_until(lambda: window.find("push button", "Back") is None, 5, "Back to leave the header bar")


def test_a_plan_duplicated_deleted_and_undone_and_one_copied_in_by_another_program(window, tmp_path):
    """The own plans: a bundled plan's copy is an own plan (its text, comments and all, under a new name), deleted
    with Undo putting the file back byte for byte; a file another program writes into the folder shows at once."""
    environment = window_environment(tmp_path)
    own = Path(environment["XDG_CONFIG_HOME"]) / "intervald" / "plans"
    window.open_plan("Tabata")
    window.menu("Duplicate", "Plan Menu")
    copy = own / "tabata-copy.plan"
    wait_until(copy.exists, 5, "the copy's file")
    original = (REPO / "config" / "plans" / "tabata.plan").read_text()
    assert copy.read_text() == original.replace('name "Tabata"', 'name "Tabata (copy)"')
    wait_until(lambda: len(window.all("label", "Tabata (copy)")) >= 2, 5, "the copy's page and its row")
    assert "tabata-copy" in ctl("plans", env=environment).stdout
    written = copy.read_bytes()

    window.menu("Delete", "Plan Menu")
    wait_until(lambda: not copy.exists(), 5, "the file to be deleted")
    wait_until(lambda: window.find("push button", "Tabata (copy)") is None, 5, "its row to go")
    window.press("push button", response("Undo"))
    wait_until(copy.exists, 5, "Undo to put the file back")
    assert copy.read_bytes() == written
    window.wait("push button", "Tabata (copy)")
    # A bundled plan cannot be deleted or renamed: its menu has them disabled.
    window.open_plan("Tabata")
    window.open_menu("Plan Menu")
    window.usable("menu item", "Duplicate")
    for name in ("Delete", "Rename…"):
        item = window.wait("menu item", name)
        assert not item.get_state_set().contains(Atspi.StateType.SENSITIVE), name
    subprocess.run(["xdotool", "key", "Escape"], check=True, timeout=10)

    # Written by another program: listed with its total, and again when it changes.
    (own / "hills.plan").write_text('name "Hills"\n10m walk\n')
    window.wait("label", "10:00, 1 segment")
    (own / "hills.plan").write_text('name "Hills"\n10m walk\n6x(90s run "Uphill", 2m walk)\n')
    window.wait("label", "31:00, 13 segments")


def test_a_one_line_plan_saved_renamed_and_a_plan_copied_as_one_line_and_pasted(window, tmp_path):
    environment = window_environment(tmp_path)
    own = Path(environment["XDG_CONFIG_HOME"]) / "intervald" / "plans"
    window.tab("Plans")
    window.type("One-line plan", "2x(1m run, 1m walk)")
    window.press("push button", "Save as Plan")
    window.type("Name", "Quick Two")
    window.press("push button", response("Save"))
    saved = own / "quick-two.plan"
    wait_until(saved.exists, 5, "the saved plan's file")
    assert saved.read_text() == 'name "Quick Two"\n2x(1m run, 1m walk)'
    wait_until(lambda: len(window.all("label", "Quick Two")) >= 2, 5, "its page and its row")
    assert "quick-two" in ctl("plans", env=environment).stdout

    window.menu("Rename…", "Plan Menu")
    window.type("Name", "Quick 2")
    window.press("push button", response("Rename"))
    renamed = own / "quick-2.plan"
    # The new file is linked into place first, then the old one removed.
    wait_until(lambda: renamed.exists() and not saved.exists(), 5, "the file renamed")
    assert renamed.read_text() == 'name "Quick 2"\n2x(1m run, 1m walk)'
    window.wait("push button", "Quick 2")

    # Copy as One Line, pasted into the one-line field: the plan language intervalctl reads as the same plan.
    window.open_plan("Tabata")
    window.menu("Copy as One Line", "Plan Menu")
    window.wait("label", "Copied “Tabata” as one line")
    window.press("push button", "Back")
    # A toast stays while the pointer rests on it, as the last click may have left it.
    subprocess.run(["xdotool", "mousemove", "5", "5"], check=True, timeout=10)
    wait_until(lambda: window.find("label", "Copied “Tabata” as one line") is None, 15, "the toast to go")
    entry = window.usable("text", "One-line plan")
    assert entry.get_editable_text_iface().set_text_contents("")
    # The field is at the page's top, on the screen as the page opens.
    wait_until(lambda: 0 < entry.get_extents(Atspi.CoordType.SCREEN).y < 360, 5, "the field to be on the screen")
    click(entry)
    wait_until(lambda: entry.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the field to have the focus")
    focus_window_on_screen(window)
    key("ctrl+v")
    # "Warm-up" and "Cool-down" are the kinds' own labels: written without them.
    one_line = 'name "Tabata", countdown 3s, 4m warmup, 8x(20s work "All out", 10s rest), 4m cooldown'
    wait_until(lambda: text_of(entry) == one_line, 5, "the pasted plan")
    window.wait("label", "12:00, 18 segments")
    shown = ctl("plan", "show", "-e", one_line)
    assert shown.returncode == 0 and "Tabata — 12:00, 18 segments" in shown.stdout

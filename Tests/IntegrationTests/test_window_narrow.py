"""The window at 360 × 640, a phone's screen or a tiled half (docs/window.md): the workout page in four languages, the
Plans page, the editor, a question, Preferences and a program's page, with and without a watch mounted, every control
inside the window (window_harness.py has the window's harness)."""
import gettext
import re
import shutil

import pytest

from conftest import LOCALE_DIR, ctl, desktop_required, has_locale, in_language, wait_until
from window_harness import (COUNTDOWN, Atspi, Window, accessibility_bus, daemon_config,  # noqa: F401
                            daemon_environment, gi, in_window_namespace, narrow, response, root_required,
                            watch_window, window)

pytestmark = desktop_required()


@pytest.mark.parametrize("locale", ["C.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8"])
def test_a_narrow_window_keeps_every_workout_control_inside_it(tmp_path, activatable_daemon, locale):
    """360 × 640, a phone's screen or a tiled half: the controls, both progress bars and the digits are inside, in
    every language (German's "Überspringen" made the four buttons 460 px wide and cut Beenden off; the calculator's
    "Tempo oder Geschwindigkeit" held the German window at 411 px)."""
    if locale != "C.UTF-8" and not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        narrow_workout(window, locale)
    finally:
        window.close()


def narrow_workout(window, locale):
    catalog = gettext.translation("intervald", LOCALE_DIR, [locale[:2]], fallback=True).gettext
    assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    # GTK keeps a window at least as wide as its widest page needs: it must take the 360 asked for (its frame, without
    # the client-side shadow, reads 350).
    narrow(window, window.frame, catalog("Interval Timer"))

    def inside():
        frame = window.frame.get_extents(Atspi.CoordType.SCREEN)
        controls = [window.find("push button", catalog(name)) for name in ("Restart Interval", "Pause", "Skip", "Stop")]
        controls += [window.find("progress bar", catalog(name)) for name in ("Segment progress", "Workout progress")]
        controls.append(window.find("label", COUNTDOWN))
        for control in controls:
            if control is None:
                return False
            box = control.get_extents(Atspi.CoordType.SCREEN)
            if box.width <= 0 or box.x < frame.x or box.x + box.width > frame.x + frame.width:
                return False
        return True

    wait_until(inside, 10, "every workout control inside the 360-pixel window")
    ctl("stop")


def controls_outside(window, frame, root=None):
    """Each control laid out in `frame` (or in its part `root`: a page shown, as another keeps its last extents) that
    reaches past the frame's left or right edge (cut off, as "dd Step" was)."""
    box = frame.get_extents(Atspi.CoordType.SCREEN)
    outside = []
    for node in window.matches(root=root or frame):
        try:
            if node.get_role_name() not in ("push button", "text", "combo box", "check box", "spin button",
                                            "toggle button", "entry"):
                continue
            extents = node.get_extents(Atspi.CoordType.SCREEN)
            if extents.width > 0 and (extents.x < box.x or extents.x + extents.width > box.x + box.width):
                outside.append((node.get_role_name(), node.get_name(), extents.x, extents.width))
        except gi.repository.GLib.Error:
            continue
    return outside


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_the_plans_page_the_editor_preferences_and_a_question_fit_a_360_pixel_window(window):
    """The plan editor did not fit 360 px: rows cut off on the left ("dd Step"), the text pane a third of the width."""
    narrow(window, window.frame, "Interval Timer")
    window.tab("Plans")
    window.usable("text", "One-line plan")
    wait_until(lambda: controls_outside(window, window.frame) == [], 5, "the Plans page inside 360 pixels")
    window.press("push button", "New Plan")
    editor = window.wait("frame", "Plan Editor")
    narrow(window, editor, "Plan Editor")
    text = window.usable("text", "Plan as text")
    assert text.get_editable_text_iface().set_text_contents('10m walk "Warm-up", 6x(90s run "Uphill" @ 5:00/km, '
                                                            '2m walk), 5m walk')
    window.wait("label", "36:00, 14 segments")
    window.usable("text", "Label", root=window.find("list item", "Step 2.1"))

    def fits():
        frame = editor.get_extents(Atspi.CoordType.SCREEN)
        pane = text.get_extents(Atspi.CoordType.SCREEN)
        return controls_outside(window, editor) == [] and pane.width >= frame.width * 0.8

    wait_until(fits, 5, "every row's fields inside 360 pixels and the text as wide as the rows")
    # A question over the narrow editor fits too.
    window.press("push button", "Cancel", root=editor)
    question = window.wait("dialog", re.compile(r".*"))
    window.usable("push button", response("Discard"), root=question)
    assert controls_outside(window, question) == []
    window.press("push button", response("Discard"), root=question)
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the editor to close")
    window.menu("Preferences")
    preferences = window.wait("frame", "Preferences")
    narrow(window, preferences, "Preferences")
    window.usable("spin button", "Volume in percent")
    wait_until(lambda: controls_outside(window, preferences) == [], 5, "Preferences inside 360 pixels")


@root_required
@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_a_programs_page_fits_a_360_pixel_window_with_and_without_a_watch(tmp_path, activatable_daemon):
    """Couch to 5K's page broke its days' titles letter by letter ("D-a-y 2") beside Make Next and Start at 360 px; with
    a watch mounted, each day's Send to Watch kept the window from getting narrower than 520."""
    with watch_window(tmp_path) as (window, image, mount_point):
        window.tab("Plans")
        window.press("push button", "Couch to 5K")
        week = window.wait("list", "Week 1")
        page = window.wait("panel", "Couch to 5K")

        def fits():
            titles = window.all("label", re.compile(r"Day \d"), root=week)
            extents = [title.get_extents(Atspi.CoordType.SCREEN) for title in titles]
            # A title broken between its letters is a column: taller than wide.
            return (controls_outside(window, window.frame, page) == [] and len(extents) == 3
                    and all(0 < one.height < one.width for one in extents))

        narrow(window, window.frame, "Interval Timer")
        wait_until(fits, 5, "the program's page inside 360 pixels, each day's title on one line")
        in_window_namespace(window, "mount", "-o", "loop", str(image), str(mount_point))
        window.usable("push button", "Send to Watch", root=week)
        narrow(window, window.frame, "Interval Timer")
        wait_until(fits, 5, "the page inside 360 pixels with a watch mounted")

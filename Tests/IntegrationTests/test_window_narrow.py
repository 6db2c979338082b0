"""The window at 360 × 640, a phone's screen or a tiled half (docs/window.md), in English, German, French and Spanish:
the workout page, every page, a plan's page, the editor with steps the person ends, a question and Preferences, and a
program's page with and without a watch mounted, every control and label inside the window, and the one-line field
wide enough to type in (window_harness.py has the window's harness)."""
import gettext
import re
import shutil

import pytest

from bluez import FITNESS_MACHINE_TREADMILL, bluez  # noqa: F401
from conftest import LOCALE_DIR, ctl, desktop_required, has_locale, in_language, wait_until
from window_harness import (COUNTDOWN, Atspi, Window, accessibility_bus, daemon_config,  # noqa: F401
                            daemon_environment, gi, in_window_namespace, narrow, response, root_required,
                            watch_window, window)

LOCALES = ["C.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8"]

pytestmark = [desktop_required(), pytest.mark.skipif(shutil.which("xdotool") is None,
                                                    reason="xdotool is not installed (scripts/setup-deps)")]


@pytest.mark.parametrize("locale", LOCALES)
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


#: What a person reads or uses: a control, or a label's words (a label past the edge is cut off, as "until Done" was).
LAID_OUT = ("push button", "text", "combo box", "check box", "spin button", "toggle button", "entry", "label")


def cut_off(window, frame, root=None):
    """Each control or label shown in `frame` (or in its part `root`) that reaches past the frame's left or right edge.

    GTK 4.8 keeps a hidden widget's last extents, without a state that says it is hidden; so what libadwaita hides
    because it does not fit is left out: the header's view switcher (the bottom bar's takes its place at this width;
    libadwaita fits its tabs itself), and a squeezer's child wider than the squeezer (a question's buttons side by
    side, when they are stacked instead)."""
    box = frame.get_extents(Atspi.CoordType.SCREEN)
    outside = []

    def walk(node, depth):
        try:
            role = node.get_role_name()
            if role == "page tab list" or depth > 60:
                return
            if role in LAID_OUT:
                extents = node.get_extents(Atspi.CoordType.SCREEN)
                if extents.width > 0 and (extents.x < box.x or extents.x + extents.width > box.x + box.width):
                    outside.append((role, node.get_name(), extents.x - box.x, extents.width))
            children = [node.get_child_at_index(index) for index in range(node.get_child_count())]
            if role == "filler" and node.get_name() == "AdwSqueezer":
                room = node.get_extents(Atspi.CoordType.SCREEN)
                children = [child for child in children if child is not None
                            and child.get_extents(Atspi.CoordType.SCREEN).width <= room.width]
        except gi.repository.GLib.Error:
            return  # gone meanwhile
        for child in children:
            if child is not None:
                walk(child, depth + 1)

    walk(root or frame, 0)
    return outside


def fits(window, frame, what, root=None):
    """Waits until nothing in `frame` is cut off; the failure lists what still is."""
    seen = []

    def inside():
        seen[:] = cut_off(window, frame, root)
        return not seen

    try:
        wait_until(inside, 5, f"{what} inside 360 pixels")
    except AssertionError as failure:
        raise AssertionError(f"{failure}: cut off (role, name, x in the frame, width): {seen}") from None


@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_the_editor_with_open_steps_and_preferences_fit_a_phone(tmp_path, activatable_daemon, bluez,
                                                                          locale):
    """At 360 px the editor with open steps was 400 px wide in English and 525 in German (its name field, Add Repeat
    and "until Done" cut off), German Preferences 370, and the German one-line field about 75 px wide. Preferences
    list a strap and a treadmill among their sensors (bluez.py's stand-in of BlueZ)."""
    if locale != "C.UTF-8" and not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    words = gettext.translation("intervald", LOCALE_DIR, [locale[:2]], fallback=True).gettext
    bluez.add_adapter()
    bluez.add_heart_rate_strap("Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56", battery=85)
    bluez.add_device("Horizon 7.0AT 9F3E", "F1:E2:D3:C4:B5:A6", [FITNESS_MACHINE_TREADMILL])
    window = Window(tmp_path, env={**in_language(locale), "DBUS_SYSTEM_BUS_ADDRESS": bluez.address})
    try:
        narrow(window, window.frame, words("Interval Timer"))
        for page in ("Workout", "Plans", "History", "Calculator"):
            window.tab(words(page))
            fits(window, window.frame, f"the {page} page")
        window.tab(words("Plans"))
        field = window.usable("text", words("One-line plan")).get_extents(Atspi.CoordType.SCREEN)
        assert field.width >= window.frame.get_extents(Atspi.CoordType.SCREEN).width // 2, field.width

        window.press("push button", "Tabata")
        window.usable("push button", words("Start Plan"))
        fits(window, window.frame, "Tabata's page")
        window.press("push button", words("Back"))

        window.press("push button", words("New Plan"))
        editor = window.wait("frame", words("Plan Editor"))
        narrow(window, editor, words("Plan Editor"))
        text = window.usable("text", words("Plan as text"))
        assert text.get_editable_text_iface().set_text_contents(
            'name "Hill repeats after the long warm-up"\nopen warmup "Until the legs are warm"\n'
            '6x(0.4km run "Uphill", 90s walk)\n0.8km run @ 5:00/km\nopen cooldown')
        window.wait("list item", re.compile(r".*2\.1.*"), root=editor)
        fits(window, editor, "the editor with open steps")
        # The text under the rows, as wide as they are (it was a third of the width).
        pane = text.get_extents(Atspi.CoordType.SCREEN)
        assert pane.width >= editor.get_extents(Atspi.CoordType.SCREEN).width * 0.8, pane.width
        window.press("push button", words("Cancel"), root=editor)
        question = window.wait("dialog", re.compile(r".*"))
        window.usable("push button", response(words("Discard")), root=question)
        fits(window, question, "the question")
        window.press("push button", response(words("Discard")), root=question)
        wait_until(lambda: window.app.get_child_count() == 1, 5, "the editor to close")

        window.menu(words("Preferences"))
        preferences = window.wait("frame", words("Preferences"))
        narrow(window, preferences, words("Preferences"))
        window.usable("spin button", words("Volume in percent"))
        window.wait("check box", "Horizon 7.0AT 9F3E", root=preferences)
        window.usable("spin button", words("Top speed of a treadmill, in km/h"))
        fits(window, preferences, "Preferences")
    finally:
        window.close()


@root_required
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
            return (cut_off(window, window.frame, page) == [] and len(extents) == 3
                    and all(0 < one.height < one.width for one in extents))

        narrow(window, window.frame, "Interval Timer")
        wait_until(fits, 5, "the program's page inside 360 pixels, each day's title on one line")
        in_window_namespace(window, "mount", "-o", "loop", str(image), str(mount_point))
        window.usable("push button", "Send to Watch", root=week)
        narrow(window, window.frame, "Interval Timer")
        wait_until(fits, 5, "the page inside 360 pixels with a watch mounted")

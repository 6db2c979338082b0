"""The window at a phone's size, 360 × 640 (docs/window.md), in each of its four languages: every page, the plan
editor with steps the person ends, Preferences and a question fit inside it, and the one-line field stays wide enough
to type in. Driven through AT-SPI against the real daemon on the test desktop (test_window.py has the harness)."""
import gettext
import re
import shutil

import pytest

from conftest import LOCALE_DIR, ctl, has_locale, in_language, wait_until
from test_window import Atspi, Window, accessibility_bus, gi, narrow, response  # noqa: F401

pytestmark = pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")

LOCALES = ["C.UTF-8", "de_DE.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8"]

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
def test_every_page_the_editor_with_open_steps_and_preferences_fit_a_phone(tmp_path, activatable_daemon, locale):
    """At 360 px the editor with open steps was 400 px wide in English and 525 in German (its name field, Add Repeat
    and "until Done" cut off), German Preferences 370, and the German one-line field about 75 px wide."""
    if locale != "C.UTF-8" and not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    words = gettext.translation("intervald", LOCALE_DIR, [locale[:2]], fallback=True).gettext
    window = Window(tmp_path, env=in_language(locale))
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
        fits(window, preferences, "Preferences")
    finally:
        window.close()


def test_every_row_under_a_plans_steps_is_named(tmp_path, activatable_daemon):
    """A repeat's row under Steps was an unnamed list item: a screen reader said nothing where "8 × (Work 0:20, …)"
    folds out."""
    window = Window(tmp_path)
    try:
        window.open_plan("Tabata")
        steps = window.wait("list", "Steps")
        rows = window.all("list item", root=steps)
        assert rows, "no rows under Steps"
        unnamed = [index for index, row in enumerate(rows) if not (row.get_name() or "").strip()]
        assert not unnamed, f"rows {unnamed} of {[row.get_name() for row in rows]} have no name"
    finally:
        window.close()
    ctl("stop")

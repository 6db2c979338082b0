"""The plan editor and the plan library's files (docs/window.md, "Making a plan"), driven through AT-SPI as a person
with a screen reader would, and by the keyboard alone, against the real daemon on the test desktop (window_harness.py
has the window's harness).

The file runs after test_plasma.py on purpose (its name sorts after it): plasma.py's lookup clears libatspi's cache
of the whole desktop, and that walk through the closed windows this file leaves behind crashed the test process
(SIGSEGV in libatspi, under plasma.py's `_application`) in 2 of 3 runs of the whole step that had this file before
test_plasma.py."""
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from conftest import BusMonitor, ctl, has_locale, in_language, wait_until
from window_harness import (Atspi, Window, accessibility_bus, daemon_environment,  # noqa: F401
                            focus_window_on_screen, key, response, text_of, timer_property, window,
                            window_environment, xdotool_required)


def own_plans(tmp_path):
    return Path(window_environment(tmp_path)["XDG_CONFIG_HOME"]) / "intervald" / "plans"


def row(window, name):
    return window.usable("list item", name)


def fill(window, name, duration=None, kind=None, label=None, repeat=None):
    """Types into the fields of the editor's row `name` ("Step 2.1", "Repeat 2")."""
    item = row(window, name)
    for field, value in (("Duration", duration), ("Kind", kind), ("Label", label), ("Repeat", repeat)):
        if value is not None:
            entry = window.usable("text", field, root=item)
            assert entry.get_editable_text_iface().set_text_contents(value), field


def editor_closed(window):
    """Waits for the editor (and any question over it) to close, asking only the application's window count: GTK 4.8
    crashes when asked about a window it is destroying."""
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the editor to close")


def editor_text(window):
    return text_of(window.usable("text", "Plan as text"))


def editor_total(window):
    totals = window.find("list", "Totals", root=window.find("frame", "Plan Editor"))
    total = totals and window.find("list item", "Total", root=totals)
    labels = total and [label.get_name() for label in window.all("label", root=total)]
    return labels[1] if labels and len(labels) > 1 else None


def test_hill_repeats_built_from_rows_alone_is_saved_listed_and_started_with_uphill_second(window, tmp_path):
    """The issue's new user: "Hill repeats" from rows, saved, in the list and `intervalctl plans`, started; the text
    the rows wrote is what `plan show` reads as the 36:00 the editor showed."""
    environment = window_environment(tmp_path)
    window.tab("Plans")
    window.press("push button", "New Plan")
    window.type("Name", "Hill repeats")
    fill(window, "Step 1", "10m", "walk", "Warm-up")
    window.press("push button", "Add Repeat")
    fill(window, "Repeat 2", repeat="6")
    fill(window, "Step 2.1", "90s", "run", "Uphill")
    fill(window, "Step 2.2", "2m", "walk", "Recover")
    window.press("push button", "Add Step")
    fill(window, "Step 3", "5m", "walk", "Cool-down")
    written = ('name "Hill repeats"\n\n10m walk "Warm-up"\n6x {\n  90s run "Uphill"\n  2m walk "Recover"\n}\n'
               '5m walk "Cool-down"\n')
    wait_until(lambda: editor_text(window) == written, 5, "the text the rows write")
    wait_until(lambda: editor_total(window) == "36:00", 5, "the editor's total")
    window.wait("label", "36:00, 14 segments")

    window.press("push button", "Save")
    saved = own_plans(tmp_path) / "hill-repeats.plan"
    wait_until(saved.exists, 5, "the plan's file")
    assert saved.read_text() == written
    editor_closed(window)
    wait_until(lambda: len(window.all("label", "Hill repeats")) >= 2, 5, "its page and its row")
    assert "hill-repeats" in ctl("plans", env=environment).stdout
    shown = ctl("plan", "show", "hill-repeats", env=environment)
    assert shown.returncode == 0 and "Hill repeats — 36:00, 14 segments" in shown.stdout, shown.stdout

    window.press("push button", "Start Plan")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the workout")
    assert timer_property("SegmentLabel") == '"Warm-up"'
    assert ctl("skip").returncode == 0
    wait_until(lambda: timer_property("SegmentIndex") == "1", 5, "the second segment")
    assert timer_property("SegmentLabel") == '"Uphill"'
    ctl("stop")


def test_tabata_duplicated_and_changed_to_six_rounds_starts_six_rounds_and_keeps_its_comments(window, tmp_path):
    own = own_plans(tmp_path)
    window.open_plan("Tabata")
    window.menu("Duplicate", "Plan Menu")
    copy = own / "tabata-copy.plan"
    wait_until(copy.exists, 5, "the copy's file")
    wait_until(lambda: len(window.all("label", "Tabata (copy)")) >= 2, 5, "the copy's page")
    before = copy.read_text()
    window.menu("Edit…", "Plan Menu")
    fill(window, "Repeat 2", repeat="6")
    wait_until(lambda: "\n6x {\n" in editor_text(window), 5, "the text to follow the row")
    window.wait("label", "11:00, 14 segments")
    window.press("push button", "Save")
    editor_closed(window)
    wait_until(lambda: "6x {" in copy.read_text(), 5, "the file to be saved")
    comments = [line.strip() for line in before.splitlines() if line.strip().startswith("#")]
    assert comments and all(comment in copy.read_text() for comment in comments), copy.read_text()
    window.wait("label", "11:00, 14 segments")  # the plan's page, refilled from its file
    window.press("push button", "Start Plan")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the workout")
    assert timer_property("SegmentCount") == "14"  # warm-up, 6 × (work, rest), cool-down
    ctl("stop")


def test_a_hand_written_plan_edited_in_rows_keeps_its_comments_and_a_problem_is_shown_on_its_row(window, tmp_path):
    own = own_plans(tmp_path)
    own.mkdir(parents=True, exist_ok=True)
    plan = own / "club.plan"
    plan.write_text('# From the club\'s sheet\nname "Club"\n\n# easy\n10m walk  # flat\nfor 3km {\n'
                    '  4m run @ 6:00/km\n  # then\n  1m walk @ 10:00/km\n}\n')
    window.open_plan("Club")
    window.menu("Edit…", "Plan Menu")
    fill(window, "Step 1", "12m")
    # A step with no pace inside `for 3km`: its problem, said on the repeat's row, and Save refused.
    fill(window, "Step 2.2", label="Walk back")
    entry = window.usable("text", "Target", root=row(window, "Step 2.2"))
    assert entry.get_editable_text_iface().set_text_contents("")
    window.wait("label", "Repeat 2: 'for' with a distance needs a pace ('@ 5:30/km') on every step inside")
    wait_until(lambda: not window.find("push button", "Save").get_state_set().contains(Atspi.StateType.SENSITIVE),
               5, "Save to be disabled")
    assert entry.get_editable_text_iface().set_text_contents("10:00/km")
    window.usable("push button", "Save")
    window.press("push button", "Save")
    editor_closed(window)
    wait_until(lambda: "12m walk" in plan.read_text(), 5, "the file saved")
    assert plan.read_text() == ('# From the club\'s sheet\nname "Club"\n\n# easy\n12m walk  # flat\nfor 3km {\n'
                                '  4m run @ 6:00/km\n  # then\n  1m walk "Walk back" @ 10:00/km\n}\n')


def test_the_text_beside_the_rows_fills_them_and_a_mistyped_text_is_kept_with_its_diagnostic(window, tmp_path):
    window.tab("Plans")
    window.press("push button", "New Plan")
    text = window.usable("text", "Plan as text")
    assert text.get_editable_text_iface().set_text_contents('name "Typed"\n3x(1:30 run "Hard", 30s rest)\n')
    wait_until(lambda: window.find("list item", "Step 1.2"), 5, "the rows to follow the text")
    duration = window.usable("text", "Duration", root=row(window, "Step 1.1"))
    assert text_of(duration) == "1:30"
    window.wait("label", "6:00, 6 segments")
    mistyped = 'name "Typed"\n3x(1:30 run "Hard", 30s rest @)\n'
    assert text.get_editable_text_iface().set_text_contents(mistyped)
    window.wait("label", "The text has a problem: the rows show the plan as it was before it.")
    window.wait("label", re.compile(r"Plan:2:31: error: expected a pace after '@'.*", re.S))
    assert text_of(duration) == "1:30", "the rows keep the plan as it last parsed"
    wait_until(lambda: window.find("push button", "Save") is not None and not window.find(
        "push button", "Save").get_state_set().contains(Atspi.StateType.SENSITIVE), 5, "Save to be disabled")
    assert text_of(text) == mistyped
    # Closing asks before the text is lost; Keep Editing keeps it.
    window.press("push button", "Cancel")
    window.press("push button", response("Keep Editing"))
    wait_until(lambda: window.app.get_child_count() == 2, 5, "the question to close")  # the window and the editor
    assert text_of(window.usable("text", "Plan as text")) == mistyped


@xdotool_required
def test_a_plan_made_by_the_keyboard_alone(window, tmp_path):
    window.tab("Plans")
    window.usable("push button", "New Plan")
    focus_window_on_screen(window)
    key("ctrl+n")
    name = window.usable("text", "Name")  # which has the focus: what is typed goes into it
    focus_window_on_screen(window)
    subprocess.run(["xdotool", "type", "--delay", "20", "Keys"], check=True, timeout=20)
    wait_until(lambda: text_of(name) == "Keys", 5, "the name typed")
    key("ctrl+Return")  # a step after the one being edited: none is, so at the end
    duration = window.usable("text", "Duration", root=row(window, "Step 2"))
    wait_until(lambda: duration.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the new step's duration")
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "45s"], check=True, timeout=20)
    key("Tab")
    kind = window.usable("text", "Kind", root=row(window, "Step 2"))
    wait_until(lambda: kind.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the kind")
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "walk"], check=True, timeout=20)
    key("alt+Up")
    wait_until(lambda: "Keys" in editor_text(window) and editor_text(window).endswith("\n45s walk\n30s run\n"), 5,
               "the step moved up")
    key("ctrl+s")
    editor_closed(window)
    saved = own_plans(tmp_path) / "keys.plan"
    wait_until(saved.exists, 5, "the plan saved")
    assert saved.read_text() == 'name "Keys"\n\n45s walk\n30s run\n'


def choose(window, title, path, button):
    """Types the path of `path` into the file chooser titled `title` and presses `button`: into its location field
    (which Ctrl+L shows) to open a file, into its Name field to save one."""
    def on_screen():
        return subprocess.run(["xdotool", "search", "--name", f"^{title}$"], capture_output=True,
                              text=True).stdout.split()

    dialog = window.wait("filler", title)  # GTK 4.8 gives a file chooser dialog that role
    field = window.find("text", "Name:", root=dialog)
    if field is None:
        subprocess.run(["xdotool", "windowfocus", "--sync", wait_until(on_screen, 10, title)[-1]], check=True,
                       timeout=10)
        key("ctrl+l")
    entry = window.usable("text", "Name:" if field else "GtkFileChooserEntry", root=dialog,
                          state=Atspi.StateType.EDITABLE)
    assert entry.get_editable_text_iface().set_text_contents(str(path))
    window.press("push button", response(button), root=dialog)
    # Gone from the screen, so gone: GTK 4.8 crashes when asked about a window it is destroying.
    wait_until(lambda: not on_screen(), 10, f"the file chooser {title!r} to close")


@xdotool_required
def test_a_file_that_is_not_a_plan_is_not_imported_and_its_diagnostic_is_shown(window, tmp_path):
    bad = tmp_path / "bad.plan"
    bad.write_text("10m walk\n6x(90s run, 2m wlak @)\n")
    window.tab("Plans")
    window.press("push button", "Import…")
    choose(window, "Import a Plan", bad, "Import")
    window.wait("label", "“bad.plan” is not a valid plan")
    problem = window.wait("label", "Problem")
    assert text_of(problem).startswith("bad.plan:2:22: error: expected a pace after '@'"), text_of(problem)
    # The message is no wider than a phone's screen, however long the plan's line: the line scrolls sideways in it (it
    # was 1080 px wide).
    dialog = window.app.get_child_at_index(window.app.get_child_count() - 1)
    assert dialog.get_extents(Atspi.CoordType.SCREEN).width <= 400, dialog.get_extents(Atspi.CoordType.SCREEN).width
    window.press("push button", response("OK"))
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the message to close")
    own = own_plans(tmp_path)
    assert not own.exists() or not any(own.iterdir())


@xdotool_required
def test_a_text_file_named_fit_is_said_not_to_be_a_fit_file(window, tmp_path):
    """The window imported it as a plan ("unknown directive 'hello'") where `intervalctl plan import` says what it is."""
    named = tmp_path / "x.fit"
    named.write_text("hello\n")
    window.tab("Plans")
    window.press("push button", "Import…")
    choose(window, "Import a Plan", named, "Import")
    window.wait("label", "“x.fit” is not a workout intervald can import")
    window.wait("label", re.compile(r"not a FIT file.*"))
    window.press("push button", response("OK"))
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the message to close")


@xdotool_required
def test_a_plan_imported_with_its_comments_and_exported_again(window, tmp_path):
    good = tmp_path / "imported.plan"
    good.write_text('name "Imported"\n# kept\n5x(1m run, 1m walk)\n')
    own = own_plans(tmp_path)
    window.tab("Plans")
    window.press("push button", "Import…")
    choose(window, "Import a Plan", good, "Import")
    wait_until(lambda: (own / "imported.plan").exists(), 10, "the imported plan's file")
    assert (own / "imported.plan").read_text() == good.read_text()
    wait_until(lambda: len(window.all("label", "Imported")) >= 2, 5, "its page")
    assert "imported" in ctl("plans", env=window_environment(tmp_path)).stdout

    exported = tmp_path / "out" / "imported.plan"
    exported.parent.mkdir()
    window.menu("Export…", "Plan Menu")
    choose(window, "Export the Plan", exported, "Export")
    wait_until(exported.exists, 10, "the exported file")
    assert exported.read_text() == good.read_text()


@pytest.mark.parametrize("locale, words", [
    ("de_DE.UTF-8", {"plans": "Pläne", "new": "Neuer Plan", "name": "Name", "step": "Schritt {}",
                     "repeat": "Wiederholung {}", "duration": "Dauer", "kind": "Art", "label": "Bezeichnung",
                     "count": "Wiederholen", "add_repeat": "Wiederholung hinzufügen", "save": "Speichern",
                     "length": "5:00, 9 Abschnitte"}),
    ("fr_FR.UTF-8", {"plans": "Plans", "new": "Nouveau plan", "name": "Nom", "step": "Étape {}",
                     "repeat": "Répétition {}", "duration": "Durée", "kind": "Type", "label": "Libellé",
                     "count": "Répéter", "add_repeat": "Ajouter une répétition", "save": "Enregistrer",
                     "length": "5:00, 9 segments"}),
    ("es_ES.UTF-8", {"plans": "Planes", "new": "Plan nuevo", "name": "Nombre", "step": "Paso {}",
                     "repeat": "Repetición {}", "duration": "Duración", "kind": "Tipo", "label": "Etiqueta",
                     "count": "Repetir", "add_repeat": "Añadir repetición", "save": "Guardar",
                     "length": "5:00, 9 segmentos"}),
])
def test_the_editor_speaks_german_french_and_spanish(tmp_path, locale, words):
    """A plan made from rows in each language: the editor's buttons, rows and fields by their translated names."""
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        window.tab(words["plans"])
        window.press("push button", words["new"])
        window.type(words["name"], "Sprints")
        item = window.usable("list item", words["step"].format(1))
        for field, value in ((words["duration"], "1m"), (words["kind"], "walk"), (words["label"], "Los")):
            assert window.usable("text", field, root=item).get_editable_text_iface().set_text_contents(value)
        window.press("push button", words["add_repeat"])
        repeat = window.usable("list item", words["repeat"].format(2))
        assert window.usable("text", words["count"], root=repeat).get_editable_text_iface().set_text_contents("4")
        window.wait("label", words["length"])  # 1m + 4 × (30s run, 30s walk)
        window.press("push button", words["save"])
        editor_closed(window)
        saved = own_plans(tmp_path) / "sprints.plan"
        wait_until(saved.exists, 5, "the plan saved")
        assert saved.read_text() == 'name "Sprints"\n\n1m walk "Los"\n4x {\n  30s run\n  30s walk\n}\n'
    finally:
        window.close()


def test_saving_a_plan_another_program_changed_meanwhile_asks_which_to_keep(window, tmp_path):
    own = own_plans(tmp_path)
    own.mkdir(parents=True, exist_ok=True)
    plan = own / "easy.plan"
    plan.write_text('name "Easy"\n20m walk\n')
    window.open_plan("Easy")
    window.menu("Edit…", "Plan Menu")
    fill(window, "Step 1", "25m")
    plan.write_text('name "Easy"\n30m walk  # from my phone\n')
    window.press("push button", "Save")
    window.wait("label", "The plan was changed by another program")
    window.press("push button", response("Keep the Other"))
    editor_closed(window)
    assert plan.read_text() == 'name "Easy"\n30m walk  # from my phone\n'

    window.wait("label", "30:00, 1 segment")  # the page follows the file
    window.menu("Edit…", "Plan Menu")
    fill(window, "Step 1", "35m")
    plan.write_text('name "Easy"\n40m walk\n')
    window.press("push button", "Save")
    window.press("push button", response("Keep Mine"))
    editor_closed(window)
    wait_until(lambda: "35m" in plan.read_text(), 5, "mine to be saved")
    assert plan.read_text() == 'name "Easy"\n\n35m walk  # from my phone\n'


SHORTCUTS_UI = Path(__file__).resolve().parents[2] / "Sources" / "interval-timer" / "ui" / "shortcuts.ui"


def shortcuts_listed():
    """Each key the Keyboard Shortcuts window lists (ui/shortcuts.ui): its accelerator and its title."""
    listed = {}
    for shortcut in ElementTree.parse(SHORTCUTS_UI).iter("object"):
        if shortcut.get("class") == "GtkShortcutsShortcut":
            properties = {p.get("name"): p.text for p in shortcut.iter("property")}
            listed[properties["accelerator"]] = properties["title"]
    return listed


@pytest.fixture
def window_manager():
    """openbox on the test screen: full screen is the window manager's to grant."""
    if shutil.which("openbox") is None:
        pytest.skip("openbox is not installed (scripts/setup-deps)")
    manager = subprocess.Popen(["openbox", "--sm-disable"], env=os.environ, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_until(lambda: "_NET_SUPPORTING_WM_CHECK(WINDOW)" in subprocess.run(
        ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], capture_output=True, text=True).stdout, 10, "openbox")
    yield
    manager.terminate()
    manager.wait(timeout=10)


@xdotool_required
def test_every_key_the_shortcuts_window_lists_does_what_it_says(window_manager, window, tmp_path):
    """Ctrl+? did nothing though the Keyboard Shortcuts window listed it: each key it lists is pressed here through
    the X server, and a key listed but not pressed here fails the test."""
    pressed = []

    def press(accelerator, keys):
        pressed.append(accelerator)
        for name in keys.split():
            key(name)

    signals = BusMonitor("type='signal',path='/org/intervald/Timer1',member='SegmentStarted'")
    try:
        assert ctl("start", "-e", "3x(30s run, 30s walk)").returncode == 0
        wait_until(window.countdown, 10, "the countdown")
        focus_window_on_screen(window)
        press("space", "space")
        wait_until(lambda: timer_property("State") == '"paused"', 5, "Space to pause")
        window.usable("push button", "Resume")
        key("space")
        wait_until(lambda: timer_property("State") == '"running"', 5, "Space to resume")
        press("Right", "Right")
        wait_until(lambda: timer_property("SegmentIndex") == "1", 5, "Right to skip")
        signals.wait_for("SegmentStarted", count=2)
        press("Left", "Left")
        # The same segment starts again, with its cue.
        again = signals.wait_for("SegmentStarted", count=3)[2]
        assert again["payload"]["data"][0] == 1
        ctl("stop")
    finally:
        signals.close()

    def full_screen():
        """Whether the window manager shows the window full screen (GTK's AT-SPI extents keep its shadow out)."""
        windows = subprocess.run(["xdotool", "search", "--pid", str(window.pid), "--name", "^Interval Timer$"],
                                 capture_output=True, text=True).stdout.split()
        return any("_NET_WM_STATE_FULLSCREEN" in subprocess.run(["xprop", "-id", x_window, "_NET_WM_STATE"],
                                                                capture_output=True, text=True).stdout
                   for x_window in windows)

    assert not full_screen()
    press("F11", "F11")
    wait_until(full_screen, 5, "full screen")
    key("F11")
    wait_until(lambda: not full_screen(), 5, "a window again")

    press("<Control>comma", "ctrl+comma")
    preferences = window.wait("frame", "Preferences")
    window.press("push button", "Close", root=preferences)
    wait_until(lambda: window.app.get_child_count() == 1, 5, "Preferences to close")
    focus_window_on_screen(window)
    press("<Control>question", "ctrl+question")
    window.wait("label", "Skip to the next interval")
    key("Escape")
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the shortcuts window to close")

    focus_window_on_screen(window)
    press("<Control>n", "ctrl+n")
    name = window.usable("text", "Name")
    focus_window_on_screen(window)
    subprocess.run(["xdotool", "type", "--delay", "20", "Keys"], check=True, timeout=20)
    wait_until(lambda: text_of(name) == "Keys", 5, "the name typed")
    press("<Control>Return", "ctrl+Return")
    wait_until(lambda: editor_text(window).endswith("\n30s run\n30s run\n"), 5, "a step added")
    duration = window.usable("text", "Duration", root=row(window, "Step 2"))
    wait_until(lambda: duration.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the new step's duration")
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "45s"], check=True, timeout=20)
    wait_until(lambda: editor_text(window).endswith("\n30s run\n45s run\n"), 5, "the duration typed")
    press("<Alt>Up <Alt>Down", "alt+Up")
    wait_until(lambda: editor_text(window).endswith("\n45s run\n30s run\n"), 5, "the step moved up")
    key("alt+Down")
    wait_until(lambda: editor_text(window).endswith("\n30s run\n45s run\n"), 5, "the step moved down")
    press("<Control><Shift>d", "ctrl+shift+d")
    wait_until(lambda: editor_text(window).endswith("\n30s run\n45s run\n45s run\n"), 5, "the step duplicated")
    press("<Alt>Delete", "alt+Delete")
    wait_until(lambda: editor_text(window).endswith("\n30s run\n45s run\n"), 5, "the step removed")
    press("<Control><Shift>Return", "ctrl+shift+Return")
    wait_until(lambda: re.search(r"\n\d+x? *[({]", editor_text(window)), 5, "a repeat added")
    press("<Control>s", "ctrl+s")
    editor_closed(window)
    wait_until((own_plans(tmp_path) / "keys.plan").exists, 5, "the plan saved")

    # The saved plan's page shows (its list, refilled meanwhile, lays out its rows only when it shows again).
    window.usable("push button", "Back")
    focus_window_on_screen(window)
    press("<Alt>Left", "alt+Left")
    # (The header bar's Back, which GTK leaves out of the tree while it is hidden, shows only on a plan's page.)
    wait_until(lambda: not window.find("push button", "Back"), 5, "Alt+Left back to the list")

    focus_window_on_screen(window)
    press("<Control>q <Control>w", "ctrl+w")
    wait_until(lambda: window.process.poll() is not None, 10, "the window to close and the application to end")
    again = Window(tmp_path)
    try:
        focus_window_on_screen(again)
        key("ctrl+q")
        wait_until(lambda: again.process.poll() is not None, 10, "Ctrl+Q to close the window opened again")
    finally:
        again.close()
    assert sorted(pressed) == sorted(shortcuts_listed()), "every key listed is pressed here"

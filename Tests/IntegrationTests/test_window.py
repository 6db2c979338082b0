"""The Interval Timer window (docs/reference.md §10), driven as a person with a screen reader would drive it: through
AT-SPI, the accessibility bus GTK reports to, pressing its buttons by their accessible names and reading its labels;
against the real daemon, D-Bus-activated on the test's session bus, under Xvfb.
"""
import contextlib
import gettext
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from audio import RATE, THRESHOLD, PrivatePulse, loud_span, pulseaudio_missing, tone_levels, write_tone
from conftest import (BIN, LOCALE_DIR, REPO, SERVICE, BusMonitor, attach_if_failed, busctl, ctl, desktop_required, has_locale,
                      in_language, install_desktop_files, name_owner_pid, press, wait_until)

gi = pytest.importorskip("gi", reason="needs python3-gi and gir1.2-atspi-2.0 (scripts/setup-deps)")
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

pytestmark = desktop_required()

COUNTDOWN = re.compile(r"^\d+:\d\d$")


@pytest.fixture(autouse=True)
def accessibility_bus():
    """The accessibility bus is D-Bus-activated on the session bus, as on a desktop; the test bus has only its own
    service directory."""
    service_dir = os.environ.get("INTERVALD_TEST_DBUS_SERVICE_DIR")
    if not service_dir:
        pytest.skip("the test bus has no private service directory")
    source = Path("/usr/share/dbus-1/services/org.a11y.Bus.service")
    if not source.exists():
        pytest.skip("at-spi2-core is not installed (scripts/setup-deps)")
    shutil.copy(source, Path(service_dir) / source.name)
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")


WINDOW_SERVICE = "org.intervald.IntervalTimer"


def window_environment(tmp_path):
    """The window's environment: the bundled plans where an install puts them, its own state and settings. The
    system's data directory comes after, as on a desktop, for the icon theme (without it every icon but GTK's own was
    the missing-image one)."""
    share = install_desktop_files(tmp_path / "share")
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_DIRS": f"{share}:/usr/share",
            "XDG_CONFIG_HOME": str(tmp_path / "config")}


class Window:
    """The window's process and its accessible tree: started here, or (with `pid`) D-Bus-activated by the desktop."""

    def __init__(self, tmp_path, env=None, pid=None, wrapper=()):
        self.process = None
        language = ((env or {}).get("LANGUAGE") or (env or {}).get("LC_ALL") or "")[:2]
        self.main_menu = {"de": "Hauptmenü", "fr": "Menu principal", "es": "Menú principal"}.get(language, "Main Menu")
        if pid is None:
            self.log = tmp_path / "interval-timer.log"
            # A wrapper that execs the window (unshare) keeps its pid: the accessibility bus names the same process.
            self.process = subprocess.Popen([*wrapper, str(BIN / "interval-timer")],
                                            env={**os.environ, **window_environment(tmp_path), **(env or {})},
                                            stdout=self.log.open("w"), stderr=subprocess.STDOUT)
            pid = self.process.pid
        self.pid = pid
        self.app = wait_until(self._application, 30, "the window's application on the accessibility bus")
        self.frame = wait_until(lambda: self.find(role="frame"), 20, "the window")

    def _application(self):
        if self.process and self.process.poll() is not None:
            raise AssertionError(f"the window exited ({self.process.returncode}) before it showed: "
                                 f"{self.log.read_text(errors='replace')}")
        desktop = Atspi.get_desktop(0)
        for index in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(index)
            try:
                if app is not None and app.get_process_id() == self.pid:
                    return app
            except gi.repository.GLib.Error:
                continue
        return None

    def close(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=10)
            wait_until_no_window_on_the_bus()
        else:
            end_activated_window(self.pid)

    def matches(self, role=None, name=None, root=None):
        """Each accessible below `root` (the application) with `role` and `name` (a string or a regex), in depth-first
        order, as the walk reaches it: a caller that needs only the first stops the walk there (each node read is a
        round trip to the window)."""
        def walk(node, depth):
            if node is None or depth > 60:
                return
            try:
                matches = role is None or node.get_role_name() == role
                if matches and name is not None:
                    text = node.get_name() or ""
                    matches = name.fullmatch(text) if hasattr(name, "fullmatch") else text == name
            except gi.repository.GLib.Error:
                return
            if matches:
                yield node
            try:
                count = node.get_child_count()
            except gi.repository.GLib.Error:
                return
            for index in range(count):
                try:
                    child = node.get_child_at_index(index)
                except gi.repository.GLib.Error:
                    continue  # gone meanwhile (a window that closed): its siblings are still there
                yield from walk(child, depth + 1)

        return walk(root or self.app, 0)

    def all(self, role=None, name=None, root=None):
        """Every accessible below `root` with `role` and `name` (see `matches`)."""
        return list(self.matches(role, name, root))

    def find(self, role=None, name=None, root=None):
        return next(self.matches(role, name, root), None)

    def wait(self, role, name, timeout=10, root=None):
        return wait_until(lambda: self.find(role, name, root), timeout, f"a {role} named {name!r}")

    def usable(self, role, name, timeout=10, state=Atspi.StateType.SENSITIVE, root=None):
        """The control, once GTK has laid it out and it is in `state` (sensitive, editable…).

        GTK 4.8 reports no SHOWING state, and a widget on a page never shown yet has empty extents; GTK ignores an
        action on such a widget (an unrealized button does not activate), as a person could not press it either."""
        def ready():
            for control in self.matches(role, name, root):
                try:
                    extents = control.get_extents(Atspi.CoordType.WINDOW)
                    if extents.width > 0 and extents.height > 0 and control.get_state_set().contains(state):
                        return control
                except gi.repository.GLib.Error:
                    continue
            return None

        return wait_until(ready, timeout, f"a {role} named {name!r}, laid out and {state.value_nick}")

    def press(self, role, name, timeout=10, root=None):
        """Clicks the control as assistive technology does: its first action, once it can be pressed.

        GTK answers at once but emits the button's `clicked` 250 ms later (its keyboard activation): the caller waits
        for what the click does before the next step."""
        control = self.usable(role, name, timeout, root=root)
        assert control.get_action_iface().do_action(0), f"{role} {name!r} refused its action"
        return control

    def tab(self, name):
        """Selects a page of the view switcher by its name and waits until it is the selected one."""
        tab = self.press("page tab", name)
        wait_until(lambda: tab.get_state_set().contains(Atspi.StateType.SELECTED), 10, f"the {name} page")

    def toggle(self, name):
        """Presses a toggle button and waits until it shows pressed."""
        button = self.press("push button", name)
        wait_until(lambda: button.get_state_set().contains(Atspi.StateType.PRESSED), 10, f"{name} to be pressed")

    def countdown(self):
        labels = self.all("label", COUNTDOWN)
        return labels[0].get_name() if labels else None

    def type(self, name, text):
        """Replaces the field's text, once a person could type into it: laid out, sensitive and editable (GTK's
        AT-SPI sets the text of a locked field too)."""
        entry = self.usable("text", name)
        wait_until(lambda: entry.get_state_set().contains(Atspi.StateType.EDITABLE), 10, f"{name} to be editable")
        assert entry.get_editable_text_iface().set_text_contents(text)

    def set_number(self, name, value):
        """Sets a spin button's value as assistive technology does, which commits it as Enter would."""
        spin = self.usable("spin button", name)
        assert spin.get_value_iface().set_current_value(value), f"{name} refused {value}"

    def open_menu(self, button=None):
        """Opens the primary menu, or the menu button named `button`."""
        name = button or self.main_menu
        # The menu button is a push button around the toggle that opens the popover; only that one clicks. (The outer
        # one lists the actions of a group it holds, as a row's menu button does: row.remove, …)
        toggle = wait_until(lambda: next((b for b in self.all("push button", name) if "click" in [
            b.get_action_name(index) for index in range(b.get_n_actions())]), None), 10, f"the menu button {name!r}")
        assert toggle.do_action(0)

    def menu(self, item, button=None):
        """Chooses an item of the primary menu, or of the menu button named `button`."""
        self.open_menu(button)
        self.press("menu item", item)

    def open_plan(self, name):
        """Opens a plan's page from the Plans list and waits until it shows that plan: its title, its Start Plan and
        the header bar's Back."""
        self.tab("Plans")
        self.press("push button", name)
        self.usable("push button", "Back")
        self.usable("push button", "Start Plan")
        wait_until(lambda: len(self.all("label", name)) >= 2, 10, f"the page of {name}")  # its row and its title


@pytest.fixture
def daemon_config(tmp_path):
    """The daemon's settings file is the one the window's Preferences write."""
    path = Path(window_environment(tmp_path)["XDG_CONFIG_HOME"]) / "intervald" / "intervald.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[notifications]\nsound = false\n")
    return path


@pytest.fixture
def daemon_environment(tmp_path):
    """The activated daemon finds the bundled plans (a search result names one) where the window does."""
    return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"]}


def window_pid():
    """The process that owns the window's application ID on the bus, if one does."""
    return name_owner_pid(WINDOW_SERVICE)


def wait_until_no_window_on_the_bus():
    """Waits until no process owns the window's application ID. A window started while a dying one still owns it
    hands itself over to that one, which never answers, and exits ("Failed to register: … disconnected from message
    bus without replying"), and an activation would find the dying one."""
    wait_until(lambda: window_pid() is None, 10, "the window to leave the bus")


def end_activated_window(pid):
    """SIGTERMs the window that the desktop activated, and waits until it has left the bus."""
    os.kill(pid, 15)
    wait_until_no_window_on_the_bus()


@pytest.fixture
def activatable_window(tmp_path):
    """Makes the window D-Bus activatable on the test bus, as its installed activation file does."""
    service_dir = Path(os.environ["INTERVALD_TEST_DBUS_SERVICE_DIR"])
    environment = " ".join(f"{name}={value}" for name, value in window_environment(tmp_path).items())
    service = service_dir / f"{WINDOW_SERVICE}.service"
    service.write_text(f"[D-BUS Service]\nName={WINDOW_SERVICE}\n"
                       f"Exec=/bin/sh -c '{environment} exec {BIN / 'interval-timer'} --gapplication-service "
                       f">>{tmp_path / 'interval-timer.log'} 2>&1'\n")
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
    # What a desktop session tells the bus (dbus-update-activation-environment): where to show windows.
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
           "UpdateActivationEnvironment", "a{ss}", "1", "DISPLAY", os.environ["DISPLAY"])
    yield
    pid = window_pid()
    if pid:
        end_activated_window(pid)
    service.unlink()
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")


def opened_window(tmp_path):
    """The window the desktop opened by D-Bus activation."""
    return Window(tmp_path, pid=wait_until(window_pid, 20, "the window to be activated"))


def timer_property(name):
    """The property's value as busctl prints it after its type: '"running"', '3', '"8x(30s run, 30s walk)"'."""
    return busctl("get-property", SERVICE, "/org/intervald/Timer1", "org.intervald.Timer1",
                  name).stdout.split(maxsplit=1)[1].strip()


@pytest.fixture
def window(tmp_path, activatable_daemon):
    window = Window(tmp_path)
    yield window
    window.close()


@contextlib.contextmanager
def watch_window(tmp_path, garmin=True):
    """The window, started in a mount namespace of its own, and a test watch for it: a volume image (ext2: the kernels
    of these machines have no vfat, and the window looks at the folder, not the file system) with a GARMIN folder
    unless `garmin` is false, and where the desktop would mount it (under the home folder, which GIO's volume monitor
    shows as it shows /media and /run/media). Yields the window, the image and the mount point; mount the image with
    `in_window_namespace(window, "mount", "-o", "loop", image, mount_point)`, as udisks mounts a watch plugged in."""
    content = tmp_path / "watch-content"
    content.mkdir(parents=True)
    if garmin:
        (content / "GARMIN").mkdir()
    image = tmp_path / "watch.img"
    subprocess.run(["mkfs.ext2", "-q", "-F", "-L", "FORERUNNER", "-d", str(content), str(image), "8M"], check=True)
    home = tmp_path / "home"
    mount_point = home / "FORERUNNER"
    mount_point.mkdir(parents=True)
    window = Window(tmp_path, env={"HOME": str(home)}, wrapper=("unshare", "-m", "--propagation", "private"))
    try:
        yield window, image, mount_point
    finally:
        subprocess.run(["nsenter", "-t", str(window.pid), "-m", "--", "umount", str(mount_point)], capture_output=True)
        window.close()


def in_window_namespace(window, *command):
    return subprocess.run(["nsenter", "-t", str(window.pid), "-m", "--", *command], capture_output=True, check=True,
                          timeout=20)


root_required = pytest.mark.skipif(os.geteuid() != 0, reason="a test watch is a loop mount in a mount namespace: "
                                                              "needs root")


def response(name):
    """A button of a libadwaita dialog or toast: GTK 4.8 names it by its label twice ("Keep Going Keep Going")."""
    return re.compile(rf"{re.escape(name)}(?: {re.escape(name)})?")


def test_a_tabata_chosen_in_the_window_counts_down_and_its_pause_skip_and_stop_work(window):
    window.open_plan("Tabata")
    window.press("push button", "Start Plan")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the daemon to run the plan")
    assert timer_property("PlanName") == '"Tabata"'
    first = wait_until(window.countdown, 10, "the countdown")
    wait_until(lambda: window.countdown() not in (None, first), 5, "the countdown to change")

    window.press("push button", "Pause")
    wait_until(lambda: timer_property("State") == '"paused"', 5, "the daemon to report Paused")
    window.wait("push button", "Resume")
    window.press("push button", "Resume")
    wait_until(lambda: timer_property("State") == '"running"', 5, "the daemon to run again")

    index = int(timer_property("SegmentIndex"))
    window.press("push button", "Skip")
    wait_until(lambda: int(timer_property("SegmentIndex")) == index + 1, 5, "the next segment")

    # Stop asks first; Keep Going leaves the workout as it was.
    window.press("push button", "Stop")
    window.press("push button", response("Keep Going"))
    # Only the count of the application's windows is read until the dialog is gone: GTK 4.8 crashes (SIGSEGV while
    # building its answer) when asked for a child of a window that is being destroyed.
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the question to close")
    assert timer_property("State") == '"running"'
    window.press("push button", "Stop")
    window.press("push button", response("Stop Workout"))
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the question to close")
    wait_until(lambda: timer_property("State") == '"idle"', 5, "the daemon to stop")
    window.wait("label", "No Workout Running")


def test_a_second_invocation_with_start_hands_the_plan_to_the_open_window_and_exits_0(window, tmp_path):
    """Single instance: `interval-timer --start tabata`, as a desktop without D-Bus activation runs the entry's
    action, is carried out by the window already open, and the invocation ends with status 0."""
    second = subprocess.run([str(BIN / "interval-timer"), "--start", "tabata"], timeout=30,
                            env=dict(os.environ, **window_environment(tmp_path)), capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    wait_until(lambda: timer_property("PlanName") == '"Tabata"', 10, "the open window to start Tabata")
    window.wait("label", re.compile(r"Tabata · segment \d+ of 18"))
    assert len(window.all("frame")) == 1
    ctl("stop")


def test_a_workout_started_by_intervalctl_appears_in_the_open_window_with_its_digits_a_third_of_its_height(window):
    window.wait("label", "No Workout Running")
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    window.wait("label", "Run")
    digits = wait_until(lambda: window.find("label", COUNTDOWN), 5, "the countdown")
    # The digits are the segment's time left, rounded up to the second: the daemon's, read just after them (walking
    # the accessible tree takes a while under load, so the digits are not compared with the start's 0:30).
    shown = digits.get_name()
    left = -(-int(timer_property("SegmentRemaining")) // 1_000_000)
    assert shown in (f"0:{left:02d}", f"0:{left + 1:02d}"), (shown, left)
    assert left > 20
    height = window.frame.get_extents(Atspi.CoordType.SCREEN).height
    assert digits.get_extents(Atspi.CoordType.SCREEN).height >= height / 3
    window.wait("label", "Next: Walk")
    ctl("stop")


def marked_invalid(control):
    """Whether a screen reader hears `control` as invalid: GTK 4.8 says so with AT-SPI's INVALID state."""
    states = control.get_state_set()
    return states.contains(Atspi.StateType.INVALID) or states.contains(Atspi.StateType.INVALID_ENTRY)


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


def test_the_calculator_solves_a_pace_from_a_distance_and_a_time(window):
    window.tab("Calculator")
    window.toggle("Solve Pace")
    window.type("Distance", "5")
    window.type("Time", "25:00")
    window.wait("label", "5:00/km, 12.0 km/h")
    window.toggle("Solve Time")
    window.type("Pace or speed", "4:30")
    window.wait("label", "22:30")
    # The splits are rows of a list: each its distance and the time at it, the last one the whole run.
    splits = window.wait("list", "Splits")
    wait_until(lambda: all(window.find("label", text, root=splits) for text in ("1 km", "4:30", "5 km", "22:30")), 5,
               "a split row per km, the last one 5 km at 22:30")


def test_the_german_calculator_reads_and_writes_the_decimal_comma(tmp_path):
    """In German the calculator shows 10,51 km and must read it back, as it reads 10,5 typed with the comma: it used
    to put its fields into the plan language as they were, where ',' separates items, so the next solve failed."""
    if not has_locale("de_DE.UTF-8"):
        pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
    try:
        window.tab("Rechner")
        window.toggle("Tempo berechnen")
        window.type("Strecke", "10,5")
        window.type("Zeit", "55:00")
        window.wait("label", "5:14/km, 11,5 km/h")
        window.toggle("Strecke berechnen")
        window.wait("label", "10,51 km")
        window.toggle("Zeit berechnen")  # from the 10,51 the calculator wrote into the distance field
        window.wait("label", "55:00.140")  # 10.51 km at 5:14/km
    finally:
        window.close()


def test_the_screen_may_not_blank_while_a_running_workout_shows(tmp_path, activatable_daemon):
    """GtkApplication's idle inhibitor, held while a running workout shows and released on pause and stop: it goes to
    the desktop portal where there is no GNOME session manager, as here (a stand-in portal records the calls). The
    daemon's own suspend inhibitor (docs/reference.md §6) goes there too, and is held through the pause."""
    calls = tmp_path / "inhibit.log"
    portal = subprocess.Popen(["/usr/bin/python3", str(Path(__file__).parent / "inhibit_portal.py"), str(calls)],
                              stdout=subprocess.PIPE, text=True)
    assert portal.stdout.readline().strip() == "ready"
    window = Window(tmp_path)
    try:
        lines = lambda: calls.read_text().splitlines() if calls.exists() else []

        def held(flag):
            """How many inhibitors with `flag` (8 idle: the window's; 4 suspend: the daemon's) are held."""
            handles = {l.split()[2] for l in lines() if l.startswith("inhibit ") and int(l.split()[1]) & flag}
            return len(handles - {l.split()[1] for l in lines() if l.startswith("uninhibit ")})

        assert lines() == [], "nothing is inhibited while no workout runs"
        assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
        wait_until(lambda: held(8) == 1, 10, "the window's idle inhibitor")
        wait_until(lambda: held(4) == 1, 10, "the daemon's suspend inhibitor")
        assert ctl("pause").returncode == 0
        wait_until(lambda: held(8) == 0, 10, "the idle inhibitor to be released on pause")
        assert held(4) == 1, "paused counts as running: the suspend stays inhibited"
        assert ctl("resume").returncode == 0
        wait_until(lambda: held(8) == 1, 10, "the idle inhibitor again")
        assert ctl("stop").returncode == 0
        wait_until(lambda: held(8) == 0 and held(4) == 0, 10, "both released on stop")
    finally:
        window.close()
        portal.terminate()
        portal.wait(timeout=10)


def test_with_no_daemon_to_reach_the_window_says_so_and_offers_retry(tmp_path):
    window = Window(tmp_path)
    try:
        window.open_plan("Tabata")
        window.press("push button", "Start Plan")
        window.wait("label", re.compile(r"The timer service \(intervald\) cannot be reached: .*", re.S))
        # A toast that stays, with Retry (which GTK 4.8 names by its label twice, as a dialog's responses).
        window.wait("push button", response("Retry"))
    finally:
        window.close()


@pytest.mark.parametrize("locale,preferences,volume", [
    ("de_DE.UTF-8", "Einstellungen", "Lautstärke in Prozent"), ("fr_FR.UTF-8", "Préférences", "Volume en pourcentage"),
    ("es_ES.UTF-8", "Preferencias", "Volumen en porcentaje")])
def test_preferences_speak_the_users_language(tmp_path, locale, preferences, volume):
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        window.menu(preferences)
        window.usable("spin button", volume)
    finally:
        window.close()


@pytest.mark.parametrize("locale,skip", [("de_DE.UTF-8", "Überspringen"), ("fr_FR.UTF-8", "Passer"),
                                         ("es_ES.UTF-8", "Saltar")])
def test_the_window_speaks_the_users_language(tmp_path, activatable_daemon, locale, skip):
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
        window.wait("push button", skip)
        ctl("stop")
    finally:
        window.close()


def test_mpris_raise_opens_the_window_on_the_workout(tmp_path, activatable_daemon, activatable_window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    wait_until(lambda: busctl("status", "org.mpris.MediaPlayer2.intervald", check=False).returncode == 0, 5,
               "the player")
    busctl("call", "org.mpris.MediaPlayer2.intervald", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2", "Raise")
    window = opened_window(tmp_path)
    window.wait("label", "Run")
    wait_until(lambda: window.find("label", COUNTDOWN), 5, "the countdown")
    ctl("stop")


def test_a_click_on_a_cues_body_opens_the_window(tmp_path, activatable_daemon, activatable_window, notify_log):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    notify_log.wait_for(1)
    press("default")  # dunst runs the default action on a click on the body; its menu offers it too
    window = opened_window(tmp_path)
    window.wait("label", "Next: Walk")
    ctl("stop")


def test_a_left_click_on_the_tray_item_opens_the_window(tmp_path, activatable_daemon, activatable_window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    item = f"org.kde.StatusNotifierItem-{name_owner_pid()}-1"
    wait_until(lambda: busctl("status", item, check=False).returncode == 0, 5, "the tray item")
    busctl("call", item, "/StatusNotifierItem", "org.kde.StatusNotifierItem", "Activate", "ii", "10", "10")
    window = opened_window(tmp_path)
    window.wait("label", "Next: Walk")
    assert timer_property("State") == '"running"', "with a window to open, the click does not pause"
    ctl("stop")


def test_a_search_result_starts_its_plan_and_opens_the_window(tmp_path, activatable_daemon, activatable_window):
    busctl("call", SERVICE, "/org/intervald/Timer1/SearchProvider", "org.gnome.Shell.SearchProvider2",
           "ActivateResult", "sasu", "plan:tabata", "1", "tabata", "0")
    window = opened_window(tmp_path)
    assert timer_property("PlanName") == '"Tabata"'
    window.wait("label", re.compile(r"Tabata · segment \d+ of 18"))
    ctl("stop")


@pytest.mark.skipif("INTERVALD_TEST_SCREENSHOT_DIR" not in os.environ,
                    reason="takes the docs' screenshots only when asked (scripts/window-screenshots)")
def test_screenshots_of_the_window(tmp_path, activatable_daemon):
    """The screenshots in README and docs/window.md, from the real window: the workout view in a work and a rest
    segment, a plan's page, the history with its chart, the calculator, the plan editor."""
    shots = Path(os.environ["INTERVALD_TEST_SCREENSHOT_DIR"])
    history = tmp_path / "state" / "intervald" / "history.jsonl"
    history.parent.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    with history.open("w") as lines:
        for days_ago, run, walk in [(40, 20, 10), (33, 24, 12), (26, 18, 9), (19, 30, 12), (15, 16, 8), (12, 32, 10),
                                    (8, 28, 14), (5, 24, 8), (2, 36, 12), (1, 20, 6)]:
            start = now - days_ago * 86_400
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(start))
            lines.write(json.dumps({
                "id": f"w{days_ago}", "plan": "Galloway run/walk 3:1", "origin": "desktop", "start": stamp,
                "end": stamp, "start_wall_us": start * 1_000_000, "planned_us": (run + walk) * 60_000_000,
                "done_us": (run + walk) * 60_000_000, "segments_done": 12,
                "time_per_kind_us": {"run": run * 60_000_000, "walk": walk * 60_000_000},
                "result": "finished", "reason": None}) + "\n")
    window = Window(tmp_path)
    try:
        def shot(name, size="720x640"):
            subprocess.run(["dunstctl", "close-all"], check=True, timeout=10)  # the cue's notification covers it
            time.sleep(0.5)  # the last frame is drawn: a screenshot, not an assertion
            subprocess.run(["import", "-window", "root", "-crop", f"{size}+0+0", str(shots / name)], check=True,
                           timeout=30)

        assert ctl("start", "-e", "8x(1m run, 30s walk)").returncode == 0
        window.wait("label", "Run")
        shot("window-work.png")
        ctl("skip")
        window.wait("label", "Walk")
        shot("window-rest.png")
        ctl("stop")
        window.wait("label", "Workout Stopped")
        shot("window-finish.png")
        window.press("push button", "Done")
        window.menu("Preferences")
        window.usable("spin button", "Volume in percent")
        shot("window-preferences.png")
        window.press("push button", "Close", root=window.find("frame", "Preferences"))
        wait_until(lambda: window.app.get_child_count() == 1, 5, "Preferences to close")
        window.open_plan("Galloway run/walk 3:1")
        shot("window-plan.png")
        window.tab("History")
        window.wait("label", "Minutes per week")
        shot("window-history.png")
        window.tab("Calculator")
        window.type("Distance", "10")
        window.type("Pace or speed", "5:30")
        window.wait("label", "55:00")
        shot("window-calculator.png")
        assert ctl("start", "-e", "8x(1m run, 30s walk)").returncode == 0
        window.wait("label", "Run")
        narrow(window, window.frame, "Interval Timer")
        shot("window-narrow.png", "360x640")
        ctl("stop")
        window.tab("Plans")
        window.press("push button", "New Plan")
        text = window.usable("text", "Plan as text")
        assert text.get_editable_text_iface().set_text_contents(
            '# From the club sheet\nname "Hill repeats"\ncountdown 3s\n\n10m walk "Warm-up"\n'
            '6x {  # the long hill\n  90s run "Uphill" @ 5:00/km\n  2m walk "Recover"\n}\n5m walk "Cool-down"\n')
        window.wait("label", "36:00, 14 segments")
        subprocess.run(["xdotool", "mousemove", "800", "500"], check=True, timeout=10)  # no tooltip in the shot
        shot("window-editor.png", "1000x680")
        narrow(window, window.find("frame", "Plan Editor"), "Plan Editor")
        window.usable("text", "Label", root=window.find("list item", "Step 2.1"))
        shot("window-editor-narrow.png", "360x640")
    finally:
        window.close()


SETTINGS = """# My settings.
[notifications]
sound = false   # the daemon plays the cues

[sound]
# Loud enough outdoors.
volume = 100
duck = 400
mystery = "kept"

[hooks]
on-cue = ["true", "{label}"]
"""


def test_preferences_change_one_line_of_the_settings_and_the_running_daemon_applies_it(window, daemon_config, tmp_path):
    daemon_config.write_text(SETTINGS)
    assert ctl("start", "-e", "10m run").returncode == 0
    daemon = name_owner_pid()
    tray = f"org.kde.StatusNotifierItem-{daemon}-1"
    wait_until(lambda: name_owner_pid(tray), 10, "the tray item")
    window.menu("Preferences")
    # The file's problem is shown, not overwritten unseen.
    window.wait("label", re.compile(r".*intervald\.toml:8: duck: expected a percentage from 0 to 100.*"))
    volume = window.usable("spin button", "Volume in percent")
    assert volume.get_value_iface().get_current_value() == 100
    window.set_number("Volume in percent", 40)
    wait_until(lambda: "volume = 40\n" in daemon_config.read_text(), 10, "the volume to be written")
    assert daemon_config.read_text() == SETTINGS.replace("volume = 100", "volume = 40")
    log = tmp_path / "intervald.log"
    wait_until(lambda: "reason=the file changed" in log.read_text(), 10, "the daemon to read the file again")
    # The tray item goes as its switch is turned off, the workout going on.
    window.press("check box", "Show the workout in the tray")
    wait_until(lambda: name_owner_pid(tray) is None, 10, "the tray item to go")
    assert daemon_config.read_text() == SETTINGS.replace("volume = 100", "volume = 40") + "\n[tray]\nenabled = false\n"
    assert timer_property("State") == '"running"'
    assert name_owner_pid() == daemon


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_preferences_vibration_beside_the_cue_sounds_turns_the_haptics_off_in_the_file(window, daemon_config):
    window.menu("Preferences")
    window.wait("label", "Vibration")
    switch = window.usable("check box", "Vibrate at each change")
    assert switch.get_state_set().contains(Atspi.StateType.CHECKED), "on by default"
    window.press("check box", "Vibrate at each change")
    wait_until(lambda: daemon_config.read_text() == "[notifications]\nsound = false\n\n[haptics]\nenabled = false\n",
               10, "the switch to be written as [haptics] enabled = false")


def test_preferences_numbers_are_spin_buttons_with_their_ranges_committed_whole(window, daemon_config):
    """Volume: select all, type 150: the field turned red without saying the range, and the file said `volume = 15`."""
    window.menu("Preferences")
    preferences = window.wait("frame", "Preferences")
    window.wait("label", "1 to 100", root=preferences)
    window.wait("label", "-100 (slowest) to 100 (fastest)", root=preferences)
    volume = window.usable("spin button", "Volume in percent")
    assert volume.get_value_iface().get_maximum_value() == 100
    click(volume, left=10)  # into its text, not onto its − and + buttons
    wait_until(lambda: volume.get_state_set().contains(Atspi.StateType.FOCUSED), 5, "the volume to have the focus")
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "40"], check=True, timeout=10)
    wait_until(lambda: text_of(volume) == "40", 5, "40 typed")
    assert "volume" not in daemon_config.read_text(), "nothing written while typing"
    key("Tab")
    wait_until(lambda: "volume = 40\n" in daemon_config.read_text(), 5, "the volume to be written as the focus left")
    click(volume, left=10)
    key("ctrl+a")
    subprocess.run(["xdotool", "type", "--delay", "20", "150"], check=True, timeout=10)
    wait_until(lambda: text_of(volume) == "150", 5, "150 typed")
    assert "volume = 40\n" in daemon_config.read_text(), "nothing written while typing"
    key("Return")
    # Committed whole, and within its range.
    wait_until(lambda: "volume = 100\n" in daemon_config.read_text(), 5, "the volume to be written")
    wait_until(lambda: text_of(volume) == "100", 5, "the field to show what was written")
    # The daemon's own knob is not among what a runner changes.
    advanced = window.wait("list", "Advanced", root=preferences)
    window.wait("spin button", "Seconds an idle timer service waits before it exits", root=advanced)


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="xdotool is not installed (scripts/setup-deps)")
def test_preferences_choose_sounds_by_name_and_say_when_one_cannot_play(window, daemon_config):
    """Sounds were raw IDs (`intervald-work`), and a sound that failed to play said nothing in the window."""
    daemon_config.write_text('[notifications]\nsound = false\n\n[sound]\nrest = "/nowhere/cue.oga"\n')
    window.menu("Preferences")
    preferences = window.wait("frame", "Preferences")
    work = window.usable("combo box", "Sound of a change to work", root=preferences)
    window.wait("label", "Work tone", root=work)
    rest = window.usable("combo box", "Sound of a change to rest", root=preferences)
    window.wait("label", "File cue.oga", root=rest)
    click(work)
    # The list opens on the sound chosen, intervald's four first; the Bell is below them (the test screen is too
    # short to show it, so the keyboard chooses it).
    window.usable("label", "Finish chime")
    for name in ("Down", "Down", "Down", "Down", "Return"):
        key(name)
    wait_until(lambda: 'work = "bell"' in daemon_config.read_text(), 5, "the bell to be written")
    window.wait("label", "Bell", root=work)
    # Speaking a sample is a button, not a row that leads elsewhere.
    window.usable("push button", re.compile(r"Speak.*"), root=preferences)
    assert controls_without_a_name(window, preferences) == []
    window.press("push button", "Play Sound of a change to rest", root=preferences)
    window.wait("label", re.compile(r"File cue\.oga could not be played: .+"), root=preferences)


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
def test_preferences_play_and_speak_say_there_is_no_audio_server_when_there_is_none(tmp_path, activatable_daemon):
    """With no audio server, Play said libcanberra's "Invalid state", and Speak asked whether speech-dispatcher was
    installed while it was installed and running."""
    # A runtime directory of the window's own: no audio server's socket in it, and the speech-dispatcher that Speak
    # starts there is this test's alone (found by its socket's path, and stopped).
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    window = Window(tmp_path, env={"XDG_RUNTIME_DIR": str(runtime),
                                   "PULSE_SERVER": f"unix:{runtime / 'pulse' / 'native'}"})
    try:
        window.menu("Preferences")
        preferences = window.wait("frame", "Preferences")
        window.press("push button", "Play Sound of a change to work", root=preferences)
        window.wait("label", "Work tone could not be played: No audio server", root=preferences)
        window.press("push button", re.compile(r"Speak.*"), root=preferences)
        # speech-dispatcher takes the phrase and never begins it: the window says why after its 15 s.
        window.wait("label", "The sample could not be spoken: No audio server", timeout=30, root=preferences)
        assert speech_dispatchers_in(runtime), "speech-dispatcher was reached: it runs for this runtime directory"
    finally:
        window.close()
        stop_speech_dispatchers_in(runtime)


def speech_dispatchers_in(runtime):
    """The speech-dispatcher processes whose socket is in `runtime` (on their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(runtime).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def stop_speech_dispatchers_in(runtime):
    for pid in speech_dispatchers_in(runtime):
        os.kill(pid, signal.SIGTERM)
    # Stuck on an audio output that never opened, it may not heed SIGTERM.
    try:
        wait_until(lambda: not speech_dispatchers_in(runtime), 5, "speech-dispatcher to exit")
    except AssertionError:
        for pid in speech_dispatchers_in(runtime):
            os.kill(pid, signal.SIGKILL)


#: Silence recorded after a sound's last loud sample that shows it has ended (longer than any gap within it).
QUIET_AFTER_A_SOUND_S = 0.2


def loudness(pulse, since):
    """Seconds of loud samples recorded since wall time `since`."""
    samples, _ = pulse.recording(since=since)
    return sum(1 for value in samples if abs(value) > THRESHOLD) / RATE


@pytest.mark.skipif(pulseaudio_missing() is not None, reason=pulseaudio_missing() or "")
@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason="speech-dispatcher is not installed")
class TestPreferencesHeard:
    """What Preferences change is heard at the running workout's next cue, in a recording of a real PulseAudio."""

    TONE_HZ = 660

    @pytest.fixture
    def pulse(self, request):
        server = PrivatePulse()
        yield server
        attach_if_failed(request, f"{server.name} log", server.log)
        server.close()

    @pytest.fixture
    def daemon_environment(self, tmp_path, pulse):
        """The activated daemon plays into the private PulseAudio (and autospawns speech-dispatcher beside it)."""
        keys = ("XDG_RUNTIME_DIR", "HOME", "PULSE_SERVER")
        return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"], **{k: pulse.env[k] for k in keys}}

    def cue_level(self, pulse, cue):
        """The work tone's loudest level (dB) in the second after a cue, read once the tone has ended in the recording.
        The next cue may come within the tone's second (a skip does not cut it short), and a tone still sounding would
        mix into that cue's level: the caller skips only after this returns."""

        def played_out():
            samples, clock = pulse.recording(since=cue)
            span = loud_span(samples, clock)
            return span is not None and clock.time(len(samples) - 1) > span[1] + QUIET_AFTER_A_SOUND_S

        wait_until(played_out, 10, "the cue's tone to end")
        samples, clock = pulse.recording(since=cue - 0.5)
        return max(db for _, db in tone_levels(samples, clock, self.TONE_HZ, cue, cue + 0.9))

    def test_the_volume_the_sounds_and_the_voice_set_in_preferences_are_the_next_cues(self, window, daemon_config,
                                                                                       pulse, tmp_path):
        tone = tmp_path / "tone.wav"
        write_tone(tone, 1, self.TONE_HZ, 0.5)
        settings = f'[notifications]\nsound = false\n\n[sound]\nvolume = 100\nwork = "{tone}"\nrest = "{tone}"\n'
        daemon_config.write_text(settings)
        log = tmp_path / "intervald.log"
        signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
        try:
            assert ctl("start", "-e", "1m run, 1m walk, 1m run, 1m walk").returncode == 0
            first = signals.wait_for("SegmentStarted")[0]["timestamp-realtime"] / 1e6
            first_level = self.cue_level(pulse, first)
            window.menu("Preferences")
            window.set_number("Volume in percent", 25)
            wait_until(lambda: "volume = 25\n" in daemon_config.read_text(), 10, "the volume to be written")
            assert daemon_config.read_text() == settings.replace("volume = 100", "volume = 25"), "only that line"
            wait_until(lambda: log.read_text().count("reason=the file changed") >= 1, 10, "the daemon to read it")
            assert ctl("skip").returncode == 0
            second = signals.wait_for("SegmentStarted", count=2)[1]["timestamp-realtime"] / 1e6
            levels = [first_level, self.cue_level(pulse, second)]
            # 25 %: 20·log10(0.25) = -12.04 dB, from the next cue on.
            assert abs(levels[1] - levels[0] + 12.04) < 1.5, levels

            # The sounds off: the next change is silent.
            window.press("check box", "Play cue sounds")
            wait_until(lambda: re.search(r"\[sound\][^\[]*\nenabled = false\n", daemon_config.read_text()), 10,
                       "the switch to be written")
            # Read again by the monitor when the write settles; `reload` makes sure it is in use before the skip.
            assert ctl("reload").returncode == 0
            assert ctl("skip").returncode == 0
            third = signals.wait_for("SegmentStarted", count=3)[2]["timestamp-realtime"] / 1e6
            pulse.wait_until_recorded(third + 1.2)
            assert loudness(pulse, third) == 0, "no sound"

            # The voice on: what plays at the next change is speech.
            window.press("check box", "Speak each change")
            wait_until(lambda: "voice = true" in daemon_config.read_text(), 10, "the voice to be written")
            assert ctl("reload").returncode == 0
            assert ctl("skip").returncode == 0
            fourth = signals.wait_for("SegmentStarted", count=4)[3]["timestamp-realtime"] / 1e6
            wait_until(lambda: loudness(pulse, fourth) > 0.5, 30, "half a second of speech")
            assert timer_property("State") == '"running"'
        finally:
            signals.close()
            ctl("stop")


# What a screen reader says by its name as the focus or the reading reaches it: controls, menus, windows and dialogs.
# (GTK 4.8 names its inner parts, fillers, panels, icons and scroll bars, after their classes too; no reader says those.)
NAMED_ROLES = {"push button", "toggle button", "check box", "radio button", "menu item", "check menu item",
               "radio menu item", "combo box", "text", "spin button", "slider", "page tab", "page tab list", "frame",
               "dialog", "alert", "list item", "menu", "popup menu"}


def controls_without_a_name(window, frame=None):
    """Each accessible below the application (or `frame`) that a screen reader cannot name, or names badly: a control a
    person can act on (it has an action) with no name; a control, menu, window or dialog named after its GTK class,
    acting or not ("GtkToggleButton", a menu button's "GtkMenuButton", a window's "GtkShortcutsWindow"), or whose name
    is said twice."""
    nameless = []
    for node in window.matches(root=frame or window.app):
        try:
            name, role, acts = node.get_name() or "", node.get_role_name(), node.get_n_actions()
        except gi.repository.GLib.Error:
            continue
        unnamed = acts and not name.strip() and role not in (
            "frame", "filler", "panel", "scroll pane", "label", "list", "tool tip")
        # (A label's text is what it says, not its name: a workout's "Jog 5:00, Walk 3:00, Jog 5:00, Walk 3:00" is
        # right.)
        if unnamed or (role in NAMED_ROLES and (re.fullmatch(r"(Gtk|Adw)\w+", name) or said_twice(name))):
            nameless.append((role, name))
    return nameless


def said_twice(name):
    """Whether words of `name` come twice in a row: "Keep Editing Keep Editing", "Speak Speak a sample" (GTK 4.8
    says a widget's own label, then each widget it is labelled by: its text's, its row's title)."""
    words = name.casefold().split()
    return any(words[i:i + n] == words[i + n:i + 2 * n]
               for n in range(1, len(words) // 2 + 1) for i in range(len(words) - 2 * n + 1))


def test_a_name_said_twice_is_found():
    assert said_twice("Keep Editing Keep Editing") and said_twice("Speak Speak a sample") and said_twice("OK OK")
    assert not said_twice("Speak a sample") and not said_twice("Walk, run, walk") and not said_twice("")


def read_menu(window, button, item, read):
    """What `read()` answers while the menu of the menu button `button` is open (once its item `item` shows); the menu
    is closed again with Escape."""
    window.open_menu(button)
    window.wait("menu item", item)
    found = read()
    key("Escape")
    wait_until(lambda: not window.find("menu item", item), 10, f"the menu of {button} to close")
    return found


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


def test_about_names_the_application_its_version_and_its_licence(window):
    window.menu("About Interval Timer")
    window.wait("label", "0.1.0")
    window.wait("label", "The intervald developers")
    # The licence, on its Legal page.
    window.wait("label", re.compile(r".*the Apache License, Version 2\.0.*", re.S))


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


def focus_window_on_screen(window, title=None):
    """Gives the window (or its window titled `title`, a string or a regex) the X input focus, as a window manager would on a click
    (the test screen has none), so that keys typed with xdotool reach it."""
    by_title = []
    if title is not None:  # (xdotool's conditions are or'ed unless --all)
        by_title = ["--all", "--name", title.pattern if hasattr(title, "pattern") else f"^{re.escape(title)}$"]
    windows = subprocess.run(["xdotool", "search", "--pid", str(window.pid), *by_title], capture_output=True,
                             text=True)
    # The application has an unmapped leader window too, which cannot take the focus: one of them must.
    focused = [subprocess.run(["xdotool", "windowfocus", "--sync", x], capture_output=True, timeout=10).returncode
               for x in windows.stdout.split()]
    assert 0 in focused, windows


def key(name):
    subprocess.run(["xdotool", "key", name], check=True, timeout=10)


def click(control, left=None):
    """A real pointer click in the middle of the control (which must be on the screen), or `left` pixels into it."""
    extents = control.get_extents(Atspi.CoordType.SCREEN)
    x = extents.x + (extents.width // 2 if left is None else left)
    subprocess.run(["xdotool", "mousemove", str(x), str(extents.y + extents.height // 2), "click", "1"], check=True,
                   timeout=10)


def text_of(entry):
    text = entry.get_text_iface()
    return text.get_text(0, text.get_character_count())


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


def narrow(window, frame, title):
    """Resizes the X window titled `title` to 360 × 640 until its frame (`frame`, without the client-side shadow)
    is at most 360 wide: GTK keeps a window as wide as its content needs, which narrows once it has fitted itself."""
    def resized():
        for x_window in subprocess.run(["xdotool", "search", "--pid", str(window.pid)], capture_output=True,
                                       text=True).stdout.split():
            name = subprocess.run(["xdotool", "getwindowname", x_window], capture_output=True, text=True).stdout
            if name.strip() == title:
                subprocess.run(["xdotool", "windowsize", x_window, "360", "640"], capture_output=True, timeout=10)
        return frame.get_extents(Atspi.CoordType.SCREEN).width <= 360

    wait_until(resized, 10, f"{title} to be 360 wide")


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


def test_when_the_daemon_dies_mid_workout_the_window_starts_it_again_and_shows_the_workout_resumed(window):
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    wait_until(window.countdown, 10, "the countdown")
    first = name_owner_pid(SERVICE)
    os.kill(first, 9)
    # The window activates the daemon again, which resumes the workout from its state file.
    resumed = wait_until(lambda: (name_owner_pid(SERVICE) or first) != first and name_owner_pid(SERVICE), 15,
                         "a new daemon")
    assert resumed != first
    assert timer_property("State") == '"running"'
    window.wait("label", "Run")
    wait_until(window.countdown, 5, "the countdown of the resumed workout")
    ctl("stop")


def history_line(plan, start, result, reason=None, kinds=None):
    kinds = kinds or {"run": 60_000_000}
    return json.dumps({"id": f"{plan}-{start}", "plan": plan, "origin": "<inline>", "start": "", "end": "",
                       "start_wall_us": start * 1_000_000, "planned_us": 60_000_000,
                       "done_us": sum(kinds.values()), "segments_done": 1, "time_per_kind_us": kinds,
                       "result": result, "reason": reason}) + "\n"


@pytest.mark.skipif(not has_locale("de_DE.UTF-8"), reason="de_DE.UTF-8 is not generated (scripts/setup-deps)")
def test_the_history_in_german_shows_german_dates_and_reasons_in_the_local_time_zone(tmp_path):
    history = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald" / "history.jsonl"
    history.parent.mkdir(parents=True)
    # 2026-03-28 23:30 UTC: Sunday 29 March 00:30 in Berlin, whose clocks go forward that night.
    history.write_text(history_line("Morgenlauf", 1_774_740_600, "stopped", "user"))
    window = Window(tmp_path, env={**in_language("de_DE.UTF-8"), "TZ": "Europe/Berlin"})
    try:
        window.tab("Verlauf")
        # How it ended in words, not the reason's id ("abgebrochen (Benutzer)").
        window.wait("label", "Morgenlauf — von Ihnen abgebrochen")
        # The kind by its German name ("run" showed raw, as the legend did).
        window.wait("label", re.compile(r"29\.03\.2026 00:30 · Laufen 1:00"))
    finally:
        window.close()


#: The kinds' IDs (plan language) that the window names by their display names ("Laufen" for run).
KIND_IDS = {"run", "walk", "work", "rest", "jog", "sprint", "easy", "hard", "recover", "recovery", "warmup",
            "cooldown", "stretch", "bike", "row", "swim"}
#: Plan language as a whole text: durations with kinds, repeats, labels in quotes, paces (`8x(1m run "Jog", …)`).
PLAN_SOURCE = re.compile(r'(?:\s*(?:\d+x\s*[({]|[)}]|,|\d+(?::\d\d)?(?:ms|s|m|h)?\s+[a-z]+|"[^"]*"|@\s*[\d:.,]+\s*'
                         r'(?:/km|/mi|km/h|mph)|for\s+\S+|…))+\s*')


class ShownWords:
    """What the window shows that a German reader should not meet: an English text of the catalog left untranslated,
    a kind's ID where its name belongs, plan language where a description belongs, a D-Bus error's name or a
    compiler's diagnostic where a sentence belongs."""

    def __init__(self, window, plan_names):
        catalog = gettext.translation("intervald", LOCALE_DIR, ["de"])._catalog  # msgid → msgstr
        self.english = {}
        # A German word may be spelled as an English one ("Pause" is Rest's name, and the English for Pausieren).
        german = {msgstr for msgstr in catalog.values() if isinstance(msgstr, str)}
        self.german = german
        for msgid, msgstr in catalog.items():
            if isinstance(msgid, str) and msgid and msgstr != msgid:
                pattern = re.escape(msgid)
                for placeholder in set(re.findall(r"\\\{\w+\\\}", pattern)):
                    pattern = pattern.replace(placeholder, ".+")
                self.english[msgid] = re.compile(pattern, re.S)
        self.window = window
        self.plan_names = set(plan_names)
        self.found = set()

    def walk(self, where):
        """Reads every text of every open window of the application (its pages not shown included)."""
        for index in range(self.window.app.get_child_count()):
            frame = self.window.app.get_child_at_index(index)
            for node in self.window.matches(root=frame):
                try:
                    role, text = node.get_role_name(), node.get_name() or ""
                except gi.repository.GLib.Error:
                    continue
                if role in ("text", "entry", "spin button") or not text.strip() or text in self.plan_names:
                    continue  # what a person types, and the names of plans, are theirs
                if text in self.german:
                    continue
                for msgid, pattern in self.english.items():
                    if pattern.fullmatch(text):
                        self.found.add((where, "untranslated", role, text))
                words = set(re.findall(r"[a-z]+", text))
                if role == "label" and words & KIND_IDS and not re.search(r"\d+x\(|\d+s [a-z]", text):
                    self.found.add((where, "kind ID", role, text))
                if role == "label" and re.search(r"\d+(?:ms|s|m|h)\s+[a-z]+", text) and PLAN_SOURCE.fullmatch(text):
                    self.found.add((where, "plan source", role, text))
                if re.search(r"\borg\.[\w.]*Error\b|<inline>:\d+:\d+: error", text):
                    self.found.add((where, "a D-Bus error name or a compiler's diagnostic", role, text))


def end_windows_but_the_main_one(window):
    """Closes the application's other windows as their own close key does (Escape in each, given the focus)."""
    for x_window in subprocess.run(["xdotool", "search", "--pid", str(window.pid)], capture_output=True,
                                   text=True).stdout.split():
        name = subprocess.run(["xdotool", "getwindowname", x_window], capture_output=True, text=True).stdout.strip()
        if name not in ("Interval Timer", "interval-timer", ""):
            subprocess.run(["xdotool", "windowfocus", "--sync", x_window, "key", "Escape"], capture_output=True,
                           timeout=10)
    wait_until(lambda: window.app.get_child_count() == 1, 5, "the other windows to close")


class TestGermanThroughout:
    """The window in German, every page and dialog walked (spec §17): "Danach: All out", "run, work", "(user)" and a
    program's days in plan language were each found by a person, one page at a time."""

    @pytest.fixture
    def daemon_environment(self, tmp_path):
        return {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"], "LC_ALL": "de_DE.UTF-8",
                "LANGUAGE": "", "INTERVALD_LOCALEDIR": LOCALE_DIR}

    def test_every_page_and_dialog_in_german_names_kinds_and_describes_plans(self, tmp_path, activatable_daemon):
        if not has_locale("de_DE.UTF-8"):
            pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
        de = gettext.translation("intervald", LOCALE_DIR, ["de"]).gettext
        history = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald" / "history.jsonl"
        history.parent.mkdir(parents=True)
        now = int(time.time())
        history.write_text(
            history_line("Tabata", now - 86_400, "finished",
                         kinds={"warmup": 120_000_000, "work": 160_000_000, "rest": 80_000_000})
            + json.dumps({**json.loads(history_line("Couch to 5K · Week 1, Day 1", now - 3600, "stopped", "user",
                                                    kinds={"walk": 300_000_000, "run": 60_000_000})),
                          "program": "c25k", "day": "1.1"}) + "\n")
        bundled = {"XDG_DATA_DIRS": window_environment(tmp_path)["XDG_DATA_DIRS"]}
        plans = json.loads(ctl("plans", "--json", env=bundled).stdout)
        window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
        shown = ShownWords(window, [plan["title"] for plan in plans])
        try:
            assert ctl("start", "tabata", env=bundled).returncode == 0
            wait_until(window.countdown, 10, "the countdown")
            shown.walk("workout, running")
            assert ctl("pause").returncode == 0
            window.wait("push button", de("Resume"))
            shown.walk("workout, paused")
            assert ctl("stop").returncode == 0
            window.wait("push button", de("Done"))
            shown.walk("finish page")
            window.press("push button", de("Done"))
            window.tab(de("Plans"))
            window.press("push button", "Tabata")
            window.usable("push button", de("Start Plan"))
            shown.walk("a plan's page")
            window.press("push button", de("Back"))
            window.press("push button", "Couch to 5K")
            window.wait("label", "Woche 1")
            shown.walk("a program's page")
            window.press("push button", de("Back"))
            window.tab(de("History"))
            window.wait("label", re.compile(".*Couch to 5K.*"))
            shown.walk("history")
            window.tab(de("Calculator"))
            shown.walk("calculator")
            window.menu(de("Preferences"))
            preferences = window.wait("frame", de("Preferences"))
            shown.walk("preferences")
            window.press("push button", re.compile("Schließen|Close"), root=preferences)  # GTK's own word
            wait_until(lambda: window.app.get_child_count() == 1, 5, "Preferences to close")
            window.menu(de("Keyboard Shortcuts"))
            window.wait("label", de("Skip to the next interval"))
            shown.walk("keyboard shortcuts")
            end_windows_but_the_main_one(window)
            window.tab(de("Plans"))
            window.press("push button", de("New Plan"))
            window.wait("frame", de("Plan Editor"))
            window.usable("text", de("Plan as text"))
            shown.walk("the plan editor")
            end_windows_but_the_main_one(window)
            window.menu(de("About Interval Timer"))
            window.wait("label", "0.1.0")
            shown.walk("about")
        finally:
            window.close()
        assert not shown.found, "\n".join(" | ".join(item) for item in sorted(shown.found))


def test_no_history_is_a_status_page_and_an_unreadable_one_an_error(tmp_path):
    state = Path(window_environment(tmp_path)["XDG_STATE_HOME"]) / "intervald"
    state.mkdir(parents=True)

    def history_page_says(title):
        window = Window(tmp_path)
        try:
            window.tab("History")
            window.wait("label", title)
        finally:
            window.close()

    history_page_says("No Workouts Yet")
    # A directory where the file should be cannot be read: said as an error, not as "no workouts".
    (state / "history.jsonl").mkdir()
    history_page_says("The History Cannot Be Read")


def test_a_workout_that_ends_shows_the_finish_page_with_its_time_per_kind_and_start_again(window):
    window.tab("Plans")
    window.type("One-line plan", "2x(1s run, 2s walk)")
    window.press("push button", "Start")
    window.wait("label", "Workout Finished", timeout=20)
    window.wait("label", "2 × (Run 0:01, Walk 0:02): 0:06 of 0:06, finished.")
    window.wait("label", "0:04")  # walk: 2 × 2 s
    window.wait("label", "0:02")  # run
    # Start Again runs the same plan; stopped, it ends on the finish page again, saying so.
    window.press("push button", "Start Again")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the plan to run again")
    assert ctl("stop").returncode == 0
    window.wait("label", "Workout Stopped", timeout=10)
    window.wait("label", re.compile(r"2 × \(Run 0:01, Walk 0:02\): 0:0\d of 0:06, stopped by you\."))
    window.press("push button", "Done")


def test_a_one_line_plan_started_from_the_shell_can_be_started_again_from_the_finish_page(window):
    """Start Again was missing after `intervalctl start -e`: the window did not know the plan's text."""
    assert ctl("start", "-e", "2x(500ms run, 500ms walk)").returncode == 0
    window.wait("label", "Workout Finished", timeout=20)
    window.press("push button", "Start Again")
    wait_until(lambda: timer_property("State") == '"running"', 10, "the plan to run again")
    assert timer_property("PlanName") == '"2x(500ms run, 500ms walk)"'
    assert ctl("stop").returncode == 0


def test_the_german_finish_page_says_how_it_ended_and_the_distance_in_german(tmp_path, activatable_daemon):
    """A plan whose steps have paces: the finish page adds the distance run, with the decimal comma."""
    if not has_locale("de_DE.UTF-8"):
        pytest.skip("de_DE.UTF-8 is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language("de_DE.UTF-8"))
    try:
        window.tab("Pläne")
        # 2 × (1 s at 36 km/h, 10 m, and 2 s at 6 km/h, 3.33 m): 26.67 m.
        window.type("Plan in einer Zeile", "2x(1s run @ 36 km/h, 2s walk @ 6 km/h)")
        window.press("push button", "Starten")
        window.wait("label", "Training beendet", timeout=20)
        # A one-line plan is named in words, not by its plan text with English kinds.
        window.wait("label", "2 × (Laufen 0:01, Gehen 0:02): 0:06 von 0:06, beendet.")
        distance = window.find("list item", "Strecke")
        assert distance is not None and window.find("label", "0,03 km (0,02 mi)", root=distance) is not None
        window.press("push button", "Fertig")
    finally:
        window.close()


@pytest.mark.parametrize("locale, words", [
    ("fr_FR.UTF-8", {"tabs": ["Séance", "Plans", "Historique", "Calculatrice"],
                     "idle": "Aucun entraînement en cours", "choose": "Choisir un plan", "start": "Démarrer le plan",
                     "back": "Retour", "steps": "Étapes", "totals": "Totaux", "preferences": "Préférences",
                     "sounds": "Jouer les sons des signaux"}),
    ("es_ES.UTF-8", {"tabs": ["Entrenamiento", "Planes", "Historial", "Calculadora"],
                     "idle": "Ningún entrenamiento en curso", "choose": "Elegir un plan", "start": "Empezar el plan",
                     "back": "Atrás", "steps": "Pasos", "totals": "Totales", "preferences": "Preferencias",
                     "sounds": "Reproducir los sonidos de aviso"}),
])
def test_the_window_speaks_french_and_spanish_from_its_layout_files_and_its_code(tmp_path, locale, words):
    """The texts of ui/*.ui (tabs, the idle page, buttons) and those set from Swift (a plan's rows, Preferences)."""
    if not has_locale(locale):
        pytest.skip(f"{locale} is not generated (scripts/setup-deps)")
    window = Window(tmp_path, env=in_language(locale))
    try:
        for tab in words["tabs"]:
            window.wait("page tab", tab)
        window.wait("label", words["idle"])
        # "Choose a Plan" is the window's show-page action: it leads to the Plans page.
        window.press("push button", words["choose"])
        plans = window.find("page tab", words["tabs"][1])
        wait_until(lambda: plans.get_state_set().contains(Atspi.StateType.SELECTED), 10, "the Plans page")
        window.press("push button", "Tabata")
        window.usable("push button", words["start"])
        window.wait("list", words["steps"])
        window.wait("list", words["totals"])
        window.press("push button", words["back"])
        window.menu(words["preferences"])
        window.wait("check box", words["sounds"])
    finally:
        window.close()


def test_a_plans_page_shows_its_steps_and_repeats_as_rows_and_the_header_bars_back_returns_to_the_list(window):
    window.open_plan("Tabata")
    steps = window.wait("list", "Steps")
    assert window.find("list item", "Warm-up", root=steps) is not None
    # A repeat is an expander row: its head, its total and round, and its steps inside it.
    head = window.find("list item", "8 ×", root=steps)
    assert head is not None and window.find("label", "4:00, 0:30 per round", root=head) is not None
    # The expander row is the list item around its head's list and its steps' list.
    repeat = head.get_parent()
    while repeat.get_role_name() != "list item":
        repeat = repeat.get_parent()
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
    one_line = 'name "Tabata", countdown 3s, 4m warmup "Warm-up", 8x(20s work "All out", 10s rest), 4m cooldown "Cool-down"'
    wait_until(lambda: text_of(entry) == one_line, 5, "the pasted plan")
    window.wait("label", "12:00, 18 segments")
    shown = ctl("plan", "show", "-e", one_line)
    assert shown.returncode == 0 and "Tabata — 12:00, 18 segments" in shown.stdout


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

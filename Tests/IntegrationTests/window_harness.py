"""The harness of the window's tests, test_window.py and test_window_*.py (a file a page): the Interval Timer window
(docs/reference.md §10) driven as a person with a screen reader would drive it: through AT-SPI, the accessibility bus
GTK reports to, pressing its buttons by their accessible names and reading its labels; against the real daemon,
D-Bus-activated on the test's session bus, under Xvfb.

A test file imports the fixtures it uses: accessibility_bus (autouse: every file imports it), window, and
daemon_config and daemon_environment, with which the activated daemon reads the settings that the window's Preferences
write and finds the bundled plans where the window does. The window's test files sort after test_plasma.py on purpose
(see test_window_editor.py).
"""
import contextlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, SERVICE, busctl, install_desktop_files, name_owner_pid, wait_until

gi = pytest.importorskip("gi", reason="needs python3-gi and gir1.2-atspi-2.0 (scripts/setup-deps)")
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402


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


xdotool_required = pytest.mark.skipif(shutil.which("xdotool") is None,
                                      reason="xdotool is not installed (scripts/setup-deps)")


def response(name):
    """A button of a libadwaita dialog or toast: GTK 4.8 names it by its label twice ("Keep Going Keep Going")."""
    return re.compile(rf"{re.escape(name)}(?: {re.escape(name)})?")


def marked_invalid(control):
    """Whether a screen reader hears `control` as invalid: GTK 4.8 says so with AT-SPI's INVALID state."""
    states = control.get_state_set()
    return states.contains(Atspi.StateType.INVALID) or states.contains(Atspi.StateType.INVALID_ENTRY)


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


def read_menu(window, button, item, read):
    """What `read()` answers while the menu of the menu button `button` is open (once its item `item` shows); the menu
    is closed again with Escape."""
    window.open_menu(button)
    window.wait("menu item", item)
    found = read()
    key("Escape")
    wait_until(lambda: not window.find("menu item", item), 10, f"the menu of {button} to close")
    return found


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


def history_line(plan, start, result, reason=None, kinds=None):
    kinds = kinds or {"run": 60_000_000}
    return json.dumps({"id": f"{plan}-{start}", "plan": plan, "origin": "<inline>", "start": "", "end": "",
                       "start_wall_us": start * 1_000_000, "planned_us": 60_000_000,
                       "done_us": sum(kinds.values()), "segments_done": 1, "time_per_kind_us": kinds,
                       "result": result, "reason": reason}) + "\n"

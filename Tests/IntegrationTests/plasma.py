"""KDE Plasma 5.27's own components (Debian 12's plasma-workspace) on the test desktop of scripts/test-desktop: its Xvfb
screen and session bus, each component with a home of its own, read and driven through AT-SPI as a person with a
screen reader would (platform notes "Tray items (StatusNotifierItem) and KDE Plasma")."""
import os
import select
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import busctl, end_processes, name_owner_pid, wait_until

gi = pytest.importorskip("gi", reason="needs python3-gi and gir1.2-atspi-2.0 (scripts/setup-deps)")
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

TOOLS = ("plasmawindowed", "krunner", "kded5", "xprop", "xdotool")


def missing():
    """Why Plasma's tests cannot run here, or None."""
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent:
        return (f"needs KDE Plasma 5.27 (plasma-workspace, kded5), x11-utils and xdotool: {', '.join(absent)} "
                "not installed")
    if not os.environ.get("INTERVALD_TEST_DBUS_SERVICE_DIR") or not os.environ.get("DISPLAY"):
        return "needs scripts/test-desktop (a private session bus and an X screen)"
    if not Path("/usr/share/dbus-1/services/org.a11y.Bus.service").exists():
        return "at-spi2-core is not installed (scripts/setup-deps)"
    return None


def accessibility_bus():
    """Starts the accessibility bus as an X session has it before any application starts: D-Bus-activated with the
    session's DISPLAY, and its registry running. Returns its address."""
    service = Path("/usr/share/dbus-1/services/org.a11y.Bus.service")
    shutil.copy(service, Path(os.environ["INTERVALD_TEST_DBUS_SERVICE_DIR"]) / service.name)
    dbus = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
    busctl("call", *dbus, "ReloadConfig")
    # What a desktop session tells the bus (dbus-update-activation-environment): where its screen is.
    busctl("call", *dbus, "UpdateActivationEnvironment", "a{ss}", "1", "DISPLAY", os.environ["DISPLAY"])
    address = busctl("call", "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress").stdout.split('"')[1]
    # The registry is started with the bus; an application that registers before it owns its name is lost.
    subprocess.run(["busctl", f"--address={address}", "call", "org.a11y.atspi.Registry",
                    "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible", "GetChildren"],
                   check=True, capture_output=True, timeout=20)
    return address


class Plasma:
    """Plasma's processes on the test desktop, with a home, settings and runtime directory of their own."""

    def __init__(self, tmp_path, data_dirs=None):
        self.tmp = tmp_path / "plasma"
        home = self.tmp / "home"
        runtime = self.tmp / "runtime"
        for path in (home / ".config", home / ".local" / "share", home / ".cache"):
            path.mkdir(parents=True)
        runtime.mkdir(mode=0o700)
        self.env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_CACHE_HOME": str(home / ".cache"),
                    "XDG_RUNTIME_DIR": str(runtime), "QT_QPA_PLATFORM": "xcb", "XDG_CURRENT_DESKTOP": "KDE",
                    "KDE_FULL_SESSION": "true", "KDE_SESSION_VERSION": "5",
                    # Qt reports to AT-SPI only when a screen reader is on, or when told to.
                    "QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
                    "QT_LOGGING_RULES": "kf.solid*=false;qt.qpa.xcb=false"}
        if data_dirs:
            self.env["XDG_DATA_DIRS"] = ":".join(map(str, data_dirs))
        self.processes = []
        try:
            self._show_the_accessibility_bus(accessibility_bus())
        except BaseException:
            self.close()
            raise

    def _show_the_accessibility_bus(self, address):
        # The bus's address on the root window (AT_SPI_BUS), as at-spi-bus-launcher puts it in an X session, where
        # Qt 5 reads it at startup. (Left to find the bus through the session bus, a Qt application sometimes never
        # registers with the registry, and is missing from the accessible desktop.) Xvfb resets itself, dropping
        # the root window's properties, whenever its last client leaves (as when dunst stops before Plasma starts):
        # a client watching the property keeps it for as long as Plasma runs.
        watcher = subprocess.Popen(["xprop", "-root", "-spy", "AT_SPI_BUS"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        self.processes.append(watcher)
        ready, _, _ = select.select([watcher.stdout], [], [], 10)
        assert ready and watcher.stdout.readline().startswith("AT_SPI_BUS"), "xprop could not watch the root window"
        if address not in subprocess.run(["xprop", "-root", "AT_SPI_BUS"], capture_output=True, text=True,
                                         timeout=10).stdout:
            subprocess.run(["xprop", "-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", address], check=True,
                           timeout=10)

    def spawn(self, *argv):
        log = self.tmp / f"{Path(argv[0]).name}.log"
        process = subprocess.Popen(list(argv), env=self.env, stdout=log.open("a"), stderr=subprocess.STDOUT)
        process.log = log
        self.processes.append(process)
        return process

    def wait_for_name(self, process, name, timeout=30):
        """Waits until `process` owns `name` on the session bus; fails early, with its log, if it exits."""
        def owned():
            if process.poll() is not None:
                raise AssertionError(f"{process.args[0]} exited ({process.returncode}): "
                                     f"{process.log.read_text()[-3000:]}")
            return name_owner_pid(name) == process.pid
        wait_until(owned, timeout, f"{process.args[0]} to own {name}")

    def application(self, process, timeout=30):
        """The accessible application of `process`, once it has registered with the accessibility bus."""
        return wait_until(lambda: _application(process.pid), timeout, f"{process.args[0]} on the accessibility bus")

    def key(self, name):
        """Types a key (an X keysym name such as Return) on the keyboard, into the focused window, through XTest."""
        subprocess.run(["xdotool", "key", name], check=True, timeout=10, env=self.env)

    def close(self):
        end_processes(self.processes)
        for process in self.processes:
            if process.stdout:
                process.stdout.close()


def _application(pid):
    desktop = Atspi.get_desktop(0)
    desktop.clear_cache()  # no main loop runs here to keep libatspi's cache up to date: ask the bus every time
    for index in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(index)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except GLib.Error:
            continue
    return None


def all_accessibles(root, role=None, name=None, showing=False):
    """Every accessible below `root` with `role` and `name` (a string or a compiled regex), read afresh from the
    application; with `showing`, only those on screen."""
    found = []

    def walk(node, depth):
        if node is None or depth > 60:
            return
        try:
            node.clear_cache()
            text = node.get_name() or ""
            matches = role is None or node.get_role_name() == role
            if name is not None:
                matches = matches and (name.fullmatch(text) if hasattr(name, "fullmatch") else text == name)
            if matches and showing:
                matches = node.get_state_set().contains(Atspi.StateType.SHOWING)
            if matches:
                found.append(node)
            for index in range(node.get_child_count()):
                walk(node.get_child_at_index(index), depth + 1)
        except GLib.Error:
            return

    walk(root, 0)
    return found


def find(root, role=None, name=None, showing=True):
    found = all_accessibles(root, role, name, showing)
    return found[0] if found else None


def wait_for(root, role, name, timeout=10, showing=True):
    """The first accessible below `root` with `role` and `name`, once there is one; fails with the tree."""
    try:
        return wait_until(lambda: find(root, role, name, showing), timeout, f"a {role} named {name!r}")
    except AssertionError as error:
        raise AssertionError(f"{error}; the accessible tree:\n{dump(root)}") from None


def press(control):
    """Presses a control as assistive technology does: its first action (Qt's "Press")."""
    assert Atspi.Action.get_n_actions(control) > 0, f"{control.get_name()!r} has no action"
    assert Atspi.Action.do_action(control, 0), f"{control.get_name()!r} refused its action"


def dump(root):
    """The accessible tree below `root`, one line each, for failure messages."""
    lines = []

    def walk(node, depth):
        if node is None or depth > 40:
            return
        try:
            lines.append("  " * depth + f"{node.get_role_name()} {node.get_name()!r} {node.get_description()!r}")
            for index in range(node.get_child_count()):
                walk(node.get_child_at_index(index), depth + 1)
        except GLib.Error as error:
            lines.append("  " * depth + f"error: {error}")

    walk(root, 0)
    return "\n".join(lines)

"""Real StatusNotifierItem hosts (tray icons) for the integration tests: KDE's watcher (kded5), Plasma's system tray,
Xfce's panel, waybar under a headless sway, and GNOME Shell with the AppIndicator extension.

Each host is a context manager taking the test's environment and a temporary directory, and yielding an object with
(where the host allows it):

    env                          the environment the tray item must run in (the bus the host watches)
    registered_items()           the watcher's RegisteredStatusNotifierItems
    wait_until_shown(item_id)    waits until the host displays the item whose `Id` is `item_id`; returns what it shows
    press_menu_item(label)       opens the item's menu as a person would (right click) and clicks `label`; returns once
                                 the host has sent the item's dbusmenu the `clicked` event for it
    menu_events()                the dbusmenu events (Event/EventGroup) hosts sent, as (item id, event id) pairs
    screenshot(path)             a picture of the host's screen

and each context manager has `available()`: None when the host can run here, else the reason to skip. Every wait is
bounded (`HostTimeout`, an AssertionError, says what was awaited and where the host's log is); every process started is
ended on exit, with its process group (kded5 leaves a kconf_update helper behind otherwise).

Facts these rely on (measured with Debian 12's hosts):
- kded5 does not autoload its statusnotifierwatcher module outside a Plasma session: `loadModule` it over D-Bus.
- Plasma's system tray draws the icon only; Title and ToolTip show in its tooltip, which `hover_screenshot` captures.
  Its item menu is a QMenu; Qt's AT-SPI bridge exposes nothing of plasmawindowed here, so the item is found on a
  screenshot and clicked with xdotool.
- Xfce's systray plugin runs in its own process (`panel-1-systray`, which owns the watcher); xfce4-panel needs
  xfconfd and `--disable-wm-check` (else it waits for a window manager). The plugin's widgets are not in AT-SPI.
- sway refuses to run as root ("Unable to drop root"): as root it runs as `nobody` here, with waybar as the caller.
  A headless sway has no pointer: clicks go through the zwlr_virtual_pointer_v1 protocol. Debian's waybar 0.9.17
  has no mpris module ("Unknown module: mpris").
- Debian names the AppIndicator extension `ubuntu-appindicators@ubuntu.com` (upstream:
  `appindicatorsupport@rgcjonas.gmail.com`); clicks go through a Clutter virtual pointer created with Eval.
"""
import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
ITEM_INTERFACE = "org.kde.StatusNotifierItem"
MENU_INTERFACE = "com.canonical.dbusmenu"
APPINDICATOR_UUIDS = ("ubuntu-appindicators@ubuntu.com", "appindicatorsupport@rgcjonas.gmail.com")
SLOWDOWN = float(os.environ.get("INTERVALD_TEST_SLOWDOWN", "1"))


class HostTimeout(AssertionError):
    pass


def wait_until(predicate, timeout, what, log=None):
    """Polls `predicate` until it returns a truthy value; raises HostTimeout after `timeout` seconds."""
    deadline = time.monotonic() + timeout * SLOWDOWN
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            tail = ""
            if log and Path(log).exists():
                tail = "\n--- last lines of %s ---\n%s" % (log, "\n".join(Path(log).read_text(errors="replace")
                                                                      .splitlines()[-15:]))
            raise HostTimeout(f"timed out after {timeout * SLOWDOWN:g} s waiting for {what}{tail}")
        time.sleep(0.05)


def _missing(*tools):
    absent = [tool for tool in tools if not (shutil.which(tool) or os.path.exists(tool))]
    return f"needs {', '.join(absent)}" if absent else None


def _host(available):
    """Makes a generator into a context manager with an `available()` function (None or a skip reason)."""
    def wrap(generator):
        manager = contextlib.contextmanager(generator)
        manager.available = available
        manager.__doc__ = generator.__doc__
        return manager
    return wrap


class Processes:
    """Processes started for a host, each in a process group of its own, ended (group and all) in reverse order."""

    def __init__(self):
        self.started = []

    def start(self, argv, env, log, **options):
        options.setdefault("stderr", subprocess.STDOUT)
        with open(log, "ab") as out:
            process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, start_new_session=True,
                                       **options)
        self.started.append(process)
        return process

    def close(self):
        for process in reversed(self.started):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            # What the leader left in its group (kded5's kconf_update helpers).
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        self.started.clear()


# --- D-Bus -----------------------------------------------------------------------------------------------------------

def busctl(env, *args, timeout=10, check=True):
    result = subprocess.run(["busctl", "--user", *args], capture_output=True, text=True, env=env, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"busctl {' '.join(args)} failed: {result.stderr.strip()}")
    return result


def bus_json(env, *args, check=False):
    """A `busctl --json=short` answer's data, or None when the call failed (and check is false)."""
    result = busctl(env, "--json=short", *args, check=check)
    return json.loads(result.stdout)["data"] if result.returncode == 0 and result.stdout.strip() else None


def name_owned(env, name):
    return bus_json(env, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "NameHasOwner", "s", name) == [True]


def registered_items(env):
    """The watcher's RegisteredStatusNotifierItems (each "busname/path", or a bus name alone), [] without a watcher."""
    return bus_json(env, "get-property", WATCHER, WATCHER_PATH, WATCHER, "RegisteredStatusNotifierItems") or []


def split_item(entry):
    """(bus name, object path) of a RegisteredStatusNotifierItems entry."""
    if "/" in entry:
        name, _, path = entry.partition("/")
        return name, "/" + path
    return entry, "/StatusNotifierItem"


def item_property(env, service, path, name):
    return bus_json(env, "get-property", service, path, ITEM_INTERFACE, name)


def find_item(env, item_id):
    """(bus name, path) of the registered item whose Id is `item_id`, or None."""
    for entry in registered_items(env):
        service, path = split_item(entry)
        if item_property(env, service, path, "Id") == item_id:
            return service, path
    return None


def menu_layout(env, service, menu_path):
    """The item menu's top-level entries: [{"id", "label" (mnemonic underscores removed), "type", "visible",
    "enabled"}], as the menu answers GetLayout."""
    data = bus_json(env, "call", service, menu_path, MENU_INTERFACE, "GetLayout", "iias", "0", "10", "0", check=True)
    entries = []
    for child in data[1][2]:
        item_id, props, _ = child["data"]
        value = {key: prop["data"] for key, prop in props.items()}
        entries.append({"id": item_id, "label": re.sub(r"_(.)", r"\1", value.get("label", "")),
                        "type": value.get("type", "standard"), "visible": value.get("visible", True),
                        "enabled": value.get("enabled", True)})
    return entries


class BusRecorder:
    """Records, with `busctl monitor`, the calls hosts make to tray items: property reads of the item interface and
    every dbusmenu call (GetLayout, AboutToShow(Group), Event(Group))."""

    MATCHES = (f"type='method_call',interface='org.freedesktop.DBus.Properties',arg0='{ITEM_INTERFACE}'",
               f"type='method_call',interface='{ITEM_INTERFACE}'",
               f"type='method_call',interface='{MENU_INTERFACE}'")

    def __init__(self, env):
        self.messages = []
        self.lock = threading.Lock()
        argv = ["busctl", "--user", "monitor", "--json=short"]
        for match in self.MATCHES:
            argv += ["--match", match]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                        start_new_session=True)
        wait_until(lambda: self.process.stderr.readline().startswith("Monitoring") or self.process.poll() is not None,
                   10, "busctl monitor")
        if self.process.poll() is not None:
            raise AssertionError("busctl monitor could not monitor the bus")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            if line.startswith("{"):
                with self.lock:
                    self.messages.append(json.loads(line))

    def calls(self, member=None):
        with self.lock:
            return [m for m in self.messages if member is None or m.get("member") == member]

    def property_reads(self):
        """(sender, member, property or None) of each Get/GetAll of the item interface."""
        reads = []
        for m in self.calls():
            if m.get("interface") == "org.freedesktop.DBus.Properties":
                data = m.get("payload", {}).get("data", [])
                reads.append((m.get("sender"), m["member"], data[1] if m["member"] == "Get" else None))
        return reads

    def menu_events(self):
        """(dbusmenu item id, event id) of each event hosts sent, EventGroup entries included, in order."""
        events = []
        for m in self.calls():
            if m.get("interface") != MENU_INTERFACE:
                continue
            data = m.get("payload", {}).get("data", [])
            if m["member"] == "Event":
                events.append((data[0], data[1]))
            elif m["member"] == "EventGroup":
                events.extend((entry[0], entry[1]) for entry in data[0])
        return events

    def close(self):
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        self.process.wait(timeout=5)


class TrayHost:
    """What every host offers; subclasses fill in showing and clicking."""

    name = "tray host"

    def __init__(self, env, tmp_dir):
        self.env = dict(env)
        self.tmp = Path(tmp_dir)
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.processes = Processes()
        self.recorder = None
        self.log = None

    def start_recording(self):
        self.recorder = BusRecorder(self.env)

    def registered_items(self):
        return registered_items(self.env)

    def wait_for_item(self, item_id="intervald", timeout=10):
        """(bus name, path) of the item once the watcher lists it."""
        return wait_until(lambda: find_item(self.env, item_id), timeout,
                          f"the watcher to list an item with Id {item_id!r} (registered: {self.registered_items()})")

    def menu_of(self, item_id):
        service, path = self.wait_for_item(item_id)
        menu_path = item_property(self.env, service, path, "Menu")
        if not menu_path or menu_path == "/":
            raise AssertionError(f"item {item_id!r} has no Menu")
        return service, menu_path, menu_layout(self.env, service, menu_path)

    def menu_entry(self, item_id, label):
        _, _, layout = self.menu_of(item_id)
        shown = [e for e in layout if e["visible"]]
        for index, entry in enumerate(shown):
            if entry["label"] == label:
                return entry, index, shown
        raise AssertionError(f"no menu item {label!r} in {[e['label'] for e in shown]}")

    def menu_events(self):
        return self.recorder.menu_events() if self.recorder else []

    def wait_for_click(self, entry, before, timeout=10):
        """Waits until a host sent `clicked` for the dbusmenu entry, after the first `before` recorded events."""
        return wait_until(lambda: (entry["id"], "clicked") in self.menu_events()[before:], timeout,
                          f"{self.name} to send the menu's Event 'clicked' for {entry['label']!r} (id {entry['id']})"
                          f" (events seen: {self.menu_events()})", self.log)

    def host_read_properties(self):
        return bool(self.recorder and self.recorder.property_reads())

    def close(self):
        if self.recorder:
            self.recorder.close()
        self.processes.close()


# --- X11 helpers (Plasma, Xfce) --------------------------------------------------------------------------------------

def x_windows(env):
    """Top-level X windows, topmost first: dicts with id, name, width, height, x, y (from `xwininfo -root -tree`)."""
    out = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True, env=env, timeout=10).stdout
    windows = []
    for line in out.splitlines():
        m = re.match(r"^     (0x[0-9a-f]+) (?:\"(.*?)\"|\(has no name\)).*?\s(\d+)x(\d+)\+(-?\d+)\+(-?\d+)\s", line)
        if m:
            windows.append({"id": m[1], "name": m[2] or "", "width": int(m[3]), "height": int(m[4]),
                            "x": int(m[5]), "y": int(m[6])})
    return windows


def x_viewable(env, window_id):
    out = subprocess.run(["xwininfo", "-id", window_id], capture_output=True, text=True, env=env, timeout=10).stdout
    return "IsViewable" in out


def icon_boxes(image, min_size=12, fuzz="10%"):
    """Bounding boxes (x, y, w, h) of the blobs that differ from the picture's top-left pixel colour (the background),
    at least `min_size` pixels wide and high, left to right: where a tray draws its icons."""
    background = subprocess.run(["convert", str(image), "-format", "%[pixel:p{0,0}]", "info:"], capture_output=True,
                                text=True, check=True, timeout=20).stdout.strip()
    out = subprocess.run(["convert", str(image), "-alpha", "off", "-fuzz", fuzz, "-fill", "black", "-opaque",
                          background, "-fill", "white", "+opaque", "black", "-define",
                          "connected-components:verbose=true", "-connected-components", "8", "null:"],
                         capture_output=True, text=True, check=True, timeout=20).stdout
    boxes = []
    for line in out.splitlines():
        m = re.match(r"\s*\d+: (\d+)x(\d+)\+(\d+)\+(\d+) \S+ \d+ (\S+)", line)
        if m and m[5] in ("srgb(255,255,255)", "gray(255)", "white"):
            w, h, x, y = map(int, m.groups()[:4])
            if w >= min_size and h >= min_size:
                boxes.append((x, y, w, h))
    return sorted(boxes)


def saturation(image, box):
    """The highest colour saturation (0 to 1) within `box` (x, y, w, h) of the picture."""
    x, y, w, h = box
    out = subprocess.run(["convert", str(image), "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-colorspace", "HSL",
                          "-channel", "G", "-separate", "-format", "%[fx:maxima]", "info:"],
                         capture_output=True, text=True, check=True, timeout=20).stdout.strip()
    return float(out or 0)


def image_difference_box(before, after):
    """The bounding box (x, y, w, h) of what changed between two pictures of the same size, or None."""
    out = subprocess.run(["convert", str(before), str(after), "-compose", "difference", "-composite",
                          "-threshold", "3%", "-format", "%@", "info:"],
                         capture_output=True, text=True, check=True, timeout=20).stdout.strip()
    m = re.match(r"(\d+)x(\d+)\+(\d+)\+(\d+)", out)
    if not m or int(m[1]) <= 1 or int(m[2]) <= 1:
        return None
    w, h, x, y = map(int, m.groups())
    return x, y, w, h


def row_centre(box, index, count):
    """Where to click the `index`-th of `count` equally high menu rows filling `box` (no separators)."""
    x, y, w, h = box
    return x + w // 2, y + int(h * (index + 0.5) / count)


class X11Host(TrayHost):
    """A host drawing on the test's X screen (DISPLAY), clicked with xdotool."""

    def tray_window(self):
        raise NotImplementedError

    def screenshot(self, path, crop=None):
        argv = ["import", "-window", "root"]
        if crop:
            x, y, w, h = crop
            argv += ["-crop", f"{w}x{h}+{x}+{y}", "+repage"]
        subprocess.run([*argv, str(path)], env=self.env, check=True, timeout=20)
        return Path(path)

    def item_box(self):
        """The icon's box on the screen, or None: the one blob drawn in the tray window (raises if several)."""
        window = self.tray_window()
        if not window:
            return None
        shot = self.screenshot(self.tmp / "tray-window.png",
                               (window["x"], window["y"], window["width"], window["height"]))
        # Besides the item: a notification or a tooltip over the panel (not a square of an icon's size), and Plasma's
        # own entries (its media controller's grey play icon): the item's icon is the square one in colour.
        boxes = [box for box in icon_boxes(shot) if box[2] <= 64 and box[3] <= 64 and abs(box[2] - box[3]) <= 2]
        if len(boxes) > 1:
            boxes = [box for box in boxes if saturation(shot, box) > 0.5]
        if len(boxes) > 1:
            raise AssertionError(f"{self.name} draws {len(boxes)} icons in colour {boxes}; expected only the item")
        if not boxes:
            return None
        x, y, w, h = boxes[0]
        return window["x"] + x, window["y"] + y, w, h

    def wait_until_shown(self, item_id="intervald", timeout=20):
        """Waits until the watcher lists the item, the host has read its properties and its icon is drawn; returns
        {"service", "path", "box"} (box: the icon on the screen)."""
        service, path = self.wait_for_item(item_id, timeout)
        wait_until(self.host_read_properties, timeout, f"{self.name} to read the item's properties", self.log)
        box = wait_until(self.item_box, timeout, f"{self.name} to draw the item's icon", self.log)
        return {"service": service, "path": path, "box": box}

    def xdotool(self, *args):
        subprocess.run(["xdotool", *map(str, args)], env=self.env, check=True, timeout=10)

    def hover_screenshot(self, path, item_id="intervald", timeout=10):
        """Rests the pointer on the icon until the host shows its tooltip (Title/ToolTip), then takes a screenshot
        of the screen; returns the tooltip window's box."""
        x, y, w, h = self.wait_until_shown(item_id)["box"]
        before = {win["id"] for win in x_windows(self.env) if x_viewable(self.env, win["id"])}
        self.xdotool("mousemove", x + w // 2 - 1, y + h // 2)
        self.xdotool("mousemove", x + w // 2, y + h // 2)
        tip = wait_until(lambda: next((win for win in x_windows(self.env) if win["id"] not in before
                                       and win["width"] > 20 and x_viewable(self.env, win["id"])), None),
                         timeout, f"{self.name} to show the item's tooltip", self.log)
        self.screenshot(path)
        return tip["x"], tip["y"], tip["width"], tip["height"]

    def press_menu_item(self, label, item_id="intervald", timeout=10):
        """Right-clicks the icon, waits for the host's menu window and clicks the row of `label` (equal rows: the
        menu must have no separators); returns once the host sent `clicked` for it."""
        entry, index, shown = self.menu_entry(item_id, label)
        if any(e["type"] == "separator" for e in shown):
            raise AssertionError("press_menu_item clicks rows of equal height: the menu has separators")
        x, y, w, h = self.wait_until_shown(item_id)["box"]
        before_events = len(self.menu_events())
        before = {win["id"] for win in x_windows(self.env) if x_viewable(self.env, win["id"])}
        self.xdotool("mousemove", x + w // 2, y + h // 2, "click", 3)
        min_height = 18 * len(shown)  # a tooltip may appear too; it is lower than the menu

        def menu_window():
            return next((win for win in x_windows(self.env) if win["id"] not in before and
                         win["height"] >= min_height and x_viewable(self.env, win["id"])), None)
        menu = wait_until(menu_window, timeout, f"{self.name} to open the item's menu", self.log)
        cx, cy = row_centre((menu["x"], menu["y"], menu["width"], menu["height"]), index, len(shown))
        self.xdotool("mousemove", cx, cy)
        self.xdotool("click", 1)
        self.wait_for_click(entry, before_events, timeout)
        return menu


# --- kded5's watcher and Plasma's system tray ------------------------------------------------------------------------

def _kde_env(env, tmp):
    home = tmp / "home"
    for sub in ("config", "data", "cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    # kded5 runs kconf_update at start and waits up to 30 s for it; its krunnerhistory script waits for an activity
    # manager forever. Marking every update file as already seen (its mtime, as kconf_update records it) skips them.
    updates = sorted(Path("/usr/share/kconf_update").glob("*.upd"))
    (home / "config" / "kconf_updaterc").write_text("".join(
        f"[{upd.name}]\nmtime={int(upd.stat().st_mtime)}\n" for upd in updates))
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"), "QT_QPA_PLATFORM": "xcb", "KDE_FULL_SESSION": "",
            "QT_LOGGING_RULES": "kf.solid*=false"}


def _start_watcher(host, env):
    """kded5 with its statusnotifierwatcher module loaded (kded5 does not autoload it outside a Plasma session)."""
    if name_owned(env, WATCHER):
        raise AssertionError(f"{WATCHER} is already owned on this bus")
    host.kded = host.processes.start(["kded5"], env, host.tmp / "kded5.log")
    wait_until(lambda: name_owned(env, "org.kde.kded5") or host.kded.poll() is not None, 20, "kded5 on the bus",
               host.tmp / "kded5.log")
    if host.kded.poll() is not None:
        raise AssertionError(f"kded5 exited: {(host.tmp / 'kded5.log').read_text()}")
    loaded = bus_json(env, "call", "org.kde.kded5", "/kded", "org.kde.kded5", "loadModule", "s",
                      "statusnotifierwatcher", check=True)
    if loaded != [True]:
        raise AssertionError("kded5 could not load statusnotifierwatcher")
    wait_until(lambda: name_owned(env, WATCHER), 10, f"kded5 to own {WATCHER}", host.tmp / "kded5.log")


class KdedWatcher(TrayHost):
    name = "kded5's statusnotifierwatcher"


@_host(lambda: _missing("kded5", "busctl"))
def statusnotifierwatcher(env=None, tmp_dir=None):
    """kded5 owning org.kde.StatusNotifierWatcher (no host drawing anything): `registered_items()`,
    `wait_for_item(item_id)`."""
    env = dict(env or os.environ)
    with tempfile.TemporaryDirectory(prefix="kded-") as scratch:
        host = KdedWatcher(env, Path(tmp_dir or scratch))
        host.env = _kde_env(env, host.tmp)
        host.log = host.tmp / "kded5.log"
        try:
            _start_watcher(host, host.env)
            host.start_recording()
            yield host
        finally:
            host.close()


class PlasmaSystemTray(X11Host):
    name = "Plasma's system tray"

    def tray_window(self):
        return next((w for w in x_windows(self.env) if w["name"] == "System Tray" and w["width"] > 20
                     and x_viewable(self.env, w["id"])), None)


@_host(lambda: _missing("kded5", "plasmawindowed", "xdotool", "xwininfo", "import", "convert", "busctl")
       or (None if os.environ.get("DISPLAY") else "needs an X display (scripts/test-desktop)"))
def plasma_systemtray(env=None, tmp_dir=None):
    """`plasmawindowed org.kde.plasma.systemtray` on DISPLAY, with kded5's watcher, on the test's session bus.
    Plasma also asks for org.freedesktop.Notifications (its tray embeds the notifications applet); with dunst
    running it does not get it."""
    env = dict(env or os.environ)
    with tempfile.TemporaryDirectory(prefix="plasma-tray-") as scratch:
        host = PlasmaSystemTray(env, Path(tmp_dir or scratch))
        host.env = _kde_env(env, host.tmp)
        host.log = host.tmp / "plasmawindowed.log"
        try:
            _start_watcher(host, host.env)
            host.start_recording()
            host.plasma = host.processes.start(["plasmawindowed", "org.kde.plasma.systemtray"], host.env, host.log)
            wait_until(lambda: name_owned(host.env, f"org.kde.StatusNotifierHost-{host.plasma.pid}")
                       or host.plasma.poll() is not None, 30, "plasmawindowed's StatusNotifierHost", host.log)
            if host.plasma.poll() is not None:
                raise AssertionError(f"plasmawindowed exited: {host.log.read_text()[-2000:]}")
            wait_until(host.tray_window, 30, "the System Tray window", host.log)
            yield host
        finally:
            host.close()


# --- Xfce's panel ----------------------------------------------------------------------------------------------------

XFCONFD = next((p for p in ("/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd", "/usr/lib/xfce4/xfconf/xfconfd",
                            "/usr/libexec/xfconfd") if os.path.exists(p)), "xfconfd")

XFCE_PANEL_XML = """<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
"""


class XfcePanel(X11Host):
    name = "Xfce's panel (systray plugin)"

    def tray_window(self):
        return next((w for w in x_windows(self.env) if w["name"] == "xfce4-panel" and w["width"] > 100
                     and x_viewable(self.env, w["id"])), None)


@_host(lambda: _missing("xfce4-panel", XFCONFD, "xdotool", "xwininfo", "import", "convert", "busctl")
       or (None if os.environ.get("DISPLAY") else "needs an X display (scripts/test-desktop)"))
def xfce4_panel(env=None, tmp_dir=None):
    """xfce4-panel with one panel holding the systray plugin (which owns the watcher and hosts SNI items), its
    settings in a temporary XDG_CONFIG_HOME served by an xfconfd of its own."""
    env = dict(env or os.environ)
    with tempfile.TemporaryDirectory(prefix="xfce-panel-") as scratch:
        host = XfcePanel(env, Path(tmp_dir or scratch))
        config = host.tmp / "config"
        channel = config / "xfce4" / "xfconf" / "xfce-perchannel-xml"
        channel.mkdir(parents=True, exist_ok=True)
        (channel / "xfce4-panel.xml").write_text(XFCE_PANEL_XML)
        (host.tmp / "home").mkdir(exist_ok=True)
        host.env = {**env, "XDG_CONFIG_HOME": str(config), "HOME": str(host.tmp / "home"), "SESSION_MANAGER": ""}
        host.log = host.tmp / "xfce4-panel.log"
        try:
            if name_owned(host.env, WATCHER) or name_owned(host.env, "org.xfce.Xfconf"):
                raise AssertionError(f"{WATCHER} or org.xfce.Xfconf is already owned on this bus")
            host.start_recording()
            xfconfd = host.processes.start([XFCONFD], host.env, host.tmp / "xfconfd.log")
            wait_until(lambda: name_owned(host.env, "org.xfce.Xfconf") or xfconfd.poll() is not None, 10,
                       "xfconfd", host.tmp / "xfconfd.log")
            panel = host.processes.start(["xfce4-panel", "--disable-wm-check"], host.env, host.log)
            wait_until(lambda: name_owned(host.env, WATCHER) or panel.poll() is not None, 30,
                       f"the systray plugin to own {WATCHER}", host.log)
            if panel.poll() is not None:
                raise AssertionError(f"xfce4-panel exited: {host.log.read_text()[-2000:]}")
            wait_until(host.tray_window, 20, "the panel window", host.log)
            yield host
        finally:
            host.close()


# --- waybar in a headless sway -----------------------------------------------------------------------------------------

class WaylandPointer:
    """A pointer device in a wlroots compositor, over the raw Wayland wire protocol (zwlr_virtual_pointer_v1)."""

    def __init__(self, socket_path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(socket_path))
        self.last_id, self.buffer, self.globals = 1, b"", {}
        registry = self._new_id()
        self._send(1, 1, struct.pack("<I", registry))  # wl_display.get_registry
        self._roundtrip(registry)
        if "zwlr_virtual_pointer_manager_v1" not in self.globals:
            raise AssertionError("the compositor offers no zwlr_virtual_pointer_manager_v1")
        name = self.globals["zwlr_virtual_pointer_manager_v1"]
        manager = self._new_id()
        interface = b"zwlr_virtual_pointer_manager_v1\0"
        interface += b"\0" * (-len(interface) % 4)
        self._send(registry, 0, struct.pack("<II", name, len(b"zwlr_virtual_pointer_manager_v1\0")) + interface
                   + struct.pack("<II", 1, manager))  # wl_registry.bind
        self.pointer = self._new_id()
        self._send(manager, 0, struct.pack("<II", 0, self.pointer))  # create_virtual_pointer(default seat)
        self._roundtrip(registry)

    def _new_id(self):
        self.last_id += 1
        return self.last_id

    def _send(self, obj, opcode, payload=b""):
        self.sock.sendall(struct.pack("<II", obj, ((8 + len(payload)) << 16) | opcode) + payload)

    def _roundtrip(self, registry=None):
        done = self._new_id()
        self._send(1, 0, struct.pack("<I", done))  # wl_display.sync
        while True:
            while len(self.buffer) < 8 or len(self.buffer) < struct.unpack_from("<I", self.buffer, 4)[0] >> 16:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise AssertionError("the compositor closed the Wayland connection")
                self.buffer += chunk
            obj, word = struct.unpack_from("<II", self.buffer)
            size, opcode = word >> 16, word & 0xFFFF
            body, self.buffer = self.buffer[8:size], self.buffer[size:]
            if obj == registry and opcode == 0:  # wl_registry.global
                name, length = struct.unpack_from("<II", body)
                self.globals[body[8:8 + length - 1].decode()] = name
            elif obj == 1 and opcode == 0:  # wl_display.error
                _, code, length = struct.unpack_from("<III", body)
                raise AssertionError(f"Wayland error {code}: {body[12:12 + length - 1].decode()}")
            elif obj == done:
                return

    @staticmethod
    def _now():
        return int(time.monotonic() * 1000) & 0xFFFFFFFF

    def move(self, x, y, width, height):
        """Moves to (x, y) of a width×height layout."""
        self._send(self.pointer, 1, struct.pack("<IIIII", self._now(), x, y, width, height))  # motion_absolute
        self._send(self.pointer, 4)  # frame
        self._roundtrip()

    def click(self, x, y, width, height, button=0x110):
        """Moves to (x, y) of a width×height layout and clicks `button` (BTN_LEFT 0x110, BTN_RIGHT 0x111)."""
        self.move(x, y, width, height)
        for state in (1, 0):
            self._send(self.pointer, 2, struct.pack("<III", self._now(), button, state))  # button
            self._send(self.pointer, 4)
            self._roundtrip()

    def close(self):
        with contextlib.suppress(OSError):
            self._send(self.pointer, 8)  # destroy
        self.sock.close()


class WaybarInSway(TrayHost):
    name = "waybar's tray (in sway)"
    WIDTH, HEIGHT, BAR = 1024, 600, 30

    def wayland_env(self):
        return {**self.env, "XDG_RUNTIME_DIR": str(self.runtime), "WAYLAND_DISPLAY": self.wayland_display}

    def screenshot(self, path, crop=None):
        x, y, w, h = crop or (0, 0, self.WIDTH, self.HEIGHT)
        subprocess.run(["grim", "-g", f"{x},{y} {w}x{h}", str(path)], env=self.wayland_env(), check=True, timeout=20)
        return Path(path)

    def trace(self):
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def item_trace(self, item_id):
        """What waybar's trace log says it read of the item with Id `item_id`: {property: last value as logged}."""
        text = self.trace()
        service = next(iter(re.findall(rf"Set tray item property: (\S+)\.Id = '{re.escape(item_id)}'", text)), None)
        if service is None:
            return {}
        props = {}
        for owner, prop, value in re.findall(r"Set tray item property: (\S+?)\.(\w+) = (.*)", text):
            if owner in (service, item_id):
                props[prop] = value[1:-1] if value.startswith("'") and value.endswith("'") else value
        return props

    def item_box(self):
        boxes = icon_boxes(self.screenshot(self.tmp / "bar.png", (0, 0, self.WIDTH, self.BAR)))
        if len(boxes) > 1:
            raise AssertionError(f"waybar draws {len(boxes)} icons {boxes}; expected only the test's item")
        return boxes[0] if boxes else None

    def wait_until_shown(self, item_id="intervald", timeout=20, title=None):
        """Waits until waybar's trace shows it read the item (its Id and Title; `title`, a regex, must match the
        Title if given) and the bar draws its icon; returns {"properties" (as traced), "box"}."""
        def traced():
            props = self.item_trace(item_id)
            if "Title" in props and (title is None or re.search(title, props["Title"])):
                return props
            return None
        props = wait_until(traced, timeout, f"waybar's trace to show the item {item_id!r}'s Title"
                           + (f" matching {title!r}" if title else ""), self.log)
        box = wait_until(self.item_box, timeout, "waybar to draw the item's icon", self.log)
        return {"properties": props, "box": box}

    def press_menu_item(self, label, item_id="intervald", timeout=10):
        """Right-clicks the icon with a virtual pointer, finds the menu popup on a screenshot (what changed) and
        clicks the row of `label`; returns once waybar sent `clicked` for it."""
        entry, index, shown = self.menu_entry(item_id, label)
        if any(e["type"] == "separator" for e in shown):
            raise AssertionError("press_menu_item clicks rows of equal height: the menu has separators")
        x, y, w, h = self.wait_until_shown(item_id)["box"]
        before_events = len(self.menu_events())
        # The pointer is drawn: put it on the icon first, and take the picture to compare with once it is there.
        self.pointer.move(x + w // 2, y + h // 2, self.WIDTH, self.HEIGHT)
        shots = []

        def still():
            shots.append(self.screenshot(self.tmp / f"before-menu-{len(shots) % 2}.png").read_bytes())
            return len(shots) > 1 and shots[-1] == shots[-2]
        wait_until(still, timeout, "the screen to settle with the pointer on the icon", self.log)
        before = self.tmp / "before-menu.png"
        before.write_bytes(shots[-1])
        self.pointer.click(x + w // 2, y + h // 2, self.WIDTH, self.HEIGHT, button=0x111)
        min_height = 18 * len(shown)

        boxes = []

        def menu_box():  # what changed, once the popup has stopped changing (it fades in)
            boxes.append(image_difference_box(before, self.screenshot(self.tmp / "menu.png")))
            box = boxes[-1]
            return box if box and box[3] >= min_height and len(boxes) > 1 and boxes[-2] == box else None
        box = wait_until(menu_box, timeout, f"waybar to open the item's menu (changed: {boxes[-3:]})", self.log)
        cx, cy = row_centre(box, index, len(shown))
        self.pointer.click(cx, cy, self.WIDTH, self.HEIGHT)
        self.wait_for_click(entry, before_events, timeout)
        return box

    def close(self):
        if getattr(self, "pointer", None):
            self.pointer.close()
        super().close()


def _sway_user():
    """sway refuses to run as root: as root, run it as `nobody`."""
    if os.geteuid() != 0:
        return None
    return pwd.getpwnam("nobody")


@_host(lambda: _missing("sway", "waybar", "grim", "convert", "busctl")
       or (_missing("setpriv") if os.geteuid() == 0 else None))
def waybar_in_sway(env=None, tmp_dir=None, modules=("tray",)):
    """A headless sway (pixman renderer, no input devices, its own runtime directory) and waybar with only
    `modules` (Debian's waybar has no mpris), logging at trace level, on the test's session bus."""
    env = dict(env or os.environ)
    with tempfile.TemporaryDirectory(prefix="waybar-") as scratch:
        host = WaybarInSway(env, Path(tmp_dir or scratch))
        host.log = host.tmp / "waybar.log"
        user = _sway_user()
        # sway's directory must be its user's: not under a 0700 pytest directory of root's.
        sway_dir = Path(tempfile.mkdtemp(prefix="intervald-sway-"))
        try:
            host.runtime = sway_dir / "runtime"
            host.runtime.mkdir(mode=0o700)
            (sway_dir / "sway.conf").write_text(
                f"output HEADLESS-1 resolution {host.WIDTH}x{host.HEIGHT} position 0 0\n"
                "xwayland disable\n"
                "default_border none\n")
            if user:
                for path in (sway_dir, host.runtime, sway_dir / "sway.conf"):
                    os.chown(path, user.pw_uid, user.pw_gid)
                sway_dir.chmod(0o755)
            sway_env = {key: value for key, value in env.items()
                        if key not in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "SWAYSOCK")}
            sway_env.update({"XDG_RUNTIME_DIR": str(host.runtime), "HOME": str(sway_dir), "WLR_BACKENDS": "headless",
                             "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"})
            argv = ["sway", "-c", str(sway_dir / "sway.conf")]
            if user:
                argv = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", *argv]
            sway_log = host.tmp / "sway.log"
            sway = host.processes.start(argv, sway_env, sway_log)
            socket_path = wait_until(
                lambda: sway.poll() is not None or next((p for p in host.runtime.glob("wayland-*")
                                                         if not p.name.endswith(".lock")), None),
                20, "sway's Wayland socket", sway_log)
            if sway.poll() is not None:
                raise AssertionError(f"sway exited: {sway_log.read_text()[-2000:]}")
            host.wayland_display = socket_path.name
            ipc = wait_until(lambda: next(host.runtime.glob("sway-ipc.*.sock"), None), 10, "sway's IPC socket",
                             sway_log)
            host.swaysock = str(ipc)
            config = host.tmp / "waybar.json"
            config.write_text(json.dumps({"layer": "top", "position": "top", "height": host.BAR,
                                          "modules-right": list(modules),
                                          "tray": {"icon-size": 22, "spacing": 6}}))
            style = host.tmp / "waybar.css"
            style.write_text("* { font-family: 'DejaVu Sans'; font-size: 13px; min-height: 0; }\n"
                             "window#waybar { background: #2e3440; color: #eceff4; }\n")
            host.start_recording()
            waybar = host.processes.start(["waybar", "-c", str(config), "-s", str(style), "-l", "trace"],
                                          {**host.wayland_env(), "SWAYSOCK": host.swaysock}, host.log)
            wait_until(lambda: "Bar configured" in host.trace() or waybar.poll() is not None, 20,
                       "waybar's bar", host.log)
            if waybar.poll() is not None:
                raise AssertionError(f"waybar exited: {host.trace()[-2000:]}")
            wait_until(lambda: name_owned(host.env, WATCHER), 10, f"waybar's tray to own {WATCHER}", host.log)
            host.pointer = WaylandPointer(socket_path)
            yield host
        finally:
            host.close()
            shutil.rmtree(sway_dir, ignore_errors=True)


# --- GNOME Shell with the AppIndicator extension ---------------------------------------------------------------------

def _appindicator_uuid():
    for base in (Path.home() / ".local/share/gnome-shell/extensions", Path("/usr/share/gnome-shell/extensions")):
        for uuid in APPINDICATOR_UUIDS:
            if (base / uuid / "metadata.json").exists():
                return uuid
    return None


INDICATOR = ("(id => Object.entries(Main.panel.statusArea).map(([k, v]) => v)"
             ".find(v => v && v._indicator && v._indicator.id === id))")


class GnomeShellAppIndicator(TrayHost):
    name = "GNOME Shell's AppIndicator extension"

    def eval(self, script):
        """The value of `script` in the Shell (JSON-decoded), or None when it cannot answer; raises on a JS error."""
        result = busctl(self.env, "--json=short", "call", "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell",
                        "Eval", "s", script, check=False, timeout=20)
        if result.returncode != 0:
            return None
        ok, value = json.loads(result.stdout)["data"]
        if not ok:
            raise AssertionError(f"Eval failed: {value}\n{script}")
        return json.loads(value) if value else None

    def indicator(self, item_id="intervald"):
        """What the top bar shows of the item: {label (XAyatanaLabel as drawn, or None), title, icon (an icon is
        set and drawn), visible, box [x, y, w, h], menu [item labels]}, or None."""
        return self.eval(
            f"(b => b ? {{label: b._label ? b._label.get_text() : null, title: b._indicator.title, "
            f"icon: !!(b._icon && b._icon.gicon && b._icon.is_mapped()), visible: b.visible && b.is_mapped(), "
            f"box: [...b.get_transformed_position(), ...b.get_transformed_size()].map(Math.round), "
            f"menu: b.menu._getMenuItems().map(i => i.label ? i.label.get_text() : null)}} : null)"
            f"({INDICATOR}({json.dumps(item_id)}))")

    def wait_until_shown(self, item_id="intervald", timeout=20, label=None):
        """Waits until the top bar shows the item, mapped, with its icon (and `label`, a regex, matching the drawn
        XAyatanaLabel if given); returns `indicator()`."""
        def shown():
            view = self.indicator(item_id)
            if view and view["visible"] and view["icon"] and (label is None or re.search(label, view["label"] or "")):
                return view
            return None
        return wait_until(shown, timeout, f"the top bar to show the item {item_id!r}"
                          + (f" with a label matching {label!r}" if label else "")
                          + f" (now: {self.indicator(item_id)})", self.log)

    def click(self, x, y, button=1):
        """A click at (x, y) through a Clutter virtual pointer: the Shell's own input path."""
        self.eval("(() => { const Clutter = imports.gi.Clutter, GLib = imports.gi.GLib;"
                  " global._intervaldTestPointer = global._intervaldTestPointer || Clutter.get_default_backend()"
                  ".get_default_seat().create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);"
                  " const p = global._intervaldTestPointer, t = GLib.get_monotonic_time();"
                  f" p.notify_absolute_motion(t, {x}, {y});"
                  f" p.notify_button(t + 1000, {button}, Clutter.ButtonState.PRESSED);"
                  f" p.notify_button(t + 2000, {button}, Clutter.ButtonState.RELEASED); return true; }})()")

    def press_menu_item(self, label, item_id="intervald", timeout=10):
        """Right-clicks the indicator, waits for its menu to open and clicks the item labelled `label`; returns once
        the extension sent `clicked` for it."""
        entry, _, _ = self.menu_entry(item_id, label)
        x, y, w, h = self.wait_until_shown(item_id)["box"]
        before_events = len(self.menu_events())
        self.click(x + w // 2, y + h // 2, button=3)
        find = (f"(b => {{ const i = b && b.menu.isOpen && b.menu.actor.opacity === 255 && "
                f"b.menu._getMenuItems().find(i => i.label && i.label.get_text() === {json.dumps(label)} && "
                f"i.is_mapped()); return i ? "
                f"[...i.get_transformed_position(), ...i.get_transformed_size()].map(Math.round) : null; }})"
                f"({INDICATOR}({json.dumps(item_id)}))")
        seen = []

        def settled():  # the menu slides in: click once the item stays where it is
            seen.append(self.eval(find))
            return seen[-1] if len(seen) > 2 and seen[-1] and seen[-1] == seen[-2] == seen[-3] else None
        ix, iy, iw, ih = wait_until(settled, timeout, f"the indicator's menu to show {label!r} (at {seen[-3:]})",
                                    self.log)
        self.click(ix + iw // 2, iy + ih // 2)
        self.wait_for_click(entry, before_events, timeout)

    def screenshot(self, path, crop=None):
        path = Path(path).resolve()
        if crop:
            x, y, w, h = crop
            busctl(self.env, "call", "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                   "org.gnome.Shell.Screenshot", "ScreenshotArea", "iiiibs", str(x), str(y), str(w), str(h), "false",
                   str(path), timeout=30)
        else:
            busctl(self.env, "call", "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                   "org.gnome.Shell.Screenshot", "Screenshot", "bbs", "false", "false", str(path), timeout=30)
        return path


@_host(lambda: _missing("gnome-shell", "dbus-daemon", "busctl")
       or (None if _appindicator_uuid() else "needs gnome-shell-extension-appindicator"))
def gnome_shell_appindicator(env=None, tmp_dir=None):
    """A headless GNOME Shell (Wayland, --unsafe-mode for Eval, a 1280x800 virtual monitor) on a session bus of its
    own (and a stand-in system bus), with the AppIndicator extension enabled through a keyfile GSettings backend in
    a temporary XDG_CONFIG_HOME. The item must run with `host.env` (the Shell's bus)."""
    env = dict(env or os.environ)
    uuid = _appindicator_uuid()
    with tempfile.TemporaryDirectory(prefix="gnome-shell-") as scratch:
        host = GnomeShellAppIndicator(env, Path(tmp_dir or scratch))
        tmp = host.tmp
        host.log = tmp / "gnome-shell.log"
        runtime = tmp / "runtime"
        runtime.mkdir(mode=0o700)
        for sub in ("home", "state", "config/glib-2.0/settings"):
            (tmp / sub).mkdir(parents=True, exist_ok=True)
        (tmp / "config/glib-2.0/settings/keyfile").write_text(
            f"[org/gnome/shell]\nenabled-extensions=['{uuid}']\ndisable-user-extensions=false\n")
        host.env = {**env, "XDG_RUNTIME_DIR": str(runtime), "HOME": str(tmp / "home"), "GSETTINGS_BACKEND": "keyfile",
                    "XDG_STATE_HOME": str(tmp / "state"), "XDG_CONFIG_HOME": str(tmp / "config")}
        host.env.pop("DISPLAY", None)
        try:
            for bus, variable in (("system", "DBUS_SYSTEM_BUS_ADDRESS"), ("session", "DBUS_SESSION_BUS_ADDRESS")):
                # Its address goes to a file: services it activates inherit its stdout and print to it.
                address = tmp / f"{bus}-bus.out"
                daemon = host.processes.start(["dbus-daemon", "--session", "--nofork", "--print-address",
                                               f"--address=unix:path={tmp / bus}.sock"], host.env, address,
                                              stderr=open(tmp / "dbus-daemon.log", "ab"))
                host.env[variable] = wait_until(lambda: address.read_text().partition("\n")[1]
                                                and address.read_text().partition("\n")[0], 10, f"the {bus} bus")
            shell = host.processes.start(["gnome-shell", "--headless", "--unsafe-mode", "--wayland", "--no-x11",
                                          "--virtual-monitor", "1280x800"], host.env, host.log)
            wait_until(lambda: shell.poll() is not None or host.eval("1 + 1") == 2, 60, "GNOME Shell's Eval",
                       host.log)
            if shell.poll() is not None:
                raise AssertionError(f"gnome-shell exited: {host.log.read_text()[-2000:]}")
            state = wait_until(lambda: host.eval(f"(e => e ? [e.state, String(e.error || '')] : null)"
                                                 f"(Main.extensionManager.lookup('{uuid}'))"), 20,
                               f"the Shell to know the extension {uuid}", host.log)
            if state[0] != 1:  # ExtensionState.ENABLED
                raise AssertionError(f"the extension {uuid} is not enabled: state {state[0]} {state[1]}")
            wait_until(lambda: name_owned(host.env, WATCHER), 10, f"the extension to own {WATCHER}", host.log)
            host.start_recording()
            yield host
        finally:
            host.close()

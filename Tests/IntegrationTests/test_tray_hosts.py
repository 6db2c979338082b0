"""The tray item (docs/reference.md §12) in the real hosts (tray_hosts.py): KDE's StatusNotifierWatcher (kded5),
Plasma's system tray, xfce4-panel, waybar in a headless sway and GNOME Shell with the AppIndicator extension. Each
shows the item with the time left, and its menu's Stop, clicked as a person would, ends the workout.

INTERVALD_TEST_SCREENSHOT_DIR=DIR keeps each host's picture (docs/tray-*.png)."""
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

import tray_hosts
from conftest import BIN, SERVICE, desktop_required, owns_name, wait_until

pytestmark = [desktop_required()]

PLAN = 'name "Galloway 30/30"\n8x(1m run, 1m walk)'


class Daemon:
    """intervald on the host's bus (GNOME Shell's is a bus of its own), with intervalctl to drive it."""

    def __init__(self, env, tmp_path):
        self.env = {**env, "XDG_STATE_HOME": str(tmp_path / "state")}
        config = tmp_path / "intervald.toml"
        config.write_text("[notifications]\nsound = false\n[sound]\nenabled = false\n")
        self.log = tmp_path / "intervald.log"
        self.process = subprocess.Popen([str(BIN / "intervald"), "--config", str(config), "--log-level", "debug"],
                                        env=self.env, stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        wait_until(self._owns_name, 10, "intervald's name on the host's bus")

    def _owns_name(self):
        assert self.process.poll() is None, f"intervald exited: {self.log.read_text()}"
        return owns_name(SERVICE, self.env)

    def ctl(self, *args):
        return subprocess.run([str(BIN / "intervalctl"), *args], capture_output=True, text=True,
                              timeout=20, env=self.env)

    def state(self):
        return json.loads(self.ctl("status", "--json").stdout)["state"]

    def item_service(self):
        return f"org.kde.StatusNotifierItem-{self.process.pid}-1"

    def close(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=10)


@pytest.fixture
def daemon_on(tmp_path):
    daemons = []

    def start(env):
        daemons.append(Daemon(env, tmp_path))
        return daemons[-1]

    yield start
    for daemon in daemons:
        daemon.close()


def keep_screenshot(host, name):
    directory = os.environ.get("INTERVALD_TEST_SCREENSHOT_DIR")
    path = host.screenshot(host.tmp / f"tray-{name}.png")
    assert path.stat().st_size > 0
    if directory:
        shutil.copy(path, Path(directory) / f"tray-{name}.png")


def skip_unless(host):
    reason = host.available()
    if reason:
        pytest.skip(reason)


def test_kdes_watcher_lists_the_item_again_when_it_appears_later_and_drops_it_at_the_end(tmp_path, daemon_on):
    skip_unless(tray_hosts.statusnotifierwatcher)
    env = dict(os.environ)
    daemon = daemon_on(env)
    assert daemon.ctl("start", "-e", PLAN).returncode == 0
    # No watcher yet: the item waits, owning its name.
    with tray_hosts.statusnotifierwatcher(env, tmp_path / "watcher") as watcher:
        service, path = watcher.wait_for_item("intervald")
        assert (service, path) == (daemon.item_service(), "/StatusNotifierItem")
        assert daemon.ctl("stop").returncode == 0
        wait_until(lambda: not watcher.registered_items(), 5, "the watcher to drop the item with the workout")
        assert daemon.ctl("start", "-e", PLAN).returncode == 0
        watcher.wait_for_item("intervald")
    assert daemon.ctl("stop").returncode == 0


def run_in(host, name, daemon, shown_with_time_left):
    """The host shows the item with the time left; the menu's Stop ends the workout and removes the item."""
    assert daemon.ctl("start", "-e", PLAN).returncode == 0
    shown_with_time_left()
    keep_screenshot(host, name)
    host.press_menu_item("Stop")
    wait_until(lambda: daemon.state() == "idle", 5, f"{name}'s menu Stop to stop the workout")
    wait_until(lambda: not any(service == daemon.item_service() for service, _ in
                               map(tray_hosts.split_item, host.registered_items())),
               5, f"{name}'s watcher to drop the item")


def refreshed_each_second(host, at_least=2):
    """The host read the item again after our NewTitle signals (hosts re-read only after a signal)."""
    before = len(host.recorder.property_reads())
    wait_until(lambda: len(host.recorder.property_reads()) >= before + at_least, 5,
               "the host to read the item again after each second")


@pytest.mark.parametrize("name, host", [("plasma", tray_hosts.plasma_systemtray), ("xfce", tray_hosts.xfce4_panel)])
def test_plasmas_system_tray_and_xfce4_panel(name, host, tmp_path, daemon_on):
    """Both draw the icon only; the title and tooltip show on hover, read again after each second's signals."""
    skip_unless(host)
    with host(os.environ, tmp_path / name) as tray:
        daemon = daemon_on(tray.env)

        def shown():
            tray.wait_until_shown("intervald")
            refreshed_each_second(tray)
            tray.hover_screenshot(tray.tmp / "tooltip.png")
        run_in(tray, name, daemon, shown)


def test_waybar_in_sway(tmp_path, daemon_on):
    skip_unless(tray_hosts.waybar_in_sway)
    with tray_hosts.waybar_in_sway(os.environ, tmp_path / "waybar") as tray:
        daemon = daemon_on(tray.env)

        def shown():
            first = tray.wait_until_shown("intervald", title=r"^Run · [01]:[0-5]\d — next: Walk 1:00$")
            title = first["properties"]["Title"]
            # waybar logs each Title it reads: the countdown moves on.
            tray.wait_until_shown("intervald", title=rf"^Run · [01]:[0-5]\d — next: Walk 1:00$(?<!{re.escape(title)})")
        run_in(tray, "waybar", daemon, shown)


def test_gnome_shell_with_the_appindicator_extension(tmp_path, daemon_on):
    skip_unless(tray_hosts.gnome_shell_appindicator)
    with tray_hosts.gnome_shell_appindicator(os.environ, tmp_path / "gnome") as tray:
        daemon = daemon_on(tray.env)

        def shown():
            view = tray.wait_until_shown("intervald", label=r"^[01]:[0-5]\d$")
            # The extension makes the menu's items, then fills their labels from the item's layout: waited for.
            menu = ["Pause", "Skip", "Stop", "Open Interval Timer"]
            wait_until(lambda: tray.indicator("intervald")["menu"] == menu, 10, f"the menu's labels {menu}")
            assert re.fullmatch(r"Run · [01]:[0-5]\d — next: Walk 1:00", view["title"]), view["title"]
            # The label is the countdown, redrawn each second.
            tray.wait_until_shown("intervald", label=rf"^[01]:[0-5]\d$(?<!{re.escape(view['label'])})")
        run_in(tray, "gnome", daemon, shown)

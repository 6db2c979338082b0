"""GNOME Shell itself, headless, as the desktop that shows and drives the workout's MPRIS player (docs/reference.md §8; platform
notes "GNOME Shell and MPRIS in tests"): its media section lists the player with the cue as the title and the plan
as the artist, and the Shell's own player object pauses and skips the workout. On a private session bus of its own
(the Shell brings its own notification server), with a stand-in system bus for its login-manager code."""
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import BIN, SERVICE, SLOWDOWN, end_processes, install_desktop_files, owns_name, wait_until

pytestmark = pytest.mark.skipif(shutil.which("gnome-shell") is None, reason="needs gnome-shell (scripts/setup-deps)")

SEARCH_RESULTS = "Main.overview._overview.controls._searchController._searchResults"
MEDIA_SECTION = "Main.panel.statusArea.dateMenu._messageList._mediaSection"
PLAYER = "org.mpris.MediaPlayer2.intervald"
WINDOW_APP = "Shell.AppSystem.get_default().lookup_app('org.intervald.IntervalTimer.desktop')"


class Shell:
    """A headless GNOME Shell on a private session bus, with `eval` of JavaScript in it (--unsafe-mode)."""

    def __init__(self, tmp_path, data_dirs=None):
        runtime = tmp_path / "runtime"
        runtime.mkdir(mode=0o700)
        self.processes = []
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "HOME": str(tmp_path / "home"),
                    "GSETTINGS_BACKEND": "keyfile", "XDG_STATE_HOME": str(tmp_path / "state"),
                    "XDG_CONFIG_HOME": str(tmp_path / "config")}
        self.env.pop("DISPLAY", None)
        if data_dirs:
            self.env["XDG_DATA_DIRS"] = ":".join(map(str, data_dirs))
        (tmp_path / "home").mkdir()
        for bus, variable in (("system", "DBUS_SYSTEM_BUS_ADDRESS"), ("session", "DBUS_SESSION_BUS_ADDRESS")):
            daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address",
                                       f"--address=unix:path={tmp_path / bus}.sock"],
                                      stdout=subprocess.PIPE, text=True, env=self.env)
            self.processes.append(daemon)
            self.env[variable] = daemon.stdout.readline().strip()
        self.spawn(["gnome-shell", "--headless", "--unsafe-mode", "--wayland", "--no-x11", "--virtual-monitor",
                    "1280x800"], tmp_path / "shell.log")
        wait_until(lambda: self.eval("1 + 1") == 2, 60 * SLOWDOWN, "GNOME Shell's Eval")
        # What gnome-session does in a real session: applications the bus starts show on the Shell's display.
        socket = wait_until(lambda: next((p.name for p in runtime.glob("wayland-*") if not p.name.endswith(".lock")),
                                         None), 10, "the Shell's Wayland socket")
        subprocess.run(["busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus", "UpdateActivationEnvironment", "a{ss}", "1", "WAYLAND_DISPLAY",
                        socket], env=self.env, check=True, timeout=10)

    def spawn(self, argv, log):
        process = subprocess.Popen(argv, env=self.env, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def eval(self, script):
        """The value of `script` in the Shell (Eval answers it as JSON), or None while it cannot answer."""
        result = subprocess.run(["busctl", "--user", "--json=short", "call", "org.gnome.Shell", "/org/gnome/Shell",
                                 "org.gnome.Shell", "Eval", "s", script],
                                capture_output=True, text=True, env=self.env, timeout=10)
        if result.returncode != 0:
            return None
        ok, value = json.loads(result.stdout)["data"]
        return json.loads(value) if ok and value else None

    def ctl(self, *args):
        return subprocess.run([str(BIN / "intervalctl"), *args], capture_output=True, text=True, env=self.env,
                              timeout=30)

    def close(self):
        end_processes(self.processes)


@pytest.fixture
def shell(tmp_path):
    shell = Shell(tmp_path)
    yield shell
    shell.close()


def player_view(shell):
    return shell.eval(f"(p => p && [p.trackTitle, p.trackArtists, p.status, p._visible])"
                      f"({MEDIA_SECTION}._players.get('{PLAYER}'))")


def test_gnome_shell_lists_the_workout_and_its_controls_pause_and_skip(shell, tmp_path):
    daemon = shell.spawn([str(BIN / "intervald"), "--config", str(tmp_path / "none.toml")], tmp_path / "intervald.log")
    wait_until(lambda: owns_name(SERVICE, shell.env), 10 * SLOWDOWN, "intervald's name on the Shell's bus")
    assert shell.ctl("start", "-e", 'name "Tabata"\n8x(20s work, 10s rest)').returncode == 0
    view = wait_until(lambda: (player_view(shell) or [None, None, None, False])[3] and player_view(shell),
                      10 * SLOWDOWN, "the Shell's media section to show the player")
    assert view == ["Work · 20 s", ["Tabata"], "Playing", True]
    assert shell.eval(f"{MEDIA_SECTION}._messages.length") == 1

    shell.eval(f"{MEDIA_SECTION}._players.get('{PLAYER}').playPause()")
    wait_until(lambda: shell.ctl("status", "--json").stdout and
               json.loads(shell.ctl("status", "--json").stdout)["state"] == "paused", 5 * SLOWDOWN, "a pause")
    wait_until(lambda: (player_view(shell) or [None] * 3)[2] == "Paused", 5 * SLOWDOWN, "the Shell to show it")

    shell.eval(f"{MEDIA_SECTION}._players.get('{PLAYER}').next()")
    wait_until(lambda: json.loads(shell.ctl("status", "--json").stdout)["segment_index"] == 1, 5 * SLOWDOWN,
               "a skip")
    wait_until(lambda: (player_view(shell) or [None])[0] == "Rest · 10 s", 5 * SLOWDOWN, "the Shell's new title")

    assert shell.ctl("stop").returncode == 0
    wait_until(lambda: shell.eval(f"{MEDIA_SECTION}._messages.length") == 0, 5 * SLOWDOWN,
               "the player to leave the Shell's media section")
    daemon.terminate()
    assert daemon.wait(timeout=10) == 0


def test_the_overview_search_lists_a_plan_and_enter_starts_it_and_the_app_menu_offers_the_plans(tmp_path):
    """After installing the package (its files on the Shell's XDG_DATA_DIRS, the daemon D-Bus activated by the
    Shell's bus), typing "tabata" in the overview lists the plan with its length, and Enter starts it; the app's
    menu offers each bundled plan; "c25k" lists Couch to 5K's next day, and Enter starts that day."""
    share = install_desktop_files(tmp_path / "share")
    shell = Shell(tmp_path, data_dirs=[share, "/usr/local/share", "/usr/share"])
    try:
        shell.eval("Main.overview.show()")
        shell.eval("Main.overview.searchEntry.set_text('tabata')")
        result = wait_until(
            lambda: shell.eval(f"(r => r ? [r.metaInfo.id, r.metaInfo.name, r.metaInfo.description, "
                               f"r.provider.appInfo.get_id()] : null)({SEARCH_RESULTS}._defaultResult)"),
            30 * SLOWDOWN, "the Shell to list the plan")
        assert result == ["plan:tabata", "Start Tabata", "12:00 · 18 intervals",
                          "org.intervald.IntervalTimer.desktop"]
        screenshot = os.environ.get("INTERVALD_TEST_SCREENSHOT")
        if screenshot:
            subprocess.run(["busctl", "--user", "call", "org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot",
                            "org.gnome.Shell.Screenshot", "Screenshot", "bbs", "false", "false", screenshot],
                           env=shell.env, check=True, timeout=30)
        shell.eval(f"{SEARCH_RESULTS}.activateDefault()")
        status = wait_until(lambda: shell.ctl("status", "--json").returncode == 0 and
                            json.loads(shell.ctl("status", "--json").stdout), 10 * SLOWDOWN, "Tabata to start")
        assert (status["state"], status["plan_name"]) == ("running", "Tabata")
        assert shell.ctl("stop").returncode == 0

        # The result opened the window, under the window's application ID.
        wait_until(lambda: shell.eval(f"{WINDOW_APP}.get_windows().length") == 1, 20 * SLOWDOWN,
                   "the search result to open the window")
        assert shell.eval(f"{WINDOW_APP}.get_windows()[0].get_title()") == "Interval Timer"

        # The app's right-click menu: an item per bundled plan, which the Shell launches through ActivateAction.
        app = WINDOW_APP
        actions = shell.eval(f"{app}.app_info.list_actions().map(a => {app}.app_info.get_action_name(a))")
        assert "Start Galloway run/walk 30:30" in actions and "Stop the Workout" in actions and len(actions) == 8
        shell.eval(f"{app}.launch_action('galloway-30-30', 0, -1)")
        wait_until(lambda: json.loads(shell.ctl("status", "--json").stdout)["plan_name"] == "Galloway run/walk 30:30",
                   10 * SLOWDOWN, "the menu item to start its plan")
        shell.eval(f"{app}.launch_action('stop', 0, -1)")
        wait_until(lambda: json.loads(shell.ctl("status", "--json").stdout)["state"] == "idle", 10 * SLOWDOWN,
                   "the Stop item to stop it")

        # A training program: its next day first, and Enter starts that day.
        shell.eval("Main.overview.show()")
        shell.eval("Main.overview.searchEntry.set_text('c25k')")
        result = wait_until(
            lambda: shell.eval(f"(r => r && r.metaInfo.id.startsWith('program:') ? [r.metaInfo.id, r.metaInfo.name, "
                               f"r.metaInfo.description] : null)({SEARCH_RESULTS}._defaultResult)"),
            30 * SLOWDOWN, "the Shell to list the program")
        assert result == ["program:c25k", "Start Couch to 5K — Week 1, Day 1", "30:00 · 18 intervals"]
        shell.eval(f"{SEARCH_RESULTS}.activateDefault()")
        wait_until(lambda: json.loads(shell.ctl("status", "--json").stdout)["plan_name"]
                   == "Couch to 5K · Week 1, Day 1", 10 * SLOWDOWN, "the program's next day to start")
        assert shell.ctl("stop").returncode == 0
    finally:
        shell.close()


def test_interval_timer_in_the_app_grid_opens_one_window_that_the_shell_tracks_under_its_id(tmp_path):
    """Clicking Interval Timer (the Shell activates the app, D-Bus activating the window) shows one window that the
    Shell tracks under the window's application ID; clicking again raises the same one (single instance)."""
    share = install_desktop_files(tmp_path / "share")
    shell = Shell(tmp_path, data_dirs=[share, "/usr/local/share", "/usr/share"])
    try:
        assert shell.eval(f"{WINDOW_APP}.get_name()") == "Interval Timer"
        shell.eval(f"{WINDOW_APP}.activate()")
        wait_until(lambda: shell.eval(f"{WINDOW_APP}.get_windows().length") == 1, 20 * SLOWDOWN, "the window")
        assert shell.eval(f"{WINDOW_APP}.get_state()") == 2  # Shell.AppState.RUNNING
        assert shell.eval(f"{WINDOW_APP}.get_windows()[0].get_gtk_application_id()") == "org.intervald.IntervalTimer"
        shell.eval(f"{WINDOW_APP}.activate()")  # single instance: the same window again
        assert shell.eval(f"{WINDOW_APP}.get_windows().length") == 1
    finally:
        shell.close()

"""KDE Plasma 5.27's own components, headless, as the desktop that shows and drives the workout (docs/reference.md §8;
platform notes "Tray items (StatusNotifierItem) and KDE Plasma"): Plasma's notification server shows the cue with
its Stop button and pressing it stops the workout; Plasma's media controller lists the workout's player and its
Pause button pauses it; KRunner asks our runner and Return on its match starts the plan. Each on the test desktop's
Xvfb screen and session bus, its window read and its buttons pressed through AT-SPI, keys typed and windows sized
with xdotool (XTest), bus traffic watched with busctl. The notifications applet, the media controller and KRunner
run as `plasmawindowed`/`krunner` processes with a home of their own (plasma.py)."""
import json
import os
import subprocess

import pytest

from conftest import SERVICE, BusMonitor, ctl, install_desktop_files, name_owner_pid, wait_until
from plasma import Atspi, Plasma, missing, press, wait_for

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

PLAYER = "org.mpris.MediaPlayer2.intervald"
NOTIFICATIONS = "org.freedesktop.Notifications"
RUNNER = "org.kde.krunner1"


def status():
    return json.loads(ctl("status", "--json").stdout)


@pytest.fixture
def plasma(tmp_path):
    plasma = Plasma(tmp_path)
    yield plasma
    plasma.close()


@pytest.fixture
def without_dunst():
    """Plasma's notifications applet is the notification server: dunst leaves the name to it, and comes back."""
    subprocess.run([os.environ["INTERVALD_TEST_DUNST"], "stop"], check=True, timeout=30)
    yield
    subprocess.run([os.environ["INTERVALD_TEST_DUNST"], "start"], check=True, timeout=30)


@pytest.fixture
def monitors():
    made = []

    def make(match):
        made.append(BusMonitor(match))
        return made[-1]

    yield make
    for monitor in made:
        monitor.close()


def test_plasmas_notification_server_shows_the_cue_with_stop_and_its_stop_button_stops_the_workout(
        without_dunst, plasma, activatable_daemon, monitors):
    applet = plasma.spawn("plasmawindowed", "org.kde.plasma.notifications")
    plasma.wait_for_name(applet, NOTIFICATIONS)
    app = plasma.application(applet)
    notify = monitors(f"type='method_call',interface='{NOTIFICATIONS}',member='Notify'")
    invoked = monitors(f"type='signal',interface='{NOTIFICATIONS}',member='ActionInvoked'")
    signals = monitors(f"type='signal',path='/org/intervald/Timer1',member='Stopped'")

    assert ctl("start", "-e", 'name "Drill"\n4x(30s run, 30s walk)').returncode == 0
    call = notify.wait_for("Notify")[0]
    app_name, replaces, icon, summary, body, actions, hints, timeout = call["payload"]["data"]
    assert name_owner_pid(call["destination"]) == applet.pid, "sent to Plasma's notification server"
    assert summary == "Run · 30 s"
    buttons = dict(zip(actions[::2], actions[1::2]))
    assert buttons.get("stop") == "Stop", actions

    # Plasma shows it as a popup of its own: the summary, and a Stop button, which a click presses.
    popup = wait_for(app, "notification", summary)
    frame = popup.get_parent()
    stop = wait_for(frame, "push button", "Stop")
    press(stop)

    signal = invoked.wait_for("ActionInvoked")[0]
    assert signal["payload"]["data"][1] == "stop"
    assert name_owner_pid(signal["sender"]) == applet.pid, "Plasma's notification server sent it"
    assert signals.wait_for("Stopped")[0]["payload"]["data"] == ["notification"]
    assert status()["state"] == "idle"


def test_plasmas_media_controller_lists_the_workout_and_its_pause_button_pauses_it(plasma, activatable_daemon,
                                                                                    monitors):
    assert ctl("start", "-e", 'name "Drill"\n4x(30s run, 30s walk)').returncode == 0
    wait_until(lambda: name_owner_pid(PLAYER), 10, "the workout's player")
    calls = monitors(f"type='method_call',destination='{PLAYER}',path='/org/mpris/MediaPlayer2'")
    applet = plasma.spawn("plasmawindowed", "org.kde.plasma.mediacontroller")
    app = plasma.application(applet)
    window = wait_for(app, "frame", "Media Player", timeout=20)
    # The applet's window opens at its compact size (icon and title); at a desktop widget's size it shows its full
    # view with the player's controls, as on the desktop or in the panel's popup.
    extents = window.get_extents(Atspi.CoordType.SCREEN)
    subprocess.run(["xdotool", "search", "--pid", str(applet.pid), "--name", "^Media Player$", "windowsize", "%@",
                    "600", "380"], check=True, timeout=10, env=plasma.env)
    wait_until(lambda: window.get_extents(Atspi.CoordType.SCREEN).width >= 600, 10,
               f"the applet's window to grow from {extents.width}x{extents.height}")

    # Its player list names our player (its Identity), its labels show the cue, the plan and the round.
    wait_for(app, "page tab", "Interval timer", showing=False)  # (Qt reports no tab of a tab bar as showing)
    for text in ("Run · 30 s", "Drill", "Round 1 of 4"):
        wait_for(app, "label", text)
    # It read our player over the bus, as every MPRIS client does.
    wait_until(lambda: [m for m in calls.received("GetAll") if name_owner_pid(m["sender"]) == applet.pid], 10,
               "the applet to read the player's properties")

    press(wait_for(app, "push button", "Pause"))
    wait_until(lambda: status()["state"] == "paused", 5, "the workout to pause")
    method = wait_until(lambda: [m for m in calls.received() if m["interface"] == "org.mpris.MediaPlayer2.Player"
                                 and m["member"] in ("Pause", "PlayPause")], 5, "the applet's call")[0]
    assert name_owner_pid(method["sender"]) == applet.pid
    wait_for(app, "push button", "Play", timeout=5)  # the applet follows PlaybackStatus

    press(wait_for(app, "push button", "Play"))
    wait_until(lambda: status()["state"] == "running", 5, "the workout to resume")
    assert ctl("stop").returncode == 0


@pytest.fixture
def share(tmp_path):
    return install_desktop_files(tmp_path / "share")


@pytest.fixture
def daemon_environment(share):
    """The activated daemon finds the bundled plans where the package puts them."""
    return {"XDG_DATA_DIRS": str(share)}


def test_krunner_asks_our_runner_and_return_on_its_match_starts_the_plan(tmp_path, share, activatable_daemon,
                                                                           monitors):
    """The package's runner file on KRunner's XDG_DATA_DIRS (as /usr/share/krunner/dbusplugins); KRunner
    D-Bus-activates the daemon when it first asks."""
    plasma = Plasma(tmp_path, data_dirs=[share, "/usr/local/share", "/usr/share"])
    try:
        assert name_owner_pid() is None
        calls = monitors(f"type='method_call',interface='{RUNNER}',path='/org/intervald/Timer1/KRunner'")
        krunner = plasma.spawn("krunner", "-d")
        plasma.wait_for_name(krunner, "org.kde.krunner")
        app = plasma.application(krunner)
        subprocess.run(["busctl", "--user", "call", "org.kde.krunner", "/App", "org.kde.krunner.App",
                        "querySingleRunner", "ss", SERVICE, "tabata"], check=True, timeout=10, env=plasma.env)

        match = calls.wait_for("Match", timeout=20)[0]
        assert match["payload"]["data"] == ["tabata"]
        assert name_owner_pid(match["sender"]) == krunner.pid
        # KRunner lists our match in its window, under the runner's name, with its subtext.
        result = wait_for(app, "list item", "Start Tabata", timeout=10)
        assert result.get_description() == "12:00 · 18 intervals, in category Interval Timer"
        field = wait_for(app, "text", "Search")
        assert Atspi.Text.get_text(field, 0, -1) == "tabata"

        # Return in KRunner's search field (it has the keyboard) runs the first match, as a person does.
        wait_until(lambda: field.clear_cache() or field.get_state_set().contains(Atspi.StateType.FOCUSED), 5,
                   "the search field's focus")
        plasma.key("Return")
        run = calls.wait_for("Run", timeout=10)[0]
        assert run["payload"]["data"] == ["plan:tabata", ""]
        assert name_owner_pid(run["sender"]) == krunner.pid
        wait_until(lambda: status()["state"] == "running" and status()["plan_name"] == "Tabata", 10,
                   "Tabata to start")
        assert ctl("stop").returncode == 0
    finally:
        plasma.close()

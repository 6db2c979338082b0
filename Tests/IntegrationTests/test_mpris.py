"""The workout as an MPRIS player (docs/reference.md §8), driven by real MPRIS clients: playerctl, busctl for the types BlueZ and
KDE insist on, and hostile callers. GNOME Shell's own media controls: test_gnome_shell.py."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import BIN, busctl, ctl, desktop_required, owns_name, wait_until

pytestmark = [desktop_required(), pytest.mark.skipif(shutil.which("playerctl") is None, reason="needs playerctl")]

PLAYER = "org.mpris.MediaPlayer2.intervald"
MPRIS_PATH = "/org/mpris/MediaPlayer2"
PLAYER_INTERFACE = "org.mpris.MediaPlayer2.Player"


def playerctl(*args, player="intervald"):
    result = subprocess.run(["playerctl", "-p", player, *args], capture_output=True, text=True, timeout=10)
    return result


def players():
    return subprocess.run(["playerctl", "-l"], capture_output=True, text=True, timeout=10).stdout.split()


def prop(name, interface=PLAYER_INTERFACE, service=PLAYER):
    """A property as busctl's JSON shows it: {"type": …, "data": …}."""
    return json.loads(busctl("--json=short", "get-property", service, MPRIS_PATH, interface, name).stdout)


def status():
    return json.loads(ctl("status", "--json").stdout)


def test_playerctl_pauses_skips_restarts_and_stops_the_workout(activatable_daemon, monitor):
    assert not owns_name(PLAYER)
    assert ctl("start", "-e", "name \"Drill\"\n4x(30s run, 30s walk)").returncode == 0
    wait_until(lambda: "intervald" in players(), 10, "playerctl to list intervald")
    assert playerctl("status").stdout == "Playing\n"
    fields = {line.split()[1]: line.split(None, 2)[2] if len(line.split()) > 2 else ""
              for line in playerctl("metadata").stdout.splitlines()}
    assert fields["xesam:title"] == "Run · 30 s"
    assert fields["xesam:artist"] == "Drill"
    assert fields["xesam:album"] == "Round 1 of 4"
    assert fields["mpris:length"] == "30000000"
    assert fields["mpris:trackid"].strip("'") == "/org/intervald/Timer1/Segment/0"

    assert playerctl("play-pause").returncode == 0
    wait_until(lambda: status()["state"] == "paused", 5, "the workout to pause")
    assert playerctl("status").stdout == "Paused\n"
    assert playerctl("play-pause").returncode == 0
    wait_until(lambda: status()["state"] == "running", 5, "the workout to resume")

    signals = monitor(f"type='signal',path='/org/intervald/Timer1',member='SegmentStarted'")
    seeked = monitor(f"type='signal',path='{MPRIS_PATH}',member='Seeked'")
    changes = monitor(f"type='signal',path='{MPRIS_PATH}',member='PropertiesChanged'")
    assert playerctl("next").returncode == 0
    cue = signals.wait_for("SegmentStarted")[0]
    assert cue["payload"]["data"][:3] == [1, "walk", "Walk"]
    # The change's own PropertiesChanged (prepared at the cue before) carries the walk, as clients cache it.
    interface, changed, invalidated = changes.wait_for("PropertiesChanged")[0]["payload"]["data"]
    metadata = changed["Metadata"]["data"]
    assert (interface, list(changed), invalidated) == (PLAYER_INTERFACE, ["Metadata"], [])
    assert (metadata["xesam:title"]["data"], metadata["mpris:trackid"]) == \
        ("Walk · 30 s", {"type": "o", "data": "/org/intervald/Timer1/Segment/1"})
    assert (metadata["xesam:album"]["data"], metadata["mpris:length"]) == ("Round 1 of 4", {"type": "x", "data": 30000000})
    wait_until(lambda: playerctl("metadata", "xesam:title").stdout == "Walk · 30 s\n", 5, "the walk's metadata")

    assert playerctl("previous").returncode == 0
    again = signals.wait_for("SegmentStarted", count=2)[1]
    assert again["payload"]["data"][:2] == [1, "walk"], "Previous restarts the segment with a fresh cue"
    assert seeked.wait_for("Seeked")[-1]["payload"]["data"] == [0]
    assert status()["segment_remaining_us"] > 29_000_000

    assert playerctl("stop").returncode == 0
    wait_until(lambda: status()["state"] == "idle", 5, "the workout to stop")
    wait_until(lambda: not owns_name(PLAYER), 5, "the player's name to be released")
    assert "intervald" not in players()

    assert ctl("start", "-e", "1m walk").returncode == 0
    wait_until(lambda: owns_name(PLAYER), 5, "the player to come back with the next workout")
    assert ctl("stop").returncode == 0


def test_every_property_is_typed_as_mpris_clients_insist(activatable_daemon):
    assert ctl("start", "-e", "name \"Tabata\"\n8x(20s work, 10s rest)").returncode == 0
    wait_until(lambda: owns_name(PLAYER), 5, "the player")
    metadata = prop("Metadata")
    assert metadata["type"] == "a{sv}"
    fields = metadata["data"]
    # BlueZ's mpris-proxy refuses a player whose mpris:length is not an int64; KDE wants the track id as an object
    # path; GNOME and KDE want xesam:artist as a string list.
    assert fields["mpris:length"] == {"type": "x", "data": 20_000_000}
    assert fields["mpris:trackid"] == {"type": "o", "data": "/org/intervald/Timer1/Segment/0"}
    assert fields["xesam:artist"] == {"type": "as", "data": ["Tabata"]}
    assert fields["xesam:title"] == {"type": "s", "data": "Work · 20 s"}
    assert fields["xesam:album"] == {"type": "s", "data": "Round 1 of 8"}
    assert not fields["mpris:trackid"]["data"].startswith("/org/mpris")
    expected = {
        "PlaybackStatus": ("s", "Playing"), "Rate": ("d", 1.0), "MinimumRate": ("d", 1.0), "MaximumRate": ("d", 1.0),
        "CanControl": ("b", True), "CanPlay": ("b", True), "CanPause": ("b", True), "CanGoNext": ("b", True),
        "CanGoPrevious": ("b", True), "CanSeek": ("b", False),
    }
    for name, (kind, value) in expected.items():
        assert prop(name) == {"type": kind, "data": value}, name
    assert prop("Position")["type"] == "x" and 0 <= prop("Position")["data"] <= 20_000_000
    root = "org.mpris.MediaPlayer2"
    assert prop("Identity", root) == {"type": "s", "data": "Interval timer"}
    # The player belongs to the window's entry, and Raise opens the window (test_window.py).
    assert prop("DesktopEntry", root) == {"type": "s", "data": "org.intervald.IntervalTimer"}
    assert prop("CanRaise", root) == {"type": "b", "data": True}
    for name in ("CanQuit", "HasTrackList"):
        assert prop(name, root) == {"type": "b", "data": False}
    for name in ("SupportedUriSchemes", "SupportedMimeTypes"):
        assert prop(name, root) == {"type": "as", "data": []}
    # KDE ignores a player whose GetAll fails.
    for interface in (root, PLAYER_INTERFACE):
        busctl("call", PLAYER, MPRIS_PATH, "org.freedesktop.DBus.Properties", "GetAll", "s", interface)
    assert ctl("stop").returncode == 0


def test_play_while_running_and_pause_while_paused_do_nothing_and_never_fail(activatable_daemon):
    """KDE's play key calls Pause while playing and Play otherwise; headsets send them blindly."""
    assert ctl("start", "-e", "2x(30s run, 30s walk)").returncode == 0
    wait_until(lambda: owns_name(PLAYER), 5, "the player")
    call = lambda method: busctl("call", PLAYER, MPRIS_PATH, PLAYER_INTERFACE, method)
    call("Play")
    assert status()["state"] == "running"
    call("Pause")
    call("Pause")
    assert status()["state"] == "paused"
    call("Play")
    call("Play")
    assert status()["state"] == "running"
    for method in ("Raise", "Quit"):
        busctl("call", PLAYER, MPRIS_PATH, "org.mpris.MediaPlayer2", method)
    assert status()["state"] == "running"
    assert ctl("stop").returncode == 0


def test_intervalctl_run_offers_its_own_player_beside_the_daemon(activatable_daemon, tmp_path):
    run = subprocess.Popen([str(BIN / "intervalctl"), "run", "--silent", "--no-notifications", "-e", "3x(30s run)"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        instance = f"intervald.instance{run.pid}"
        wait_until(lambda: instance in players(), 10, "the foreground run's player")
        assert ctl("start", "-e", "1m walk").returncode == 0
        wait_until(lambda: "intervald" in players(), 10, "the daemon's player beside it")
        assert playerctl("next", player=instance).returncode == 0
        wait_until(lambda: playerctl("metadata", "mpris:trackid", player=instance).stdout.strip().strip("'")
                   == "/org/intervald/Timer1/Segment/1", 5, "the run to skip")
        assert status()["segment_index"] == 0, "the daemon's workout is another player"
        assert playerctl("stop", player=instance).returncode == 0
        assert run.wait(timeout=10) == 0
    finally:
        if run.poll() is None:
            run.kill()
    assert ctl("stop").returncode == 0

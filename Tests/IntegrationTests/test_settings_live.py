"""Settings applied live (docs/reference.md §4c): the running daemon reads `intervald.toml` again when the file
changes, on SIGHUP and on `intervalctl reload`, and applies it from the next cue without interrupting the workout; a
value that becomes invalid keeps the value it had. Checked on what a person would notice: the next cue's loudness in
a recording of a real PulseAudio, the tray item on the bus, every cue of a workout reloaded under it."""
import json
import math
import os
import signal
import subprocess

import pytest

from audio import PrivatePulse, pulseaudio_missing, tone_levels, write_tone
from conftest import BIN, SERVICE, BusMonitor, busctl, desktop_required, wait_until

pytestmark = desktop_required()

#: The tone that stands for the work sound: its level is measured at one frequency, whatever else plays.
TONE_HZ = 660


def ctl(*args, env=None):
    return subprocess.run([str(BIN / "intervalctl"), *args], capture_output=True, text=True, timeout=30, env=env)


class Daemon:
    """intervald with a settings file of the test's, its log in a file; stopped at the end."""

    def __init__(self, tmp_path, settings, env=None):
        self.config = tmp_path / "intervald.toml"
        self.config.write_text(settings)
        self.log_path = tmp_path / "intervald.log"
        self.process = subprocess.Popen(
            [str(BIN / "intervald"), "--config", str(self.config), "--log-level", "debug"],
            env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), **(env or {})},
            stderr=self.log_path.open("w"))
        subprocess.run(["gdbus", "wait", "--session", "--timeout", "10", SERVICE], check=True)

    def reloads(self):
        return self.log_path.read_text().count("Reloaded the settings.")

    def rewrite(self, settings):
        """Replaces the file as an editor does (a new file renamed over it) and waits until the daemon read it."""
        before = self.reloads()
        temporary = self.config.with_name(self.config.name + ".new")
        temporary.write_text(settings)
        temporary.rename(self.config)
        wait_until(lambda: self.reloads() > before, 10, "the daemon to read the changed file")

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
        assert self.process.wait(timeout=10) == 0


@pytest.fixture
def daemon(tmp_path):
    daemons = []

    def start(settings="", env=None):
        daemons.append(Daemon(tmp_path, "[notifications]\nsound = false\n" + settings, env))
        return daemons[-1]

    yield start
    for started in daemons:
        started.close()


@pytest.mark.skipif(pulseaudio_missing() is not None, reason=pulseaudio_missing() or "")
def test_a_volume_changed_during_a_workout_is_the_next_cues_and_an_invalid_one_keeps_it(daemon, tmp_path):
    tone = tmp_path / "tone.wav"
    write_tone(tone, 1, TONE_HZ, 0.5)
    sounds = f'[sound]\nwork = "{tone}"\nrest = "{tone}"\n'
    pulse = PrivatePulse()
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        running = daemon(sounds + "volume = 100\n", env=pulse.env)
        assert ctl("start", "-e", "3s run, 3s walk, 3s run").returncode == 0
        signals.wait_for("SegmentStarted")
        running.rewrite(sounds + "volume = 25\n")
        # Invalid now: said by `intervalctl reload` with its line, and 25 stays.
        running.config.write_text(sounds + "volume = 400\n")
        reload = ctl("reload")
        assert reload.returncode == 65, reload
        assert f"{running.config}:4: volume: expected a percentage from 1 to 100; keeping the value read before." \
            in reload.stderr, reload.stderr
        end = signals.wait_for("Finished", timeout=20)[0]["timestamp-realtime"] / 1e6
        cues = [m["timestamp-realtime"] / 1e6 for m in signals.received("SegmentStarted")]
        assert len(cues) == 3
        pulse.wait_until_recorded(end + 1.5)
        samples, clock = pulse.recording(since=cues[0] - 0.5)
        # Each cue's tone at its loudest: the first at the sound's own level, the two after the change 12 dB down
        # (25 %: 20·log10(0.25) = -12.04 dB).
        levels = [max(db for _, db in tone_levels(samples, clock, TONE_HZ, cue, cue + 0.8)) for cue in cues]
        assert abs(levels[0] - 20 * math.log10(0.5)) < 1.5, levels
        assert abs(levels[1] - levels[0] + 12.04) < 1.5, f"the next cue after the change: {levels}"
        assert abs(levels[2] - levels[1]) < 1.0, f"an invalid volume keeps the one before: {levels}"
    finally:
        signals.close()
        pulse.close()


def tray_name(pid):
    return f"org.kde.StatusNotifierItem-{pid}-1"


def has_owner(name):
    reply = busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                   "s", name)
    return reply.stdout.strip() == "b true"


def test_the_tray_item_goes_and_comes_back_with_its_setting_during_a_workout(daemon):
    running = daemon()
    name = tray_name(running.process.pid)
    assert ctl("start", "-e", "10m run").returncode == 0
    wait_until(lambda: has_owner(name), 10, "the tray item")
    running.rewrite("[tray]\nenabled = false\n")
    wait_until(lambda: not has_owner(name), 10, "the tray item to go")
    running.rewrite("[tray]\nenabled = true\n")
    wait_until(lambda: has_owner(name), 10, "the tray item to come back")
    # The item that came back shows the workout that runs, not an empty one.
    title = json.loads(busctl("--json=short", "get-property", name, "/StatusNotifierItem",
                              "org.kde.StatusNotifierItem", "Title").stdout)["data"]
    assert title.startswith("Run · "), title
    assert json.loads(ctl("status", "--json").stdout)["state"] == "running"


def test_sighup_and_intervalctl_reload_during_a_workout_miss_no_cue(daemon):
    running = daemon()
    signals = BusMonitor("type='signal',path='/org/intervald/Timer1'")
    try:
        assert ctl("start", "-e", 'name "Reloaded"\n12x(250ms run, 250ms walk)').returncode == 0
        # Reloads spread over the workout: at its first cue, and every fifth after it.
        for round in range(4):
            signals.wait_for("SegmentStarted", count=1 + 5 * round)
            running.process.send_signal(signal.SIGHUP)
            reload = ctl("reload")
            assert reload.returncode == 0 and reload.stderr == "", reload
        finished = signals.wait_for("Finished", timeout=20)
        assert finished[0]["payload"]["data"] == ["Reloaded"]
        indices = [m["payload"]["data"][0] for m in signals.received("SegmentStarted")]
        assert indices == list(range(24)), f"every cue, once, in order: {indices}"
        assert not signals.received("Stopped")
        assert running.process.poll() is None, "a reload is not a shutdown"
        log = running.log_path.read_text()
        assert log.count("reason=SIGHUP") == 4 and log.count("reason=a ReloadSettings call") == 4, log
    finally:
        signals.close()


def test_intervalctl_reload_without_a_daemon_checks_the_file(tmp_path):
    config = tmp_path / "config" / "intervald"
    config.mkdir(parents=True)
    (config / "intervald.toml").write_text("[sound]\nvolume = 0\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    # No daemon on this bus: the check must not start one.
    assert not has_owner(SERVICE)
    result = ctl("reload", env=env)
    assert result.returncode == 65, result
    assert "intervald is not running" in result.stdout
    assert "intervald.toml:2: volume: expected a percentage from 1 to 100; using the default." in result.stderr
    assert not has_owner(SERVICE)
    (config / "intervald.toml").write_text("[sound]\nvolume = 50\n")
    assert ctl("reload", env=env).returncode == 0

"""A daemon at work as a runner has it: the shipped settings (sound, music lowering, haptics on), a heart-rate strap
and a treadmill chosen on the tests' BlueZ stand-in, music playing on a PulseAudio of its own (the tests'
PrivatePulse), running a paced plan. What Benchmarks/link-order.py profiles and Benchmarks/workout-footprint.py
measures. Inside scripts/test-desktop (the session bus, dunst)."""
import contextlib
import re
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))
from audio import PrivatePulse, write_tone  # noqa: E402
from bluez import HEART_RATE_MEASUREMENT, BlueZ  # noqa: E402  (needs python3-dbusmock)
from conftest import wait_until  # noqa: E402

SERVICE = "org.intervald.Timer1"
OBJECT = "/org/intervald/Timer1"
#: Paced steps: the treadmill is set at each; a cue (notification, sound) at each.
PLAN = "countdown 1s\n4x(3s work @ 6:00/km, 3s walk @ 10:00/km)"
#: A Heart Rate Measurement (flags 0, an 8-bit 142 bpm), sent four times a second.
BEAT, BEAT_INTERVAL_MS = bytes([0x00, 142]), 250


def choosing_sensors(settings, strap, machine):
    """`settings` (an intervald.toml's text) choosing the strap and the machine by their addresses, as `intervalctl
    sensors use` writes them: into the file's own [sensors] table (a second one would make the file invalid)."""
    choice = f'[sensors]\nheart_rate = "{strap}"\nmachine = "{machine}"\n'
    text, count = re.subn(r"^\[sensors\]\n", choice, settings, count=1, flags=re.M)
    if count != 1:
        raise RuntimeError("no [sensors] table in the settings to choose the sensors in")
    return text


def busctl(*args):
    return subprocess.run(["busctl", "--user", *args], capture_output=True, text=True)


def state():
    return busctl("get-property", SERVICE, OBJECT, SERVICE, "State").stdout.split('"')[1::2]


@contextlib.contextmanager
def daemon_with_sensors(argv, work, settings, startup_timeout=20):
    """Runs `argv` (the daemon, perhaps under a tool; `--config FILE` is appended) with `settings` (a file: the
    benchmark's, intervalbench.common.daemon_settings), a strap and a treadmill chosen in a copy of them and music
    playing, until it owns its bus name; yields its process. Stops it with SIGTERM after."""
    pulse = PrivatePulse()
    music = None
    bluez = BlueZ(work)
    daemon = None
    try:
        tone = work / "music.wav"
        write_tone(tone, 60, 440, 0.3)
        music = subprocess.Popen(["paplay", "--property=media.role=music", str(tone)], env=pulse.env)
        bluez.add_adapter()
        strap, treadmill = bluez.add_heart_rate_strap(), bluez.add_treadmill()
        bluez.notify_every(strap, HEART_RATE_MEASUREMENT, BEAT, BEAT_INTERVAL_MS)
        addresses = [bluez.properties(path, "org.bluez.Device1")["Address"] for path in (strap, treadmill)]
        chosen = work / "intervald-sensors.toml"
        chosen.write_text(choosing_sensors(settings.read_text(), *addresses))
        env = {**pulse.env, "DBUS_SYSTEM_BUS_ADDRESS": bluez.address, "XDG_STATE_HOME": str(work / "state"),
               "XDG_DATA_HOME": str(work / "data")}
        with open(work / "daemon.log", "w") as log:
            daemon = subprocess.Popen([*argv, "--config", str(chosen)], env=env, stdout=log, stderr=log)
        wait_until(lambda: busctl("status", SERVICE).returncode == 0 or daemon.poll() is not None, startup_timeout,
                   "the daemon on the bus")
        if daemon.poll() is not None:
            raise SystemExit(f"the daemon exited with {daemon.returncode}: {(work / 'daemon.log').read_text()}")
        yield daemon
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=120)
        if music is not None:
            music.terminate()
            music.wait(timeout=10)
        bluez.close()
        pulse.close()


def start(plan):
    started = busctl("call", SERVICE, OBJECT, SERVICE, "Start", "ssb", plan, "", "false")
    if started.returncode != 0:
        raise SystemExit(f"Start failed: {started.stderr.strip()}")

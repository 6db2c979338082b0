"""Sensors and machines (docs/sensors.md): the daemon's cue lateness with a heart-rate strap and a treadmill chosen,
next to the same plan with none chosen, each run with the C floor cueing alongside, as in "Side by side". BlueZ is
the tests' stand-in (Tests/IntegrationTests/bluez.py: python3-dbusmock on a private system bus, which the daemon is
given as DBUS_SYSTEM_BUS_ADDRESS; no radio runs here): the strap notifies a measurement four times a second, the
treadmill (an FTMS machine) its data once a second to whoever subscribed."""
import shutil
import sys
import tempfile
from pathlib import Path

from .common import REPO, log
from .measure_cue_lateness import warm_up
from .measure_side_by_side import (costed_beside_the_floor, on_off_headline, on_off_problems, on_off_section,
                                   on_off_summary)

sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))
try:  # python3-dbusmock runs the stand-in; without it the measurement says it was skipped
    from bluez import HEART_RATE_MEASUREMENT, TREADMILL_DATA, BlueZ  # noqa: E402
    from sensor_workout import BEAT, BEAT_INTERVAL_MS, choosing_sensors  # noqa: E402  (Benchmarks/)
except ImportError as missing:
    BlueZ, UNAVAILABLE = None, f"the BlueZ stand-in cannot run ({missing})"

KEY = "sensors"
# Pairs of a work and a walk segment, as "Cues you feel" runs them.
PARAMS = {"quick": {"sensors_segments": 2, "sensors_segment_s": 2},
          "full": {"sensors_segments": 60, "sensors_segment_s": 2}}
NEEDS_QUIET_MACHINE = True
def with_sensors(bench, strap, machine):
    """A copy of the bench's settings choosing the strap and the machine by their addresses."""
    chosen = bench.work / "intervald-sensors.toml"
    chosen.write_text(choosing_sensors(bench.settings.read_text(), strap, machine))
    return chosen


def _run(bench, plan, bluez, strap, treadmill):
    p = bench.p
    beats = bluez.delivered(strap, HEART_RATE_MEASUREMENT)
    data = bluez.delivered(treadmill, TREADMILL_DATA)
    writes = len(bluez.control_writes(treadmill))
    run = costed_beside_the_floor(bench, plan, p["sensors_segments"], p["sensors_segment_s"])
    run["strap_notifications"] = bluez.delivered(strap, HEART_RATE_MEASUREMENT) - beats
    run["machine_notifications"] = bluez.delivered(treadmill, TREADMILL_DATA) - data
    run["machine_writes"] = len(bluez.control_writes(treadmill)) - writes
    return run


def run(bench):
    if BlueZ is None:
        return {KEY: {"skipped": UNAVAILABLE}}
    p = bench.p
    segment = f"{p['sensors_segment_s']}s"
    # Paced: the chosen treadmill is set to a speed at every step.
    plan = f"countdown 1s\n{p['sensors_segments'] // 2}x({segment} work @ 6:00/km, {segment} walk @ 10:00/km)"
    scratch = Path(tempfile.mkdtemp(prefix="intervald-sensors-"))
    bluez = BlueZ(scratch)
    settings = bench.settings
    try:
        bluez.add_adapter()
        strap = bluez.add_heart_rate_strap()
        treadmill = bluez.add_treadmill()
        bluez.notify_every(strap, HEART_RATE_MEASUREMENT, BEAT, BEAT_INTERVAL_MS)
        bench.daemon_env = {"DBUS_SYSTEM_BUS_ADDRESS": bluez.address}
        addresses = [bluez.properties(path, "org.bluez.Device1")["Address"] for path in (strap, treadmill)]
        bench.settings = with_sensors(bench, *addresses)
        bench.restart_daemon()
        warm_up(bench)
        log(f"a strap (4 a second) and a treadmill (1 a second) chosen, {plan!r}, the C floor alongside …")
        chosen = _run(bench, plan, bluez, strap, treadmill)
        log("the same plan with no sensor chosen, the BlueZ stand-in still running, the C floor alongside …")
        bench.settings = settings
        bench.restart_daemon()
        warm_up(bench)
        none = _run(bench, plan, bluez, strap, treadmill)
    finally:
        bench.settings = settings
        bench.daemon_env = {}
        bench.restart_daemon()
        bluez.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return {KEY: {"plan": plan, "segment_s": p["sensors_segment_s"], "chosen": chosen, "none": none}}


def summarize(raw, params):
    return on_off_summary(raw, KEY, ("chosen", "none"),
                          kept=("strap_notifications", "machine_notifications", "machine_writes"))


def problems(s):
    return on_off_problems("sensors", s, ("chosen", "none"), lambda s: [
        (not s["chosen"]["strap_notifications"], "the chosen strap's measurements reached no subscriber"),
        (not s["chosen"]["machine_writes"], "the chosen treadmill was not driven"),
        (s["none"]["strap_notifications"] or s["none"]["machine_notifications"],
         "a sensor's notifications reached a subscriber with none chosen")])


def headline(s):
    return on_off_headline("sensors", s, (("chosen", "with a strap and a treadmill chosen"),
                                          ("none", "with none chosen")))


def render(s, results):
    def machine(run):
        if not run["machine_notifications"] and not run["machine_writes"]:
            return "the treadmill was not driven (the daemon did not subscribe to its data nor write its control point)"
        return (f"the treadmill's data reached it {run['machine_notifications']} times and it wrote the control point "
                f"{run['machine_writes']} times")

    return on_off_section(
        s, "Sensors and machines", "sensors",
        (("chosen", "a strap and a treadmill chosen"), ("none", "none chosen")),
        lambda s: f"The daemon runs `{s['plan'].replace(chr(10), '; ')}` twice, each time with the C floor cueing "
        "alongside and the tests' BlueZ stand-in (python3-dbusmock with Tests/IntegrationTests/bluez_le.py) on a "
        "private system bus given to the daemon as `DBUS_SYSTEM_BUS_ADDRESS`: a heart-rate strap that sends a "
        "measurement four times a second and an FTMS treadmill that sends its data once a second to whoever "
        "subscribed. Once with both chosen (`[sensors] heart_rate` and `machine`), when the strap's measurements "
        f"reached the daemon {s['chosen']['strap_notifications']} times and {machine(s['chosen'])}; once with none "
        f"chosen, when {s['none']['strap_notifications']} reached it. The daemon reads the strap on a thread of its "
        "own with its own system-bus connection, off the queue that times the cues. The difference column is "
        "intervald − the floor beside it, as in \"Side by side\".")

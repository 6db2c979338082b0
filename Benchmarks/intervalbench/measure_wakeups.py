"""Wake-ups and CPU of the daemon's threads: idle after a workout (and its memory then), running between two cues of a
long segment, and idle in a freshly started daemon. Each window starts after a settling time, reported apart."""
import time

from .common import log
from .procstat import Window, footprint


def windows(bench, settle_seconds, window_seconds):
    """(the settling window, the measured window) of the daemon's threads, back to back."""
    settle = Window(bench.pid)
    time.sleep(settle_seconds)
    first = settle.finish()
    window = Window(bench.pid)
    time.sleep(window_seconds)
    return first, window.finish()


def run(bench):
    p = bench.p
    raw = {}
    log(f"idle daemon after a workout: {p['idle_settle']:.0f} s settling + {p['idle_window']:.0f} s …")
    raw["idle_after_workout_settle"], raw["idle_after_workout"] = windows(bench, p["idle_settle"], p["idle_window"])
    raw["footprint_after_workout"] = footprint(bench.pid)

    seg = p["running_segment"]
    log(f"daemon between cues: a {seg:.0f} s segment, {p['running_settle']:.0f} s after its cue, "
        f"a {p['running_window']:.0f} s window …")
    bench.call("Start", "ssb", f"2x({int(seg)}s work)", "", "false")
    raw["running_settle"], raw["running"] = windows(bench, p["running_settle"], p["running_window"])
    bench.call("Stop")

    bench.restart_daemon()
    log(f"fresh idle daemon: {p['idle_settle']:.0f} s settling + {p['idle_window']:.0f} s …")
    raw["idle_fresh_settle"], raw["idle_fresh"] = windows(bench, p["idle_settle"], p["idle_window"])
    return raw

"""The machine's floor for cue lateness: Benchmarks/floor/c-cue-loop.c, a C clock_nanosleep loop that emits one
sd-bus signal per cue, timed by the same monitor."""
import subprocess
import time

from .common import log
from .procstat import busy_percent, cpu_busy, steal_ms


def floor_cue_times(events, signal_sender=None, notify_sender=None):
    """[index, monitor time] of the C floor's signals (org.intervald.Bench.SegmentStarted) and of its Notify calls
    (app name "floor", summary "Bench K") among the monitor's events; only those of the given senders, where two floors
    share the bus (its signals and its Notify calls come from two connections: sd-bus's and libnotify's)."""
    signals = [[m["args"][0], m["t"]] for m in events
               if m.get("interface") == "org.intervald.Bench" and m["args"] and signal_sender in (None, m["sender"])]
    notifies = [[int(m["args"][3].split()[1]), m["t"]] for m in events
                if m.get("member") == "Notify" and m["args"][:1] == ["floor"] and len(m["args"]) > 3
                and m["args"][3].startswith("Bench ") and notify_sender in (None, m["sender"])]
    return signals, notifies


def run(bench):
    n, period = bench.p["cues"], bench.p["period"]
    log(f"C timer loop (the floor): {n} cues of {period * 1000:.0f} ms …")
    time.sleep(2)
    busy0, t0 = cpu_busy(), time.monotonic_ns()
    subprocess.run([bench.cue_floor, str(n), str(int(period * 1000))], check=True)
    time.sleep(0.5)
    t1 = time.monotonic_ns()
    return {"lateness": {"c_floor": {
        "machine_busy_percent": busy_percent(busy0, cpu_busy()),
        "steal_ms": steal_ms(busy0, cpu_busy()),
        "signal_times_ns": floor_cue_times(bench.events(bench.monitor_path, t0, t1))[0],
    }}}

"""The machine's floor for cue lateness: Benchmarks/floor/c-cue-loop.c, a C clock_nanosleep loop that emits one
sd-bus signal per cue, timed by the same monitor."""
import subprocess
import time

from .common import log
from .procstat import busy_percent, cpu_busy, steal_ms


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
        "signal_times_ns": [[m["args"][0], m["t"]] for m in bench.events(bench.monitor_path, t0, t1)
                            if m.get("interface") == "org.intervald.Bench" and m["args"]],
    }}}

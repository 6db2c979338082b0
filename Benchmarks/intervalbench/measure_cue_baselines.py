"""The do-it-yourself baselines: the shell loop (Benchmarks/baseline-shell.sh) and the Python loop
(Benchmarks/baseline-python.py), each timed at its Notify calls by the same monitor, with their CPU time and RSS."""
import os
import subprocess
import sys
import time

from .common import BENCH_DIR, log
from .procstat import busy_percent, cpu_busy, process_ticks, steal_ms, top_processes


def run(bench):
    n, period = bench.p["cues"], bench.p["period"]
    out = {}
    for name, argv in (("shell", ["sh", str(BENCH_DIR / "baseline-shell.sh"), str(n), str(period)]),
                       ("python", [sys.executable, str(BENCH_DIR / "baseline-python.py"), str(n), str(period)])):
        log(f"{name} loop: {n} cues of {period * 1000:.0f} ms …")
        time.sleep(2)
        busy0, t0, ticks0 = cpu_busy(), time.monotonic_ns(), process_ticks()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        time.sleep(0.5)
        t1 = time.monotonic_ns()
        notifies = [m for m in bench.events(bench.monitor_path, t0, t1)
                    if m.get("member") == "Notify" and m["args"][:1] == [f"bench-{name}"]]
        out[name] = {
            "machine_busy_percent": busy_percent(busy0, cpu_busy()),
            "steal_ms": steal_ms(busy0, cpu_busy()),
            "top_processes": top_processes(ticks0, process_ticks(), (t1 - t0) / 1e9),
            "exit_status": child.returncode,
            "notify_times_ns": [[int(m["args"][3].split()[1]), m["t"]] for m in notifies],
            "cpu_ms": round((usage.ru_utime + usage.ru_stime) * 1000, 1),
            "max_rss_kb": usage.ru_maxrss,
        }
    return {"lateness": out}

"""The reference programs of Benchmarks/floor (with --floors; always in a full run): the RSS and start-up time of the
Swift runtime, Foundation, and C with sd-bus + libnotify, before any application code."""
import statistics
import subprocess
import time

from .common import log
from .procstat import footprint


def run(bench):
    """Resident memory and start-up time of the reference programs (Benchmarks/floor)."""
    if not bench.floor_dir:
        return {}
    log("reference programs …")
    out = {}
    for name in ("swift-core", "swift-essentials", "swift-foundation", "c-libnotify"):
        path = str(bench.floor_dir / name)
        child = subprocess.Popen([path], stdout=subprocess.PIPE, text=True)
        child.stdout.readline()
        time.sleep(1)
        fp = footprint(child.pid)
        child.kill()
        child.wait()
        times = bench.timed([path, "exit"], 20)
        out[name] = {"rss_kb": fp["total"]["rss_kb"], "pss_kb": fp["total"]["pss_kb"],
                     "uss_kb": fp["total"]["uss_kb"], "startup_ms_p50": round(statistics.median(times), 2)}
    return {"floors": out}

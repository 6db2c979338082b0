"""RSS and where it is (mapped files, heap) of a fresh daemon, and whether it joined the stand-in system bus."""
import time

from .procstat import footprint, snapshot


def run(bench):
    pid = bench.pid
    time.sleep(2)
    return {"rss_fresh_kb": snapshot(pid)["rss_kb"], "footprint_fresh": footprint(pid),
            "daemon_on_system_bus": bench.on_system_bus(pid)}

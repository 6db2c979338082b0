"""RSS through a long plan of 1 s segments (10 minutes; 30 s with --quick), on a private desktop of its own, in the
background while the measurements that are not timing-sensitive run. The soak daemon gets a state directory of its
own: a daemon activated on the main desktop must not find (and resume) the soak's workout in the state file."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .common import OBJECT, REPO, SERVICE, daemon_settings
from .environment import ENTRY_POINT
from .procstat import Window, snapshot


def run(bench):
    p = bench.p
    log_file = open(bench.work / "soak.log", "w")
    soak = subprocess.Popen([str(REPO / "scripts" / "test-desktop"), sys.executable, str(ENTRY_POINT),
                             "--soak-inner", str(bench.work)],
                            stdout=subprocess.DEVNULL, stderr=log_file,
                            env=dict(os.environ, XDG_STATE_HOME=str(bench.work / "soak-state")))

    def finish():
        soak.wait(timeout=p["soak_seconds"] + 300)
        log_file.close()
        soak_file = bench.work / "soak.json"
        return {"soak": json.loads(soak_file.read_text()) if soak_file.exists() else {
            "error": (bench.work / "soak.log").read_text()[-2000:]}}

    bench.run_in_background("the RSS plan", finish)
    return {}


def soak_inner(work):
    config = json.loads((work / "config.json").read_text())
    p, bin_dir = config["params"], Path(config["bin_dir"])
    seconds = p["soak_seconds"]
    log_file = open(work / "intervald-soak.log", "w")
    daemon = subprocess.Popen([str(bin_dir / "intervald"), "--config", str(daemon_settings(work)),
                               "--log-level", "warning"], stdout=log_file, stderr=log_file)
    subprocess.run(["gdbus", "wait", "--session", "--timeout", "20", SERVICE], check=True)
    time.sleep(1)
    samples = [{"t": 0.0, "rss_kb": snapshot(daemon.pid)["rss_kb"], "phase": "idle"}]
    plan = f"{seconds // 2}x(1s run, 1s walk)"
    subprocess.run(["busctl", "--user", "call", SERVICE, OBJECT, SERVICE, "Start", "ssb", plan, "", "false"],
                   check=True, capture_output=True)
    t0 = time.monotonic()
    window = Window(daemon.pid, interval=p["soak_sample"])
    # Samples while the plan runs, none after its end: what the daemon gives back once a workout has ended
    # (MemorySettler) is not the workout's own memory shrinking.
    while time.monotonic() - t0 + p["soak_sample"] < seconds:
        time.sleep(p["soak_sample"])
        snap = snapshot(daemon.pid)
        samples.append({"t": round(time.monotonic() - t0, 2), "rss_kb": snap["rss_kb"], "threads": snap["threads"],
                        "phase": "running"})
    cost = window.finish()
    # After the end, and after what the daemon gives back 3 s later.
    time.sleep(max(0.0, t0 + seconds + 6 - time.monotonic()))
    snap = snapshot(daemon.pid)
    samples.append({"t": round(time.monotonic() - t0, 2), "rss_kb": snap["rss_kb"], "threads": snap["threads"],
                    "phase": "finished"})
    state = subprocess.run(["busctl", "--user", "get-property", SERVICE, OBJECT, SERVICE, "State"],
                           text=True, capture_output=True).stdout.strip()
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(timeout=20)
    (work / "soak.json").write_text(json.dumps({"plan": plan, "seconds": seconds, "samples": samples,
                                                "state_after": state, "hwm_kb": snap["hwm_kb"],
                                                "cpu_ms": cost["cpu_ms"],
                                                "context_switches": cost["context_switches"]}))
    return 0

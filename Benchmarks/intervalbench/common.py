"""What every part of the benchmark shares: paths, bus names, the run's parameters, logging."""
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
BENCH_DIR = REPO / "Benchmarks"
SERVICE = "org.intervald.Timer1"
OBJECT = "/org/intervald/Timer1"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# settle: how long after the last activity a window starts (one-off work such as idle threads exiting happens then
# and is reported separately); window: the measured steady state.
FULL = dict(cues=240, period=0.25, idle_settle=20.0, idle_window=60.0, running_segment=60.0, running_settle=20.0,
            running_window=30.0, soak_seconds=600, soak_sample=5.0, roundtrips=40, activations=10,
            plan_file_lines=200_000, parse_repeats=3, show_repeats=3, floors=True)
# QUICK is CI's smoke test: each measurement just large enough to produce every figure it reports.
QUICK = dict(cues=12, period=0.25, idle_settle=1.0, idle_window=2.0, running_segment=6.0, running_settle=1.0,
             running_window=2.0, soak_seconds=8, soak_sample=0.5, roundtrips=4, activations=2,
             plan_file_lines=5_000, parse_repeats=1, show_repeats=1, floors=False)


def parameters(quick, measurements):
    """The run's parameters: the common ones above, then each measurement's own (its PARAMS)."""
    params = dict(QUICK if quick else FULL)
    for measurement in measurements:
        params.update(getattr(measurement, "PARAMS", {}).get("quick" if quick else "full", {}))
    return params


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def run(argv, **kwargs):
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kwargs).stdout


def daemon_settings(work):
    """The settings every daemon of the run gets: the shipped config/intervald.toml with `idle-exit = 0`. The run
    keeps one daemon idle for longer than the default 120 s (between its cue run and its idle windows come the
    baselines' runs), and an idle window must measure the idle daemon, not its exit. Written once into WORK."""
    path = work / "intervald.toml"
    if not path.exists():
        shipped = (REPO / "config" / "intervald.toml").read_text()
        settings, count = re.subn(r"^idle-exit\s*=.*$", "idle-exit = 0", shipped, flags=re.M)
        path.write_text(settings if count else "idle-exit = 0\n" + shipped)
    return path


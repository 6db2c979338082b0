"""Perceived timing (docs/reference.md §6, issue 11): the cue's sound onset at the audio server against the schedule, for intervald
and a minimal C libcanberra loop (the floor), in one run. Benchmarks/perceived_timing.py does the measuring, in a
private desktop and PulseAudio of its own: the benchmark's daemon owns the name on this desktop's bus."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import BENCH_DIR, log

KEY = "perceived_timing"
PARAMS = {"full": {"perceived_cues": 120}, "quick": {"perceived_cues": 20}}
TARGET_MS = 5.0  # docs/reference.md §6: the sound's onset lateness and spacing error within the C floor's + 5 ms (p99)
# The private desktop this run is in; perceived_timing.py sets up its own when these are gone.
DESKTOP_VARIABLES = ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY")


def run(bench):
    cues = bench.p["perceived_cues"]
    log(f"perceived timing: {cues} cue sounds of intervald and of the C libcanberra loop …")
    env = {name: value for name, value in os.environ.items()
           if name not in DESKTOP_VARIABLES and not name.startswith("INTERVALD_TEST_")}
    with tempfile.TemporaryDirectory(prefix="intervald-bench-perceived.") as scratch:
        out = Path(scratch) / "perceived.json"
        subprocess.run([sys.executable, str(BENCH_DIR / "perceived_timing.py"), "--cues", str(cues), "--bin-dir",
                        str(bench.bin), "--json", str(out)], env=env, check=True, stdout=subprocess.DEVNULL,
                       timeout=cues * 2 + 180)
        return {KEY: json.loads(out.read_text())}


def summarize(raw, params):
    results = raw[KEY]
    daemon, floor = results["intervald"], results["c_canberra_floor"]
    excess = {}
    for measure in ("lateness_ms", "spacing_error_ms"):
        if daemon[measure] and floor[measure]:
            excess[measure] = round(daemon[measure]["p99"] - floor[measure]["p99"], 2)
    return {**results, "p99_over_floor_ms": excess}


def targets(s):
    rows = []
    for measure, name in (("lateness_ms", "sound onset lateness"), ("spacing_error_ms", "cue-to-cue spacing error")):
        if measure in s["p99_over_floor_ms"]:
            value = s["intervald"][measure]["p99"]
            limit = s["c_canberra_floor"][measure]["p99"] + TARGET_MS
            rows.append({"name": f"{name} p99 (at the audio server)",
                         "target": f"≤ the C libcanberra floor's + {TARGET_MS:g} ms ({limit:.2f})", "value": value,
                         "unit": "ms", "met": value <= limit})
    return rows


def problems(s):
    return [f"perceived timing: {s[who]['missing']} of {s['cues']} {who} sounds not heard"
            for who in ("intervald", "c_canberra_floor") if s[who]["missing"]]


def headline(s):
    over = s["p99_over_floor_ms"]
    return (f"perceived timing: onset p99 {over.get('lateness_ms')} ms and spacing p99 "
            f"{over.get('spacing_error_ms')} ms over the C libcanberra floor")


def render(s, results):
    sys.path.insert(0, str(BENCH_DIR))
    from perceived_timing import markdown  # noqa: E402  (a script beside this package, with the section's text)

    return markdown(s).splitlines()

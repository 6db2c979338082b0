"""Perceived timing (docs/reference.md §6 and §11, issues 11 and 27): the cue's sound onset at the audio server against the
schedule, over music, for intervald lowering the music under its cues, intervald leaving it alone, and a minimal C
libcanberra loop (the floor), in one run; and how far ahead the music goes down and how soon it is back.
Benchmarks/perceived_timing.py does the measuring, in a private desktop and PulseAudio of its own: the benchmark's
daemon owns the name on this desktop's bus."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import BENCH_DIR, log

KEY = "perceived_timing"
PARAMS = {"full": {"perceived_cues": 60}, "quick": {"perceived_cues": 4}}
TARGET_MS = 5.0  # docs/reference.md §6: the sound's onset lateness and spacing error within the C floor's + 5 ms (p99)
RESTORE_TARGET_MS = 500.0  # issue 27: the music back within half a second of the sound's end
CONTENDERS = (("intervald", "intervald (music lowered)"), ("intervald_without_ducking", "intervald (music left alone)"))
# The private desktop this run is in; perceived_timing.py sets up its own when these are gone.
DESKTOP_VARIABLES = ("DBUS_SESSION_BUS_ADDRESS", "DISPLAY")


def run(bench):
    cues = bench.p["perceived_cues"]
    log(f"perceived timing: {cues} cue sounds over music, of intervald lowering it and not, and of the C libcanberra "
        "loop …")
    env = {name: value for name, value in os.environ.items()
           if name not in DESKTOP_VARIABLES and not name.startswith("INTERVALD_TEST_")}
    with tempfile.TemporaryDirectory(prefix="intervald-bench-perceived.") as scratch:
        out = Path(scratch) / "perceived.json"
        subprocess.run([sys.executable, str(BENCH_DIR / "perceived_timing.py"), "--cues", str(cues), "--bin-dir",
                        str(bench.bin), "--json", str(out)], env=env, check=True, stdout=subprocess.DEVNULL,
                       timeout=cues * 6 + 240)
        return {KEY: json.loads(out.read_text())}


def summarize(raw, params):
    results = raw[KEY]
    floor = results["c_canberra_floor"]
    excess = {}
    for key, _ in CONTENDERS:
        for measure in ("lateness_ms", "spacing_error_ms"):
            if results[key][measure] and floor[measure]:
                excess.setdefault(key, {})[measure] = round(results[key][measure]["p99"] - floor[measure]["p99"], 2)
    return {**results, "p99_over_floor_ms": excess}


def targets(s):
    rows = []
    for key, who in CONTENDERS:
        for measure, name in (("lateness_ms", "sound onset lateness"), ("spacing_error_ms", "cue-to-cue spacing error")):
            if measure in s["p99_over_floor_ms"].get(key, {}):
                value = s[key][measure]["p99"]
                limit = s["c_canberra_floor"][measure]["p99"] + TARGET_MS
                rows.append({"name": f"{name} p99 (at the audio server), {who}",
                             "target": f"≤ the C libcanberra floor's + {TARGET_MS:g} ms ({limit:.2f})", "value": value,
                             "unit": "ms", "met": value <= limit})
    duck = s["intervald"].get("duck") or {}
    if duck.get("lead_ms"):
        rows.append({"name": "music 9 dB down before the sound's onset, shortest lead", "target": "> 0 ms",
                     "value": duck["lead_ms"]["min"], "unit": "ms", "met": duck["lead_ms"]["min"] > 0})
    if duck.get("restore_ms"):
        rows.append({"name": "music back within 1 dB after the sound's end, p99",
                     "target": f"≤ {RESTORE_TARGET_MS:g} ms", "value": duck["restore_ms"]["p99"], "unit": "ms",
                     "met": duck["restore_ms"]["p99"] <= RESTORE_TARGET_MS and not duck["never_back"]})
    return rows


def problems(s):
    return [f"perceived timing: {s[who]['missing']} of {s['cues']} {who} sounds not heard"
            for who in ("intervald", "intervald_without_ducking", "c_canberra_floor") if s[who]["missing"]]


def headline(s):
    over = s["p99_over_floor_ms"]
    duck = s["intervald"].get("duck") or {}
    return (f"perceived timing over the C libcanberra floor, p99: onset {over.get('intervald', {}).get('lateness_ms')} "
            f"ms lowering the music, {over.get('intervald_without_ducking', {}).get('lateness_ms')} ms not; music down "
            f"{(duck.get('lead_ms') or {}).get('p50')} ms ahead, back {(duck.get('restore_ms') or {}).get('p50')} ms "
            "after (p50)")


def render(s, results):
    sys.path.insert(0, str(BENCH_DIR))
    from perceived_timing import markdown  # noqa: E402  (a script beside this package, with the section's text)

    return markdown(s).splitlines()

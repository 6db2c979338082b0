#!/usr/bin/env python3
"""Perceived timing (docs/reference.md §6): when the cue's sound is heard at the audio server, against the cue's schedule.

    Benchmarks/perceived_timing.py [--cues N] [--period-ms MS] [--bin-dir DIR] [--json OUT.json]

In one run, inside a private test desktop (it re-executes itself under scripts/test-desktop) and one private
PulseAudio whose pipe sink records every sample in real time (Tests/IntegrationTests/audio.py):
  1. intervald plays N cues of PERIOD ms (alternating run and walk, so the work and the rest sound alternate);
     the schedule is the first SegmentStarted signal's time + k × period (the daemon's own schedule, drift-free);
  2. the floor: Benchmarks/floor/c-canberra-loop.c, compiled here with gcc, sleeps to each of N instants
     (clock_nanosleep, absolute) and calls ca_context_play with the same two cached sounds.
Each sound's onset is the first recorded sample above a threshold after silence. Lateness = onset - schedule;
spacing error = (onset k - onset k-1) - period. Both share the recording's clock, which places an onset to within
one of the sink's blocks (42.7 ms): compare the two contenders with each other, not with zero.

Prints the results as JSON, then a markdown section for docs/benchmarks.md, on stdout. Standard library only.
Needs: gcc, pkg-config, libcanberra-dev, pulseaudio, pulseaudio-utils, busctl, and the built binaries (--bin-dir,
default .build/release if it holds intervald, else .build/debug).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "IntegrationTests"))

from audio import PrivatePulse, onsets  # noqa: E402

SERVICE = "org.intervald.Timer1"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cues", type=int, default=60)
    # 512 ms is 12 of the pipe sink's 42.67 ms blocks: every cue falls at the same place in a block, so the sink's
    # block-wise mixing adds the same delay to each, and spacing errors are the contenders' own.
    parser.add_argument("--period-ms", type=int, default=512)
    parser.add_argument("--bin-dir", default=None)
    parser.add_argument("--json", default=None, help="also write the JSON results here")
    args = parser.parse_args()
    if "INTERVALD_TEST_DESKTOP_DIR" not in os.environ:
        os.execvp(str(REPO / "scripts" / "test-desktop"),
                  [str(REPO / "scripts" / "test-desktop"), sys.executable, *sys.argv])
    bin_dir = Path(args.bin_dir) if args.bin_dir else next(
        (d for d in (REPO / ".build" / "release", REPO / ".build" / "debug") if (d / "intervald").exists()), None)
    if bin_dir is None:
        sys.exit("perceived_timing: no built intervald; run swift build first, or pass --bin-dir")
    period = args.period_ms / 1000
    with tempfile.TemporaryDirectory(prefix="intervald-perceived.") as scratch:
        scratch = Path(scratch)
        floor = build_floor(scratch)
        pulse = PrivatePulse()
        try:
            env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
            daemon = measure_intervald(bin_dir, scratch, env, pulse, args.cues, period)
            floor_result = measure_floor(floor, env, pulse, args.cues, period)
        finally:
            pulse.close()
    results = {"cues": args.cues, "period_ms": args.period_ms, "intervald": daemon, "c_canberra_floor": floor_result,
               "bin_dir": str(bin_dir)}
    text = json.dumps(results, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)
    print()
    print(markdown(results))


def build_floor(scratch):
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libcanberra"], capture_output=True, text=True,
                           check=True).stdout.split()
    binary = scratch / "c-canberra-loop"
    subprocess.run(["gcc", "-O2", str(REPO / "Benchmarks" / "floor" / "c-canberra-loop.c"), "-o", str(binary),
                    *flags], check=True)
    return binary


class SignalStamps:
    """The wall-clock time of each SegmentStarted and Finished signal, from `busctl monitor`."""

    def __init__(self):
        self.stamps = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            ["busctl", "--user", "monitor", "--json=short", "--match", f"type='signal',path='/org/intervald/Timer1'"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.process.stderr.readline()  # "Monitoring bus message stream."
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            if line.startswith("{"):
                message = json.loads(line)
                with self.lock:
                    self.stamps.append((message.get("member"), message["timestamp-realtime"] / 1e6))

    def wait_for(self, member, timeout):
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                found = [t for m, t in self.stamps if m == member]
            if found:
                return found
            if time.monotonic() > deadline:
                raise SystemExit(f"perceived_timing: no {member} signal within {timeout} s")
            time.sleep(0.05)

    def of(self, member):
        with self.lock:
            return [t for m, t in self.stamps if m == member]

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=5)


def measure_intervald(bin_dir, scratch, env, pulse, cues, period):
    config = scratch / "intervald.toml"
    config.write_text("[notifications]\nsound = false\n")
    env = {**env, "XDG_STATE_HOME": str(scratch / "state")}
    daemon = subprocess.Popen([str(bin_dir / "intervald"), "--config", str(config)], env=env,
                              stderr=open(scratch / "intervald.log", "w"))
    try:
        subprocess.run(["gdbus", "wait", "--session", "--timeout", "10", SERVICE], check=True)
        time.sleep(1.0)  # the sound context opens and caches its sounds at start-up, off the cue path
        stamps = SignalStamps()
        try:
            plan = f"{cues // 2}x({int(period * 1000)}ms run, {int(period * 1000)}ms walk)"
            subprocess.run([str(bin_dir / "intervalctl"), "start", "-e", plan], check=True, env=env)
            stamps.wait_for("Finished", cues * period + 10)
            first = stamps.of("SegmentStarted")[0]
        finally:
            stamps.close()
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
    schedule = [first + k * period for k in range(cues)]
    return analyse(pulse, schedule, period)


def measure_floor(floor, env, pulse, cues, period):
    run = subprocess.Popen([str(floor), str(cues), str(int(period * 1000)), "intervald-work", "intervald-rest"],
                           env=env, stdout=subprocess.PIPE, text=True)
    origin = int(run.stdout.readline()) / 1e6
    run.wait(timeout=cues * period + 30)
    schedule = [origin + k * period for k in range(cues)]
    return analyse(pulse, schedule, period)


def analyse(pulse, schedule, period):
    pulse.wait_until_recorded(schedule[-1] + 1.0)
    samples, clock = pulse.recording(since=schedule[0] - period / 2)
    heard = onsets(samples, clock)
    # Each cue's onset: the first one from half a period before its instant to half a period after.
    late = []
    for instant in schedule:
        match = [t for t in heard if instant - period / 2 <= t < instant + period / 2]
        late.append((match[0] - instant) * 1000 if match else None)
    measured = [v for v in late if v is not None]
    spacing = [b - a for a, b in zip(late, late[1:]) if a is not None and b is not None]
    return {"heard": len(measured), "missing": late.count(None), "lateness_ms": summary(measured),
            "spacing_error_ms": summary([abs(s) for s in spacing])}


def summary(values):
    if not values:
        return None
    ordered = sorted(values)

    def pct(p):
        return round(ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))], 2)

    return {"mean": round(statistics.fmean(ordered), 2), "p50": round(statistics.median(ordered), 2), "p99": pct(99), "max": round(ordered[-1], 2),
            "min": round(ordered[0], 2)}


def markdown(results):
    rows = []
    for name, key in (("intervald", "intervald"), ("C libcanberra loop (floor)", "c_canberra_floor")):
        r = results[key]
        late, spacing = r["lateness_ms"] or {}, r["spacing_error_ms"] or {}
        rows.append(f"| {name} | {r['heard']}/{results['cues']} | {late.get('mean')} | {late.get('p50')} | {late.get('p99')} | "
                    f"{late.get('max')} | {spacing.get('p50')} | {spacing.get('p99')} | {spacing.get('max')} |")
    d, f = results["intervald"], results["c_canberra_floor"]
    verdict = ""
    if d["lateness_ms"] and f["lateness_ms"]:
        extra_late = d["lateness_ms"]["p99"] - f["lateness_ms"]["p99"]
        extra_spacing = d["spacing_error_ms"]["p99"] - f["spacing_error_ms"]["p99"]
        verdict = (f"\nintervald minus the floor, p99: onset lateness {extra_late:+.2f} ms, spacing error "
                   f"{extra_spacing:+.2f} ms (target: at most +5 ms each).\n")
    return "\n".join([
        "## Perceived timing",
        "",
        f"{results['cues']} cues {results['period_ms']} ms apart (12 sink blocks), the work and rest sounds alternating, "
        "recorded at a "
        "private PulseAudio's pipe sink (`Benchmarks/perceived_timing.py`). Lateness is the sound's onset against "
        "the cue's schedule; the recording places an onset to within one sink block (42.7 ms), so compare the rows "
        "with each other rather than with zero. Spacing error is |onset-to-onset − period|.",
        "",
        "| Contender | Heard | Lateness mean (ms) | p50 | p99 | max | Spacing error p50 (ms) | p99 | max |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        verdict,
    ])


if __name__ == "__main__":
    main()

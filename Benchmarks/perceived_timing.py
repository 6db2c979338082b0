#!/usr/bin/env python3
"""Perceived timing (docs/reference.md §6, §11): when the cue's sound is heard at the audio server, against the cue's
schedule, over music, with the music lowered under the cues and without.

    Benchmarks/perceived_timing.py [--cues N] [--period-ms MS] [--bin-dir DIR] [--json OUT.json]

In one run, inside a private test desktop (it re-executes itself under scripts/test-desktop) and one private
PulseAudio whose pipe sink records every sample in real time (Tests/IntegrationTests/audio.py), with "music" (a
40 Hz tone at a quarter of full scale, paplay, role music) playing throughout:
  1. intervald with ducking on (`duck = 30`) plays N cues of PERIOD ms (alternating run and walk, so the work and the
     rest sound alternate); the schedule is the first SegmentStarted signal's time + k × period (the daemon's own
     schedule, drift-free);
  2. the same with ducking off (`duck = 100`);
  3. the floor: Benchmarks/floor/c-canberra-loop.c, compiled here with gcc, sleeps to each of N instants
     (clock_nanosleep, absolute) and calls ca_context_play with the same two cached sounds.
Each sound's onset is the first recorded sample above the music after silence. Lateness = onset - schedule;
spacing error = (onset k - onset k-1) - period. All share the recording's clock, which places an onset to within
one of the sink's blocks (42.7 ms): compare the contenders with each other, not with zero. The period leaves the
music time to come back between cues (more than the 1 s that keeps it down between a countdown's pips).

With ducking on, the music's level is read at its own frequency in 50 ms Hann windows every 5 ms around each cue:
the duck's lead is how long before the sound's onset it was already 9 dB down (a window reads 9 dB down only once
most of it is past the drop: the lead is understated by about 12 ms), and the restore is from the sound's last loud
sample to the first window back within 1 dB. The first cue (the start, which nothing foresees) is left out of the lead.

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

from audio import (CUE_THRESHOLD, PrivatePulse, cue_sounds, duck_around, onsets, tone_levels,  # noqa: E402
                   write_tone)

SERVICE = "org.intervald.Timer1"
MUSIC_HZ = 40
LOWERED_DB = 9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cues", type=int, default=60)
    # 1536 ms is 36 of the pipe sink's 42.67 ms blocks: every cue falls at the same place in a block, so the sink's
    # block-wise mixing adds the same delay to each, and spacing errors are the contenders' own.
    parser.add_argument("--period-ms", type=int, default=1536)
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
        music = None
        try:
            env = {**pulse.env, "XDG_DATA_DIRS": f"{REPO / 'config'}:/usr/share"}
            tone = scratch / "music.wav"
            write_tone(tone, int(3 * args.cues * period + 90), MUSIC_HZ, 0.25)
            music = subprocess.Popen(["paplay", "--property=media.role=music", str(tone)], env=env)
            pulse.wait_until_recorded(time.time() + 1.0)
            ducked = measure_intervald(bin_dir, scratch, env, pulse, args.cues, period, duck=30)
            plain = measure_intervald(bin_dir, scratch, env, pulse, args.cues, period, duck=100)
            floor_result = measure_floor(floor, env, pulse, args.cues, period)
        finally:
            if music:
                music.terminate()
            pulse.close()
    results = {"cues": args.cues, "period_ms": args.period_ms, "intervald": ducked, "intervald_without_ducking": plain,
               "c_canberra_floor": floor_result, "bin_dir": str(bin_dir)}
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


def measure_intervald(bin_dir, scratch, env, pulse, cues, period, duck):
    config = scratch / "intervald.toml"
    config.write_text(f"[notifications]\nsound = false\n[sound]\nduck = {duck}\n")
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
            finished = stamps.wait_for("Finished", cues * period + 10)[0]
            signals = stamps.of("SegmentStarted")
            # The finish sound (and the music's return) is over before the next contender begins.
            pulse.wait_until_recorded(finished + 2.0)
        finally:
            stamps.close()
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
    schedule = [signals[0] + k * period for k in range(cues)]
    result = analyse(pulse, schedule, period)
    # The signal's own lateness against the same schedule: what the bus shows of the cue's instant.
    result["signal_lateness_ms"] = summary([(t - s) * 1000 for t, s in zip(signals[1:], schedule[1:])])
    if duck < 100:
        result["duck"] = analyse_duck(pulse, schedule, period)
    return result


def measure_floor(floor, env, pulse, cues, period):
    run = subprocess.Popen([str(floor), str(cues), str(int(period * 1000)), "intervald-work", "intervald-rest"],
                           env=env, stdout=subprocess.PIPE, text=True)
    origin = int(run.stdout.readline()) / 1e6
    run.wait(timeout=cues * period + 30)
    schedule = [origin + k * period for k in range(cues)]
    pulse.wait_until_recorded(schedule[-1] + 2.0)
    return analyse(pulse, schedule, period)


def analyse(pulse, schedule, period):
    pulse.wait_until_recorded(schedule[-1] + 1.0)
    samples, clock = pulse.recording(since=schedule[0] - period / 2)
    heard = onsets(samples, clock, threshold=CUE_THRESHOLD)
    # Each cue's onset: the first one from half a period before its instant to half a period after.
    late = []
    for instant in schedule:
        match = [t for t in heard if instant - period / 2 <= t < instant + period / 2]
        late.append((match[0] - instant) * 1000 if match else None)
    measured = [v for v in late if v is not None]
    spacing = [b - a for a, b in zip(late, late[1:]) if a is not None and b is not None]
    return {"heard": len(measured), "missing": late.count(None), "lateness_ms": summary(measured),
            "spacing_error_ms": summary([abs(s) for s in spacing])}


def analyse_duck(pulse, schedule, period):
    """The duck's lead before each foreseen cue's onset and the music's return after each sound (module docstring)."""
    samples, clock = pulse.recording(since=schedule[0] - period)
    before = tone_levels(samples, clock, MUSIC_HZ, schedule[0] - 0.8, schedule[0] - 0.1, hop=0.02)
    base = statistics.median(db for _, db in before)
    leads, restores, depths = [], [], []
    finish = schedule[-1] + period
    for index, (onset, end) in enumerate(cue_sounds(samples, clock, schedule[0] - period / 2)):
        if onset > finish + period / 2:
            break
        found = tone_levels(samples, clock, MUSIC_HZ, onset - 0.3, end + 0.7, hop=0.005)
        start, during, back = duck_around(found, base, onset + (0.025 if index == 0 else 0), end, LOWERED_DB)
        depths.append(base - during)
        if index > 0:
            leads.append((onset - start) * 1000)
        if back is not None:
            restores.append((back - end) * 1000)
    return {"music_dbfs": round(base, 1), "lead_ms": summary(leads), "restore_ms": summary(restores),
            "depth_db": summary(depths[1:]), "first_cue_depth_db": round(depths[0], 2) if depths else None,
            "cues_measured": len(depths), "never_back": len(depths) - len(restores),
            "per_cue": {"lead_ms": [round(v, 1) for v in leads], "depth_db": [round(v, 2) for v in depths],
                        "restore_ms": [round(v, 1) for v in restores]}}


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
    contenders = (("intervald, music lowered (`duck = 30`)", "intervald"),
                  ("intervald, music left alone (`duck = 100`)", "intervald_without_ducking"),
                  ("C libcanberra loop (floor)", "c_canberra_floor"))
    for name, key in contenders:
        r = results[key]
        late, spacing = r["lateness_ms"] or {}, r["spacing_error_ms"] or {}
        rows.append(f"| {name} | {r['heard']}/{results['cues']} | {late.get('mean')} | {late.get('p50')} | "
                    f"{late.get('p99')} | {late.get('max')} | {spacing.get('p50')} | {spacing.get('p99')} | "
                    f"{spacing.get('max')} |")
    floor = results["c_canberra_floor"]
    verdicts = []
    for name, key in contenders[:2]:
        r = results[key]
        if r["lateness_ms"] and floor["lateness_ms"]:
            verdicts.append(f"{name} minus the floor, p99: onset lateness "
                            f"{r['lateness_ms']['p99'] - floor['lateness_ms']['p99']:+.2f} ms, spacing error "
                            f"{r['spacing_error_ms']['p99'] - floor['spacing_error_ms']['p99']:+.2f} ms "
                            "(target: at most +5 ms each).")
    signal_rows = [f"| {name} | {results[key]['signal_lateness_ms']['p50']} | {results[key]['signal_lateness_ms']['p99']} "
                   f"| {results[key]['signal_lateness_ms']['max']} |"
                   for name, key in contenders[:2] if results[key].get("signal_lateness_ms")]
    duck = results["intervald"].get("duck") or {}
    lead, restore, depth = duck.get("lead_ms") or {}, duck.get("restore_ms") or {}, duck.get("depth_db") or {}
    return "\n".join([
        "## Perceived timing, and cues over music",
        "",
        f"{results['cues']} cues {results['period_ms']} ms apart ({results['period_ms'] / 42.667:.0f} sink blocks), "
        "the work and rest sounds alternating, over \"music\" (a 40 Hz tone at -12 dBFS, role music) playing "
        "throughout, recorded at a private PulseAudio's pipe sink (`Benchmarks/perceived_timing.py`). Lateness is the "
        "sound's onset against the cue's schedule; the recording places an onset to within one sink block (42.7 ms), "
        "so compare the rows with each other rather than with zero. Spacing error is |onset-to-onset − period|.",
        "",
        "| Contender | Heard | Lateness mean (ms) | p50 | p99 | max | Spacing error p50 (ms) | p99 | max |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        *verdicts,
        "",
        "`SegmentStarted` on the bus against the same schedule (ms):",
        "",
        "| Contender | p50 | p99 | max |",
        "| --- | --- | --- | --- |",
        *signal_rows,
        "",
        f"The music under the cues (`duck = 30`, {duck.get('cues_measured')} cues, the finish's included): down by "
        f"{depth.get('p50')} dB (p50; least {depth.get('min')} dB) under the cues after the start, and by "
        f"{duck.get('first_cue_depth_db')} dB under the start's (which nothing foresees: measured from 25 ms after its "
        f"onset); already 9 dB down {lead.get('p50')} ms before the sound's onset (p50; shortest {lead.get('min')} ms; "
        f"understated by about 12 ms by the 50 ms windows); back within 1 dB {restore.get('p50')} ms after the sound's "
        f"end (p50, p99 {restore.get('p99')} ms, max {restore.get('max')} ms; {duck.get('never_back')} never back). "
        "Targets: down before the onset, back within 500 ms.",
        "",
    ])


if __name__ == "__main__":
    main()

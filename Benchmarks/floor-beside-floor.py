#!/usr/bin/env python3
"""The noise of "Side by side": two identical C floors (Benchmarks/floor/c-cue-loop.c with `notify`) cue at the same
time, half a period apart, seen by one monitor, as intervald and the floor are in scripts/bench. Whatever one floor
shows over the other is the measurement's own noise: a target on intervald − the floor below it can be missed by the
floor itself (docs/benchmarks.md, "Side by side with the C floor"; Benchmarks/notes.md, "Side by side: what one run
can tell").

    scripts/test-desktop python3 Benchmarks/floor-beside-floor.py [--cues N[,N…]] [--runs R]

Prints, for each count of cues (default 120 and 480, 250 ms apart) and each run (default 5), floor B − floor A:
`SegmentStarted` p50 and p99 and `Notify` p99, each as jitter against the floor's own best cue, as the bench computes
them; then the largest of each over the runs, and `Notify` p99 over all the runs' cues together, as the bench's
target row takes it. Needs a session bus and a notification server (scripts/test-desktop gives both). Standard library only.
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from intervalbench.desktop import MONITOR_MATCHES  # noqa: E402
from intervalbench.environment import build_cue_floor  # noqa: E402
from intervalbench.measure_cue_floor import floor_cue_times  # noqa: E402
from intervalbench.measure_side_by_side import jitter, minus_floor, pooled_jitter  # noqa: E402

PERIOD_MS = 250


def senders(events, predicate):
    """The senders of the events that satisfy `predicate`, in the order they first sent: floor A started first."""
    found = []
    for m in events:
        if predicate(m) and m["sender"] not in found:
            found.append(m["sender"])
    return found


def one_run(floor, cues, monitor_log):
    t0 = time.monotonic_ns()
    first = subprocess.Popen([floor, str(cues), str(PERIOD_MS), "notify"])
    time.sleep(PERIOD_MS / 2000)
    second = subprocess.Popen([floor, str(cues), str(PERIOD_MS), "notify"])
    if first.wait() or second.wait():
        raise RuntimeError(f"a floor exited with {first.returncode}, {second.returncode}")
    time.sleep(1)
    events = [m for m in map(json.loads, monitor_log.read_text().splitlines()) if t0 <= m["t"]]
    signal_senders = senders(events, lambda m: m.get("interface") == "org.intervald.Bench")
    notify_senders = senders(events, lambda m: m.get("member") == "Notify" and m["args"][:1] == ["floor"])
    if len(signal_senders) != 2 or len(notify_senders) != 2:
        raise RuntimeError(f"expected two floors on the bus, saw {signal_senders} and {notify_senders}")
    times = [floor_cue_times(events, s, n) for s, n in zip(signal_senders, notify_senders)]
    (a_signal, a_notify), (b_signal, b_notify) = ([jitter(t, PERIOD_MS * 1_000_000) for t in pair] for pair in times)
    return {"signal_p50": b_signal["p50_ms"] - a_signal["p50_ms"], "signal_p99": b_signal["p99_ms"] - a_signal["p99_ms"],
            "notify_p99": b_notify["p99_ms"] - a_notify["p99_ms"], "a_signal_p99": a_signal["p99_ms"],
            "b_signal_p99": b_signal["p99_ms"], "a_notify_times": times[0][1], "b_notify_times": times[1][1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cues", default="120,480", help="counts of cues per run, comma-separated")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="floor-beside-floor-"))
    build_cue_floor(work)
    floor, monitor_log = str(work / "c-cue-loop"), work / "busmon.jsonl"
    monitor = subprocess.Popen([sys.executable, str(Path(__file__).resolve().parent / "busmon.py"), "--fifo", "50",
                                str(monitor_log), *MONITOR_MATCHES], stdout=subprocess.PIPE, text=True)
    try:
        if monitor.stdout.readline().strip() != "ready":
            raise RuntimeError("the bus monitor did not start")
        subprocess.run([floor, "8", str(PERIOD_MS), "notify"], check=True)  # the server's and the bus's first use
        for cues in (int(count) for count in args.cues.split(",")):
            worst, notify_times = {}, {"a": [], "b": []}
            for number in range(args.runs):
                time.sleep(1)
                r = one_run(floor, cues, monitor_log)
                notify_times["a"].append(r["a_notify_times"])
                notify_times["b"].append(r["b_notify_times"])
                for key in ("signal_p50", "signal_p99", "notify_p99"):
                    worst[key] = max(worst.get(key, 0.0), abs(r[key]))
                print(f"{cues} cues, run {number + 1}: floor B − floor A: SegmentStarted p50 {r['signal_p50']:+.3f} "
                      f"p99 {r['signal_p99']:+.3f} ms (A {r['a_signal_p99']:.3f}, B {r['b_signal_p99']:.3f}); "
                      f"Notify p99 {r['notify_p99']:+.3f} ms", flush=True)
            pooled = minus_floor(*(pooled_jitter(notify_times[name], PERIOD_MS * 1_000_000) for name in ("b", "a")))
            print(f"{cues} cues, largest |B − A| over {args.runs} runs: SegmentStarted p50 {worst['signal_p50']:.3f}, "
                  f"p99 {worst['signal_p99']:.3f}; Notify p99 {worst['notify_p99']:.3f} ms; Notify p99 B − A over "
                  f"the runs' cues together {pooled['p99_ms']:+.3f} ms", flush=True)
    finally:
        monitor.terminate()
        monitor.wait(timeout=10)


if __name__ == "__main__":
    main()

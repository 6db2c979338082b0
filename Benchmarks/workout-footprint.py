#!/usr/bin/env python3
"""The daemon's resident memory during a workout with the default features and a strap and a machine connected,
per mapping, for one or more builds side by side (docs/benchmarks.md, "Footprint of the package").

    scripts/test-desktop Benchmarks/workout-footprint.py [--seconds S] [--json FILE] NAME=BIN_DIR [NAME=BIN_DIR ...]

Each build's intervald runs with the shipped settings (sound, music lowering, haptics on), a heart-rate strap
notifying four times a second and a treadmill once a second chosen (the tests' BlueZ stand-in,
Benchmarks/sensor_workout.py), and a paced plan of S seconds (default 60) that sets the treadmill at every step. RSS
is sampled every 0.5 s; at the largest sample, where it is, per mapping (Benchmarks/footprint.py); and how much it
grew from 30 s into the plan to its end (from the middle of a plan shorter than a minute), and how much of that is
anonymous memory (heap, stacks). Prints a table per build and the largest mappings side by side. Standard library and
python3-dbusmock only.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import footprint  # noqa: E402  (Benchmarks/footprint.py)
from intervalbench.common import daemon_settings  # noqa: E402
from sensor_workout import daemon_with_sensors, start, state  # noqa: E402


SAMPLE_S, SETTLE_S = 0.5, 30


def rss_kb(pid):
    """The resident set and, of it, the private anonymous memory (heap, stacks, anonymous maps: `RssAnon`), KiB."""
    with open(f"/proc/{pid}/status") as status:
        fields = {line.split(":")[0]: int(line.split()[1])
                  for line in status if line.startswith(("VmRSS:", "RssAnon:"))}
    return fields["VmRSS"], fields["RssAnon"]


def measure(bin_dir, seconds):
    work = Path(tempfile.mkdtemp(prefix="intervald-footprint-"))
    steps = max(1, seconds // 6)
    plan = f"{steps}x(3s work @ 6:00/km, 3s walk @ 10:00/km)"
    with daemon_with_sensors([str(bin_dir / "intervald")], work, daemon_settings(work)) as daemon:
        idle, _ = rss_kb(daemon.pid)
        start(plan)
        samples, anonymous, largest, at_largest = [], [], 0, None
        deadline = time.monotonic() + steps * 6
        while time.monotonic() < deadline and state() != ["idle"]:
            rss, anon = rss_kb(daemon.pid)
            samples.append(rss)
            anonymous.append(anon)
            if rss > largest:
                largest, at_largest = rss, footprint.breakdown(daemon.pid)
            time.sleep(SAMPLE_S)
    # After the first 30 s (docs/benchmarks.md's growth target), or the second half of a shorter plan. The anonymous
    # part apart: what the file-backed rest adds is code and data touched for the first time, not memory kept.
    first = min(int(SETTLE_S / SAMPLE_S), len(samples) // 2)

    def growth(series):
        return series[-1] - series[first] if len(series) > first else 0

    return {"plan": plan, "idle_kb": idle, "max_kb": largest, "samples_kb": samples, "anon_samples_kb": anonymous,
            "growth_kb": growth(samples), "anon_growth_kb": growth(anonymous), "breakdown": at_largest}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="+", metavar="NAME=BIN_DIR")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    for build in args.builds:
        name, _, bin_dir = build.partition("=")
        if not name or not bin_dir or not (Path(bin_dir) / "intervald").is_file():
            parser.error(f"{build!r}: give NAME=BIN_DIR, a directory that holds an intervald")
        results[name] = measure(Path(bin_dir), args.seconds)
        r = results[name]
        print(f"{name}: idle {r['idle_kb'] / 1024:.1f} MiB, largest during the workout {r['max_kb'] / 1024:.1f} MiB, "
              f"grew {r['growth_kb']} KiB after the first 30 s (or half), of which anonymous {r['anon_growth_kb']} KiB "
              f"({r['plan']})")
    names = list(results)
    rows = {}
    for name in names:
        for mapping in results[name]["breakdown"]["mappings"]:
            label = mapping["name"] if not mapping["name"].startswith("/") else Path(mapping["name"]).name
            if label.startswith("intervald"):
                label = "intervald (the binary)"
            rows.setdefault(label, {})[name] = rows.get(label, {}).get(name, 0) + mapping["rss_kb"]
    print(f"\n{'mapping':40}" + "".join(f"{n:>14}" for n in names))
    for label, values in sorted(rows.items(), key=lambda kv: -max(kv[1].values()))[:25]:
        print(f"{label:40}" + "".join(f"{values.get(n, 0):>10} KiB" for n in names))
    print(f"{'total':40}" + "".join(f"{results[n]['max_kb']:>10} KiB" for n in names))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

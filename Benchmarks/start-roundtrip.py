#!/usr/bin/env python3
"""`intervalctl start` with the daemon running, for two or more builds' intervalctl side by side: one daemon (the
first build's), and rounds that alternate between the builds, so that each meets the same machine
(docs/benchmarks.md, "The command line's start").

    scripts/test-desktop Benchmarks/start-roundtrip.py [--rounds R] [--per-round N] NAME=BIN_DIR [NAME=BIN_DIR ...]

Each round runs, for each build in turn, N times each: `intervalctl start --replace -e '2x(30s work)'` (the row
"`intervalctl start` round trip, daemon running" of `scripts/bench`), `intervalctl status` and
`intervalctl --version` (the process's start alone). Prints the p50 and p90 of each, in ms, and how many shared
libraries the build's intervalctl maps. Standard library only.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from intervalbench.common import daemon_settings  # noqa: E402

COMMANDS = {
    "start": ["start", "--replace", "-e", "2x(30s work)"],
    "status": ["status"],
    "version": ["--version"],
}


def timed(command):
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def libraries(intervalctl):
    """How many shared libraries the process maps, from a `status --follow` left running for a moment."""
    follower = subprocess.Popen([intervalctl, "status", "--follow"], stdout=subprocess.PIPE, text=True)
    try:
        follower.stdout.readline()
        with open(f"/proc/{follower.pid}/maps") as maps:
            return len({line.split()[-1] for line in maps if ".so" in line})
    finally:
        follower.kill()
        follower.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--per-round", type=int, default=25)
    parser.add_argument("builds", nargs="+", metavar="NAME=BIN_DIR")
    args = parser.parse_args()
    builds = {name: Path(path) for name, path in (build.split("=", 1) for build in args.builds)}
    work = Path(tempfile.mkdtemp(prefix="intervald-start-roundtrip-"))
    first = next(iter(builds.values()))
    daemon = subprocess.Popen([str(first / "intervald"), "--config", str(daemon_settings(work)),
                               "--log-level", "warning"])
    try:
        ctl = {name: str(path / "intervalctl") for name, path in builds.items()}
        deadline = time.monotonic() + 10
        while subprocess.run([ctl[next(iter(ctl))], "status"], capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                sys.exit("the daemon did not answer within 10 s")
            time.sleep(0.05)
        times = {(name, what): [] for name in builds for what in COMMANDS}
        for _ in range(args.rounds):
            for name in builds:
                for what, arguments in COMMANDS.items():
                    times[(name, what)] += [timed([ctl[name], *arguments]) for _ in range(args.per_round)]
        subprocess.run([ctl[next(iter(ctl))], "stop"], check=True, stdout=subprocess.DEVNULL)
        print(f"{args.rounds} rounds of {args.per_round} per command, alternating; ms")
        print(f"{'build':<12} {'libraries':>9} " + " ".join(f"{what + ' p50':>12} {what + ' p90':>12}"
                                                         for what in COMMANDS))
        for name in builds:
            cells = []
            for what in COMMANDS:
                series = sorted(times[(name, what)])
                cells += [f"{statistics.median(series):12.2f}", f"{series[int(len(series) * 0.9)]:12.2f}"]
            print(f"{name:<12} {libraries(ctl[name]):>9} " + " ".join(cells))
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


if __name__ == "__main__":
    main()

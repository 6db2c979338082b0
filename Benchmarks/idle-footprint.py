#!/usr/bin/env python3
"""What intervald costs between workouts, and its memory during one (docs/benchmarks.md, "Idle and footprint").

    scripts/test-desktop Benchmarks/idle-footprint.py [--rounds N] [--json FILE] NAME=BIN_DIR [NAME=BIN_DIR ...]

For each build (a directory holding intervald and intervalctl, e.g. a dynamic and a --static-swift-stdlib one),
on the test desktop's bus with dunst, N rounds of:
  1. `intervalctl start` with no daemon running: the round trip that includes D-Bus activation;
  2. `intervalctl start --replace` with the daemon running: the same call without activation;
  3. RSS, PSS and USS of the daemon while the workout runs and its first cue is on screen (Benchmarks/footprint.py);
  4. `intervalctl stop`, then how long until the idle daemon leaves the bus and exits (idle-exit = 1 here; the
     default is 120 s), and how many intervald processes of that build are left (0 expected).
Prints a table per build (medians, and min-max); --json writes every sample. Standard library only.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import footprint  # noqa: E402  (Benchmarks/footprint.py)

SERVICE = "org.intervald.Timer1"
PLAN = "10m run"


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"idle-footprint: timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


def owner_pid():
    result = subprocess.run(["busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                             "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s", SERVICE],
                            capture_output=True, text=True)
    return int(result.stdout.split()[1]) if result.returncode == 0 else None


def reload_bus():
    subprocess.run(["busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                    "org.freedesktop.DBus", "ReloadConfig"], check=True, capture_output=True)


def timed(argv):
    started = time.monotonic()
    subprocess.run(argv, check=True, capture_output=True)
    return (time.monotonic() - started) * 1000


def processes_of(binary):
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/exe") == str(binary):
                    count += 1
            except OSError:
                pass
    return count


def notifications_shown():
    with open(os.environ["INTERVALD_TEST_NOTIFY_LOG"]) as log:
        return sum(1 for line in log if "\tapp=intervald\t" in line)


def measure(name, bin_dir, rounds, work):
    daemon = (bin_dir / "intervald").resolve()
    ctl = str(bin_dir / "intervalctl")
    config = work / "intervald.toml"
    config.write_text('idle-exit = 1\n[notifications]\nsound = false\n')
    service = Path(os.environ["INTERVALD_TEST_DBUS_SERVICE_DIR"]) / f"{SERVICE}.service"
    service.write_text(f"[D-BUS Service]\nName={SERVICE}\nExec=/bin/sh -c 'XDG_STATE_HOME={work}/state "
                       f"exec {daemon} --config {config} 2>>{work}/{name}.log'\n")
    reload_bus()
    samples = []
    try:
        for _ in range(rounds):
            wait_until(lambda: owner_pid() is None, 10, "no daemon before the round")
            sample = {"cold_start_ms": timed([ctl, "start", "-e", PLAN])}
            pid = owner_pid()
            sample["warm_start_ms"] = timed([ctl, "start", "--replace", "-e", PLAN])
            shown = notifications_shown()
            wait_until(lambda: notifications_shown() > shown, 10, "the cue on screen")
            time.sleep(1)  # let the cue's threads settle: this is the daemon during a workout, not mid-cue
            breakdown = footprint.breakdown(pid)
            sample.update({key: breakdown["total"][key] for key in ("rss_kb", "pss_kb", "uss_kb", "anonymous_kb")})
            sample["file_backed_rss_kb"] = breakdown["file_backed_rss_kb"]
            sample["top_mappings"] = [(m["name"], m["rss_kb"]) for m in breakdown["mappings"][:6]]
            stopped = time.monotonic()
            subprocess.run([ctl, "stop"], check=True, capture_output=True)
            wait_until(lambda: owner_pid() is None, 10, "the idle daemon to leave the bus")
            sample["idle_exit_s"] = time.monotonic() - stopped
            wait_until(lambda: not os.path.exists(f"/proc/{pid}") or
                       open(f"/proc/{pid}/stat").read().split()[2] == "Z", 10, "the idle daemon to exit")
            sample["processes_left"] = processes_of(daemon)
            samples.append(sample)
    finally:
        service.unlink()
        reload_bus()
    return samples


def summary(samples, key):
    values = [s[key] for s in samples]
    return statistics.median(values), min(values), max(values)


def main():
    args = sys.argv[1:]
    rounds, json_path, builds = 5, None, []
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--json":
            json_path = args.pop(0)
        elif "=" in arg:
            name, _, path = arg.partition("=")
            builds.append((name, Path(path)))
        else:
            raise SystemExit(__doc__)
    if not builds or "INTERVALD_TEST_DBUS_SERVICE_DIR" not in os.environ:
        raise SystemExit(__doc__)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, bin_dir in builds:
            work = Path(tmp) / name
            work.mkdir()
            results[name] = measure(name, bin_dir, rounds, work)
    rows = [("start with activation (ms)", "cold_start_ms", 1), ("start, daemon running (ms)", "warm_start_ms", 1),
            ("RSS during a workout (KiB)", "rss_kb", 0), ("  of which file-backed (KiB)", "file_backed_rss_kb", 0),
            ("PSS (KiB)", "pss_kb", 0), ("USS (KiB)", "uss_kb", 0), ("anonymous (KiB)", "anonymous_kb", 0),
            ("Stop to exit, idle-exit = 1 (s)", "idle_exit_s", 2), ("intervald processes left", "processes_left", 0)]
    print(f"{rounds} rounds; median (min-max)")
    print(f"{'':34}" + "".join(f"{name:>26}" for name in results))
    for label, key, digits in rows:
        cells = []
        for samples in results.values():
            median, low, high = summary(samples, key)
            cells.append(f"{median:.{digits}f} ({low:.{digits}f}-{high:.{digits}f})")
        print(f"{label:34}" + "".join(f"{cell:>26}" for cell in cells))
    for name, samples in results.items():
        print(f"{name}: largest mappings in the last round: " +
              ", ".join(f"{n.rsplit('/', 1)[-1]} {kb}" for n, kb in samples[-1]["top_mappings"]))
    if json_path:
        Path(json_path).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

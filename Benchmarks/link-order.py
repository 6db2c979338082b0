#!/usr/bin/env python3
"""The packaged daemon's link order (packaging/intervald.order): the functions a workout runs, to be laid out together.

    scripts/test-desktop Benchmarks/link-order.py BIN_DIR [--output FILE]

BIN_DIR holds an intervald built as the package builds it (scripts/install --static-swift-stdlib). The daemon starts
under valgrind's callgrind with the shipped settings, a heart-rate strap and a treadmill chosen (the tests' BlueZ
stand-in, Benchmarks/sensor_workout.py), runs a paced plan to its end (its cues' notifications and sounds, the
treadmill set at each step) and exits on SIGTERM. Every function of the binary that ran is written to FILE (default:
packaging/intervald.order), one symbol a line: first those that ran once the workout's start had settled (its cues, the
strap's and the treadmill's readings), then those that ran before (start-up, the workout's start), then at its end and
exit, each part in the order callgrind first lists them; and then the few a workout runs only now and then
(SELDOM_RUN). The daemon gives back the pages of code it ran only at start-up and at a workout's start
(``MemorySettler``): what stays resident is the code its cues run, laid out together first.

Why: the linker otherwise leaves the few thousand functions a workout runs scattered over 11 MiB of code, and the
kernel maps the cached pages around each page of code touched (fault-around, 64 KiB), so scattered code is resident
code. scripts/install hands this file to lld (--symbol-ordering-file) for the packaged build. A function missing from
it still works, only laid out among the others; regenerate the file when the daemon's code changes much:

    INTERVALD_SCRATCH_PATH=.build-deb scripts/install --static-swift-stdlib --configuration release --destdir /tmp/s
    scripts/test-desktop Benchmarks/link-order.py .build-deb/release
"""
import argparse
import collections
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from intervalbench.common import daemon_settings
from sensor_workout import PLAN, REPO, daemon_with_sensors, start, state, wait_until


# Functions a workout runs now and then that one profiled run seldom sees: libdispatch's wait for a thread still
# linking a block into a queue, taken only when two threads meet there. Left out, the first one, minutes into a
# workout, made the kernel map the 64 KiB of code around it (docs/benchmarks.md, "Growth after the first 30 s").
SELDOM_RUN = ["_dispatch_wait_for_enqueuer"]

# How long after Start the workout's start has settled (the daemon's own settling is 3 s, and valgrind is slower).
STARTED_S = 8


def functions_run(callgrind_out, binary):
    """The symbols callgrind saw run in `binary` (its `fn=` entries under `ob=binary`), first seen first; not those
    that several objects define (local value witnesses, `$sSqwxx`): lld would move all of them, and with each the
    object's whole `.text` when it has no section of its own (the runtime's libraries have 0.4 MiB ones)."""
    defined = collections.Counter(line.split()[-1] for line in subprocess.run(
        ["nm", "--defined-only", str(binary)], check=True, capture_output=True, text=True).stdout.splitlines())
    seen, order, current = set(), [], None
    for line in callgrind_out.read_text().splitlines():
        if line.startswith("ob="):
            current = line[3:]
        elif line.startswith("fn=") and current == str(binary):
            name = re.sub(r"'\d+$", "", line[3:])  # a recursive cycle's member is listed again as NAME'2
            if name not in seen and defined[name] == 1:
                seen.add(name)
                order.append(name)
    return order


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bin_dir", type=Path)
    parser.add_argument("--output", type=Path, default=REPO / "packaging" / "intervald.order")
    args = parser.parse_args()
    if not (args.bin_dir / "intervald").is_file():
        parser.error(f"{args.bin_dir} holds no intervald")
    work = Path(tempfile.mkdtemp(prefix="intervald-link-order-"))
    # valgrind cannot read the DWARF of a Swift static build; the symbol table is all the profile needs.
    binary = work / "intervald"
    subprocess.run(["strip", "--strip-debug", "-o", str(binary), str(args.bin_dir / "intervald")], check=True)
    profile = work / "callgrind.out"
    callgrind = ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no", "--compress-strings=no",
                 "--compress-pos=no", f"--callgrind-out-file={profile}"]
    # The daemon execs itself again to turn malloc's per-thread caches off (MallocTuning), unless GLIBC_TUNABLES sets
    # them: valgrind would not follow that exec. Under valgrind's own malloc, the setting means nothing.
    os.environ["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=0"
    with daemon_with_sensors([*callgrind, str(binary)], work, daemon_settings(work), startup_timeout=120) as daemon:
        start(PLAN)
        # The profile in three parts (callgrind.out.1, .2, and callgrind.out at exit): the start, the cues, the end.
        time.sleep(STARTED_S)
        subprocess.run(["callgrind_control", "--dump=started", str(daemon.pid)], check=True, capture_output=True)
        wait_until(lambda: state() == ["idle"], 300, "the plan to end")
        subprocess.run(["callgrind_control", "--dump=cues", str(daemon.pid)], check=True, capture_output=True)
    started, cues, ended = (functions_run(part, binary) for part in (Path(f"{profile}.1"), Path(f"{profile}.2"), profile))
    order = list(dict.fromkeys(cues + started + ended))
    if len(order) < 100:
        raise SystemExit(f"link-order: only {len(order)} functions of {binary} in the profile; see {work}")
    order += [name for name in SELDOM_RUN if name not in order]
    args.output.write_text("".join(f"{name}\n" for name in order))
    print(f"link-order: {len(order)} functions → {args.output}")


if __name__ == "__main__":
    main()

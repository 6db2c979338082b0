"""Outside the desktop: the build, the reference programs, the machine's facts and load, and the private desktop
(scripts/test-desktop: session bus, Xvfb, dunst) that the measurements run in."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import BENCH_DIR, REPO, log, run

ENTRY_POINT = REPO / "scripts" / "bench"


def build_binaries(bin_dir, scratch_path):
    """intervald, intervalctl and interval-timer (the window): from `bin_dir` as found, or built in `scratch_path` as
    the Debian package builds them (scripts/install --static-swift-stdlib: a release with the Swift and C++ runtimes
    linked in, the package's link order), so that the figures are those of what ships.
    Returns (bin_dir, the build's description)."""
    if bin_dir:
        bin_dir = Path(bin_dir).resolve()
        build = {"configuration": "as found", "bin_dir": str(bin_dir), "build_seconds": None}
    else:
        log(f"building the package's release in {scratch_path} …")
        t0 = time.monotonic()
        subprocess.run([str(REPO / "scripts" / "install"), "--build-only", "--static-swift-stdlib"], cwd=REPO,
                       env={**os.environ, "INTERVALD_SCRATCH_PATH": str(Path(scratch_path).resolve())}, check=True)
        bin_dir = Path(run(["swift", "build", "-c", "release", "--scratch-path", scratch_path, "--show-bin-path"],
                           cwd=REPO).strip())
        build = {"configuration": "the package's release (scripts/install --static-swift-stdlib)",
                 "bin_dir": str(bin_dir), "build_seconds": round(time.monotonic() - t0, 1)}
    build["source"] = source_state()
    for tool in ("intervald", "intervalctl"):
        if not (bin_dir / tool).exists():
            sys.exit(f"bench: {bin_dir / tool} does not exist")
    for tool in ("busctl", "gdbus", "notify-send", "Xvfb", "dunst"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} is not installed")
    return bin_dir, build


def measure_in_desktop(config):
    """Re-runs the entry point with --inner inside a private test desktop, with private XDG directories; returns the
    raw data the measurements wrote."""
    work = Path(tempfile.mkdtemp(prefix="intervald-bench."))
    try:
        (work / "config.json").write_text(json.dumps({**config, "work": str(work)}))
        env = dict(os.environ)
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            path = work / "xdg" / name.lower()
            path.mkdir(parents=True, exist_ok=True)
            env[name] = str(path)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # always a private bus, never the user's desktop
        env["INTERVALD_TEST_DESKTOP_TIMEOUT"] = "20"
        log("measuring inside a private test desktop (session bus + Xvfb + dunst) …")
        subprocess.run([str(REPO / "scripts" / "test-desktop"), inner_python(), str(ENTRY_POINT),
                        "--inner", str(work)], env=env, check=True)
        return json.loads((work / "raw.json").read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def inner_python():
    """The Python that runs the measurements: one with dbus-python, which drives the BlueZ stand-in of the tests
    (Debian's, as scripts/test picks it, where a python3 of its own comes first on PATH), else this one."""
    for candidate in ("/usr/bin/python3", sys.executable):
        if subprocess.run([candidate, "-c", "import dbus"], capture_output=True).returncode == 0:
            return candidate
    return sys.executable


def source_state():
    """The commit the sources are at, and the source files that differ from it (the build includes those edits)."""
    def git(*args):
        result = subprocess.run(["git", *args], cwd=REPO, text=True, capture_output=True)
        return result.stdout.strip() if result.returncode == 0 else ""

    changed = [line[3:] for line in git("status", "--porcelain", "--", "Sources", "Package.swift").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD") or "unknown", "uncommitted": changed}


def build_cue_floor(floor_dir):
    """Compiles Benchmarks/floor/c-cue-loop.c, the floor for cue lateness (a C timer loop emitting a signal, and with
    `notify` showing a notification too)."""
    floor_dir.mkdir(parents=True, exist_ok=True)
    flags = run(["pkg-config", "--cflags", "--libs", "libsystemd", "libnotify"]).split()
    subprocess.run(["cc", "-O2", str(BENCH_DIR / "floor" / "c-cue-loop.c"), "-o", str(floor_dir / "c-cue-loop"),
                    *flags], check=True)


def build_floors(floor_dir):
    """Compiles the reference programs of Benchmarks/floor: what the runtime and libraries cost before any app code."""
    log("building the reference programs (Benchmarks/floor) …")
    floor_dir.mkdir(parents=True, exist_ok=True)
    src = BENCH_DIR / "floor"
    for name in ("swift-core", "swift-essentials", "swift-foundation"):
        subprocess.run(["swiftc", "-O", "-module-cache-path", str(floor_dir / "module-cache"),
                        str(src / f"{name}.swift"), "-o", str(floor_dir / name)], check=True, capture_output=True)
    flags = run(["pkg-config", "--cflags", "--libs", "libnotify", "libsystemd"]).split()
    subprocess.run(["cc", "-O2", str(src / "c-libnotify.c"), "-o", str(floor_dir / "c-libnotify"), *flags], check=True)


def machine_load():
    loadavg = Path("/proc/loadavg").read_text().split()[:3]
    frontends = 0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() in ("swift-frontend", "swift-build", "clang", "ld", "ld.gold"):
                    frontends += 1
            except OSError:
                pass
    return {"loadavg_1_5_15": [float(x) for x in loadavg], "compiler_processes": frontends}


def machine_facts(bin_dir):
    def first(argv):
        try:
            return subprocess.run(argv, text=True, capture_output=True, timeout=30).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return "unknown"

    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*(.*)$", cpuinfo, re.M)
    meminfo = Path("/proc/meminfo").read_text()
    mem_kb = int(re.search(r"^MemTotal:\s*(\d+)", meminfo, re.M).group(1))
    virt = "unknown"
    try:
        virt = subprocess.run(["systemd-detect-virt"], text=True, capture_output=True).stdout.strip() or "none"
    except OSError:
        pass
    if re.search(r"^flags\s*:.*\bhypervisor\b", cpuinfo, re.M):
        virt += " (systemd-detect-virt); the CPU runs under a hypervisor"

    def deb(package):
        return first(["dpkg-query", "-W", "-f=${Version}", package])

    return {
        "cpu_model": model.group(1) if model else "unknown",
        "cpu_mhz": float(mhz.group(1)) if mhz else None,
        "cpus": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": os.uname().release,
        "os": "Debian " + Path("/etc/debian_version").read_text().strip(),
        "virtualization": virt,
        "swift": first(["swift", "--version"]),
        "python": sys.version.split()[0],
        "dbus_daemon": deb("dbus-daemon") if deb("dbus-daemon") != "unknown" else deb("dbus"),
        "libsystemd": deb("libsystemd0"),
        "libnotify": deb("libnotify4"),
        "dunst": deb("dunst"),
        "binaries": str(bin_dir),
        "intervald_size_mb": round((bin_dir / "intervald").stat().st_size / 1e6, 1),
    }

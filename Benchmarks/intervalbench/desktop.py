"""Inside the private desktop: `Bench`, the context every measurement gets, and the loop that runs them.

`Bench` owns the daemon under test (start, stop, its pid), the bus helpers (busctl calls, waiting for names), the
one independent monitor (Benchmarks/busmon.py, SCHED_FIFO) that stamps every timed event, a stand-in system bus, and
background work (the long RSS plan) that timing-sensitive measurements wait for."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .common import BENCH_DIR, OBJECT, SERVICE, daemon_settings, log

# Only the timed events: a monitor busy with other messages stamps the next one late.
MONITOR_MATCHES = ["type='signal',interface='org.intervald.Timer1',member='SegmentStarted'",
                   "type='signal',interface='org.intervald.Timer1',member='Finished'",
                   "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
                   "type='signal',path='/org/mpris/MediaPlayer2',member='PropertiesChanged'",
                   "type='signal',interface='org.intervald.Bench',member='SegmentStarted'"]


class Bench:
    """What a measurement's run(bench) gets: `p` (the parameters: common.FULL or QUICK plus the measurements' PARAMS),
    `quick`, `work` (a scratch directory), `bin` (intervald and intervalctl), `pid` (the running daemon),
    `monitor_path` (read with `events`), `cue_floor` and `floor_dir` (the reference programs), and the helpers below."""

    def __init__(self, work):
        self.work = work
        config = json.loads((work / "config.json").read_text())
        self.p = config["params"]
        self.quick = config["quick"]
        self.bin = Path(config["bin_dir"])
        self.daemon = None
        self.daemon_log = open(work / "intervald.log", "a")
        self.settings = daemon_settings(work)
        self.floor_dir = Path(config["floor_dir"]) if config.get("floor_dir") else None
        self.monitor_logs = {}
        self.cue_floor = config["cue_floor"]
        self.monitor_path = work / "busmon.jsonl"
        self.background = []  # (name, finish() -> dict of raw data), see run_in_background
        #: Variables the daemon gets on top of the bench's environment, e.g. another system bus.
        self.daemon_env = {}

    # -- the bus

    def busctl(self, *args, check=True, timeout=20):
        return subprocess.run(["busctl", "--user", *args], text=True, capture_output=True, check=check,
                              timeout=timeout)

    def call(self, method, *sig_args, check=True):
        return self.busctl("call", SERVICE, OBJECT, SERVICE, method, *sig_args, check=check)

    def name_owned(self):
        out = self.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "NameHasOwner", "s", SERVICE).stdout
        return out.strip() == "b true"

    def owner_pid(self):
        result = self.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "GetConnectionUnixProcessID", "s", SERVICE, check=False)
        return int(result.stdout.split()[1]) if result.returncode == 0 else None

    def wait_for(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}")
            time.sleep(0.02)

    def start_daemon(self):
        self.daemon = subprocess.Popen([str(self.bin / "intervald"), "--config", str(self.settings),
                                        "--log-level", "warning"], stdout=self.daemon_log, stderr=self.daemon_log,
                                       env={**os.environ, **self.daemon_env})
        self.wait_for(self.name_owned, 20, "intervald to own its name")
        return self.daemon.pid

    def stop_daemon(self):
        pid = self.owner_pid()
        if pid:
            os.kill(pid, signal.SIGTERM)
        if self.daemon:
            self.daemon.wait(timeout=20)
            self.daemon = None
        self.wait_for(lambda: not self.name_owned(), 20, "intervald to leave the bus")

    def state(self):
        out = self.busctl("get-property", SERVICE, OBJECT, SERVICE, "State").stdout.split()
        return out[1].strip('"')

    def events(self, path, since, until):
        """The monitor's messages stamped in [since, until]. Reads only what was appended since the last call."""
        log_state = self.monitor_logs.setdefault(str(path), {"offset": 0, "messages": [], "partial": ""})
        with open(path) as f:
            f.seek(log_state["offset"])
            chunk = f.read()
            log_state["offset"] = f.tell()
        lines = (log_state["partial"] + chunk).split("\n")
        log_state["partial"] = lines.pop()
        for line in lines:
            try:
                log_state["messages"].append(json.loads(line))
            except json.JSONDecodeError:
                pass
        return [m for m in log_state["messages"] if since <= m["t"] <= until]

    def wait_for_message(self, predicate, since, timeout, what, poll=0.25):
        """Waits until the monitor has seen a message that satisfies `predicate`, stamped after `since`."""
        deadline = time.monotonic() + timeout
        while not any(predicate(m) for m in self.events(self.monitor_path, since, 1 << 62)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {what}")
            time.sleep(poll)

    def wait_for_member(self, member, since, timeout, what):
        """Waits until the monitor has seen a `member` message (e.g. the Finished signal) stamped after `since`."""
        self.wait_for_message(lambda m: m.get("member") == member, since, timeout, what)

    def start_monitor(self, path, matches):
        monitor = subprocess.Popen([sys.executable, str(BENCH_DIR / "busmon.py"), "--fifo", "50", str(path), *matches],
                                   stdout=subprocess.PIPE, text=True)
        if monitor.stdout.readline().strip() != "ready":
            raise RuntimeError("the bus monitor did not start")
        return monitor

    # -- the stand-in system bus

    def start_system_bus(self):
        """A private stand-in for the system bus, so that the daemon's suspend watch (logind's PrepareForSleep on the
        system bus) connects and installs its match as it does on a desktop. This machine has no system bus."""
        conf = self.work / "system-bus.conf"
        conf.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir={self.work}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""")
        bus = subprocess.Popen(["dbus-daemon", "--config-file", str(conf), "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        address = bus.stdout.readline().strip()
        if not address:
            raise RuntimeError("the stand-in system bus did not start")
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = address
        return bus

    def on_system_bus(self, pid):
        """Whether process `pid` holds a connection to the stand-in system bus."""
        address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]

        def call(method, *args):
            return subprocess.run(["busctl", f"--address={address}", "call", "org.freedesktop.DBus",
                                   "/org/freedesktop/DBus", "org.freedesktop.DBus", method, *args],
                                  text=True, capture_output=True).stdout.split()

        for name in call("ListNames"):
            name = name.strip('"')
            if name.startswith(":"):
                answer = call("GetConnectionUnixProcessID", "s", name)
                if len(answer) == 2 and answer[1] == str(pid):
                    return True
        return False

    # -- the daemon and commands

    def timed(self, argv, repeats, env=None):
        """Wall times (ms) of `repeats` runs of a command."""
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            times.append((time.perf_counter() - t0) * 1000)
        return times

    @property
    def pid(self):
        """The pid of the daemon this Bench started (None if it is not running)."""
        return self.daemon.pid if self.daemon else None

    def restart_daemon(self):
        """A fresh daemon: stops the running one (if any) and starts another; returns its pid."""
        if self.daemon or self.name_owned():
            self.stop_daemon()
        return self.start_daemon()

    # -- background work

    def run_in_background(self, name, finish):
        """Registers work that runs on while later measurements do: `finish()` waits for it and returns its raw
        data. Measurements with NEEDS_QUIET_MACHINE, and the end of the run, call finish_background first."""
        self.background.append((name, finish))

    def finish_background(self, raw):
        while self.background:
            name, finish = self.background.pop(0)
            log(f"waiting for {name} to end …")
            raw.update(finish())


def merge(raw, part):
    """Adds a measurement's raw data; a dict that several measurements contribute to (e.g. "lateness") is merged."""
    for key, value in part.items():
        if isinstance(value, dict) and isinstance(raw.get(key), dict):
            raw[key].update(value)
        else:
            raw[key] = value


def measure(work, measurements):
    """Runs the measurements in order against one daemon, on one bus, under one monitor; writes WORK/raw.json."""
    bench = Bench(work)
    os.chdir(work)
    raw = {}
    system_bus = bench.start_system_bus()
    monitor = bench.start_monitor(bench.monitor_path, MONITOR_MATCHES)
    try:
        bench.start_daemon()
        for measurement in measurements:
            if getattr(measurement, "NEEDS_QUIET_MACHINE", False):
                bench.finish_background(raw)
            merge(raw, measurement.run(bench))
        bench.finish_background(raw)
    finally:
        if bench.daemon or bench.name_owned():
            try:
                bench.stop_daemon()
            except Exception as error:  # noqa: BLE001 - best effort at teardown
                log(f"could not stop intervald: {error}")
        monitor.send_signal(signal.SIGTERM)
        monitor.wait(timeout=10)
        system_bus.terminate()
        system_bus.wait(timeout=10)
    (work / "raw.json").write_text(json.dumps(raw))
    return 0

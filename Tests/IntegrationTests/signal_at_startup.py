"""Signals intervald the instant its bus name appears, over and over, and counts how each start ended.

The moment a daemon's name appears is when every part of it is still starting: the notification thread, the sound
and voice connections, the audio server's context for the music lowering, the tray item. A shutdown signal then
must take the clean path (exit 0, "Shutting down." logged), never a crash; SIGHUP must reload the settings ("Reloaded
the settings." logged) and leave the daemon serving, which a SIGTERM then ends the same clean way. Shared by
test_daemon.py (a short run, in CI) and the long run:

    scripts/test-desktop python3 Tests/IntegrationTests/signal_at_startup.py [--count 1000]
        [--audio none|pulseaudio|pipewire] [--signal TERM|INT|HUP] [--spread-ms MS] [--cores DIR]

It prints one line per outcome (exit 0, or the status or signal and the log's tail) and a closing count; exits 1 if
any start did not end with exit 0. With --cores DIR, a crashed daemon's core dump is kept there (the kernel's
core_pattern must write cores to the working directory: the default `core`).
"""
import argparse
import collections
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from audio import PrivatePipeWire, PrivatePulse  # noqa: E402
from conftest import BIN, SERVICE, allow_core_dump  # noqa: E402

# Reads "PID SIGNAL" per line; sends the signal as soon as the daemon's name is on the bus (a tight loop on one
# connection: the signal follows the name by well under a millisecond), or up to argv[2] ms later at random, then says
# so; says again once the name is released.
NAME_WATCHER = f"""
import dbus, os, random, sys, time
has_owner = dbus.SessionBus().get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").get_dbus_method(
    "NameHasOwner", "org.freedesktop.DBus")
print("ready", flush=True)
for line in sys.stdin:
    pid, number = map(int, line.split())
    deadline = time.monotonic() + float(sys.argv[1])
    while not has_owner("{SERVICE}") and time.monotonic() < deadline:
        pass
    time.sleep(random.uniform(0, float(sys.argv[2]) / 1000))
    os.kill(pid, number)
    print("sent", flush=True)
    while has_owner("{SERVICE}") and time.monotonic() < deadline + 10:
        time.sleep(0.001)
    print("released", flush=True)
"""

AUDIO_SERVERS = {"none": None, "pulseaudio": PrivatePulse, "pipewire": PrivatePipeWire}


class SignalAtStartup:
    """Starts daemons in `directory` with `environment` and signals each as soon as its name appears."""

    def __init__(self, directory, environment, timeout=10, cores=None, spread_ms=0):
        self.directory = Path(directory)
        self.environment = {**environment, "XDG_STATE_HOME": str(self.directory / "state")}
        self.timeout = timeout
        self.cores = Path(cores) if cores else None
        self.watcher = subprocess.Popen(["/usr/bin/python3", "-c", NAME_WATCHER, str(timeout), str(spread_ms)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=self.environment)
        if self.watcher.stdout.readline() != "ready\n":
            raise AssertionError("the name watcher did not start")

    def once(self, number):
        """Starts a daemon, signals it with `number` the instant its name appears; returns (exit status, log)."""
        log_path = self.directory / "intervald.log"
        with log_path.open("w") as log:
            daemon = subprocess.Popen(
                [str(BIN / "intervald"), "--config", str(self.directory / "none.toml")], env=self.environment,
                stdout=subprocess.DEVNULL, stderr=log, cwd=self.directory,
                preexec_fn=allow_core_dump if self.cores else None)
        try:
            self.watcher.stdin.write(f"{daemon.pid} {number}\n")
            self.watcher.stdin.flush()
            if self.watcher.stdout.readline() != "sent\n":
                raise AssertionError("the name watcher stopped")
            if number == signal.SIGHUP:
                # A reload, not an exit: once it is logged (or the daemon died), the daemon is asked to stop.
                deadline = time.monotonic() + self.timeout
                while ("Reloaded the settings." not in log_path.read_text() and daemon.poll() is None
                       and time.monotonic() < deadline):
                    time.sleep(0.005)
                if daemon.poll() is None:
                    daemon.send_signal(signal.SIGTERM)
            status = daemon.wait(timeout=self.timeout)
            if self.watcher.stdout.readline() != "released\n":
                raise AssertionError("the name watcher stopped")
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
        if status != 0 and self.cores:
            core = self.directory / "core"
            if core.exists():
                self.cores.mkdir(parents=True, exist_ok=True)
                core.rename(self.cores / f"core.{daemon.pid}")
        return status, log_path.read_text()

    def close(self):
        self.watcher.kill()
        self.watcher.wait()


def ended_cleanly(number, status, log):
    """Exit 0 through the shutdown path, after a reload for SIGHUP."""
    return status == 0 and "Shutting down." in log and (number != signal.SIGHUP or "Reloaded the settings." in log)


def describe(status):
    if status == 0:
        return "exit 0"
    if status < 0:
        return f"killed by {signal.Signals(-status).name}"
    return f"exit {status}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--audio", choices=sorted(AUDIO_SERVERS), default="pulseaudio")
    parser.add_argument("--signal", choices=["TERM", "INT", "HUP"], default="TERM")
    parser.add_argument("--spread-ms", type=float, default=0,
                        help="send each signal up to this long after the name appears, at random (default 0)")
    parser.add_argument("--cores", help="keep crashed daemons' core dumps in this directory")
    options = parser.parse_args()
    if "DBUS_SESSION_BUS_ADDRESS" not in os.environ:
        parser.error("needs a session bus: run it under scripts/test-desktop")
    server = AUDIO_SERVERS[options.audio]() if AUDIO_SERVERS[options.audio] else None
    number = signal.Signals[f"SIG{options.signal}"]
    outcomes = collections.Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="intervald-signal.") as directory:
        run = SignalAtStartup(directory, {**os.environ, **(server.env if server else {})}, cores=options.cores,
                              spread_ms=options.spread_ms)
        try:
            for attempt in range(1, options.count + 1):
                status, log = run.once(number)
                clean = ended_cleanly(number, status, log)
                outcome = "exit 0" if clean else describe(status) + ("" if status else ", no shutdown or reload logged")
                outcomes[outcome] += 1
                if not clean:
                    print(f"attempt {attempt}: {outcome}\n" + "\n".join(log.splitlines()[:25]), flush=True)
        finally:
            run.close()
            if server:
                server.close()
    print(f"SIG{options.signal} with {options.audio}: {options.count} starts in {time.monotonic() - started:.0f} s: "
          + ", ".join(f"{count} {outcome}" for outcome, count in outcomes.most_common()))
    return 0 if outcomes["exit 0"] == options.count else 1


if __name__ == "__main__":
    sys.exit(main())

"""A workout nothing interrupts (docs/reference.md §6): the daemon keeps the session from suspending for idleness while
a workout exists, however it was started, and a sleep that comes anyway pauses it first.

- The desktop's side with the real parts: GNOME's session manager (gnome-session 43, headless, on a private session bus
  with a private system bus) lists the daemon's suspend inhibitor while a workout started by intervalctl runs, with no
  window open, and none before, after its end, or after the daemon is killed; the real desktop portal
  (xdg-desktop-portal 1.16, started by the bus as on a desktop) holds it where no session manager runs.
- logind's side on a private system bus, by a stand-in speaking the login1 API (logind.py; no logind can run in these
  containers): the sleep delay held during a workout, PrepareForSleep(true) pausing it, state written, within the
  delay, the notification after the wake, `on-sleep = "continue"`.
"""
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (BIN, BusMonitor, NotifyLog, SLOWDOWN, desktop_required, end_processes, owns_name, press,
                      private_bus, wait_until)

HERE = Path(__file__).parent
SERVICE = "org.intervald.Timer1"
REASON = "Interval Timer: {} is running"


class Daemon:
    """intervald started directly on the session bus of `env`, with its state in `tmp_path / "state"`."""

    def __init__(self, tmp_path, env, settings=""):
        self.env = env
        self.state = tmp_path / "state" / "intervald"
        config = tmp_path / "intervald.toml"
        config.write_text("[notifications]\nsound = false\n" + settings)
        self.log = tmp_path / "intervald.log"
        self.process = None
        self.config = config

    def start(self):
        self.process = subprocess.Popen(
            [str(BIN / "intervald"), "--config", str(self.config), "--log-level", "debug"],
            env={**self.env, "XDG_STATE_HOME": str(self.state.parent)}, stderr=open(self.log, "a"))
        wait_until(lambda: owns_name(SERVICE, self.env) or self.process.poll() is not None, 20 * SLOWDOWN,
                   "the daemon on the bus")
        assert self.process.poll() is None, self.log.read_text()
        return self

    def ctl(self, *args):
        result = subprocess.run([str(BIN / "intervalctl"), *args], capture_output=True, text=True, env=self.env,
                                timeout=30)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def status(self):
        return json.loads(self.ctl("status", "--json"))

    def history(self):
        path = self.state / "history.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            assert self.process.wait(timeout=10) == 0


class Desktop:
    """A private session bus and system bus, and on them, when asked, GNOME's session manager."""

    def __init__(self, tmp_path):
        runtime = tmp_path / "runtime"
        runtime.mkdir(mode=0o700)
        sessions = tmp_path / "share" / "gnome-session" / "sessions"
        sessions.mkdir(parents=True)
        # A session of no components: gnome-session alone, with its inhibitor list.
        (sessions / "intervald-test.session").write_text("[GNOME Session]\nName=intervald test\nRequiredComponents=\n")
        (tmp_path / "xdg").mkdir()
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "HOME": str(tmp_path / "home"),
                    "XDG_DATA_DIRS": f"{tmp_path / 'share'}:/usr/share", "XDG_CONFIG_DIRS": str(tmp_path / "xdg"),
                    "XDG_CONFIG_HOME": str(tmp_path / "config"), "GSETTINGS_BACKEND": "memory"}
        (tmp_path / "home").mkdir()
        self.processes = []
        for bus, variable in (("system", "DBUS_SYSTEM_BUS_ADDRESS"), ("session", "DBUS_SESSION_BUS_ADDRESS")):
            process, self.env[variable] = private_bus(tmp_path / f"{bus}.sock", self.env)
            self.processes.append(process)
        self.tmp_path = tmp_path

    def start_session_manager(self):
        self.processes.append(subprocess.Popen(
            ["gnome-session", "--builtin", "--session=intervald-test"], env=self.env,
            stdout=open(self.tmp_path / "gnome-session.log", "w"), stderr=subprocess.STDOUT))
        wait_until(lambda: owns_name("org.gnome.SessionManager", self.env), 30 * SLOWDOWN, "gnome-session on the bus")

    def inhibitors(self):
        """What `gnome-session-inhibit --list` prints, a line each."""
        result = subprocess.run(["gnome-session-inhibit", "--list"], capture_output=True, text=True, env=self.env,
                                timeout=10)
        return result.stdout.splitlines()

    def session_inhibited(self):
        """gnome-session's IsInhibited(suspend): what GNOME's power daemon asks before suspending an idle session."""
        return gdbus(self.env, "org.gnome.SessionManager", "/org/gnome/SessionManager",
                     "org.gnome.SessionManager.IsInhibited", "4") == "(true,)"

    def portal_requests(self):
        """The request objects the desktop portal holds now."""
        result = subprocess.run(["gdbus", "introspect", "--session", "--dest", "org.freedesktop.portal.Desktop",
                                 "--object-path", "/org/freedesktop/portal/desktop/request", "--recurse"],
                                capture_output=True, text=True, env=self.env, timeout=10)
        return [line.split()[1] for line in result.stdout.splitlines()
                if line.strip().startswith("node ") and line.split()[1].count("/") == 7]

    def close(self):
        end_processes(self.processes)


def gdbus(env, destination, path, method, *args):
    return subprocess.run(["gdbus", "call", "--session", "--dest", destination, "--object-path", path, "--method",
                           method, *args], capture_output=True, text=True, env=env, timeout=10).stdout.strip()


@pytest.fixture
def desktop(tmp_path):
    desktop = Desktop(tmp_path)
    yield desktop
    desktop.close()


needs_gnome_session = pytest.mark.skipif(shutil.which("gnome-session") is None,
                                         reason="needs gnome-session (scripts/setup-deps)")


@needs_gnome_session
def test_a_workout_started_from_the_shell_holds_gnome_sessions_suspend_inhibitor_until_it_ends(desktop, tmp_path):
    desktop.start_session_manager()
    daemon = Daemon(tmp_path, desktop.env).start()
    try:
        assert desktop.inhibitors() == ["No inhibitors"], "an idle daemon holds nothing"
        changes = BusMonitor("type='signal',path='/org/intervald/Timer1',member='PropertiesChanged'", env=desktop.env)
        try:
            daemon.ctl("start", "-e", "10m run")
            held = f"org.intervald.IntervalTimer: {REASON.format('10m run')} (suspend)"
            wait_until(lambda: desktop.inhibitors() == [held], 10, "the inhibitor in gnome-session's list")
            assert desktop.session_inhibited()
            assert daemon.status()["inhibited"] == "gnome-session"
            announced = wait_until(lambda: [m for m in changes.received() if "Inhibited" in m["payload"]["data"][1]],
                                   10, "PropertiesChanged(Inhibited)")
            assert announced[0]["payload"]["data"][1]["Inhibited"]["data"] == "gnome-session"
        finally:
            changes.close()
        daemon.ctl("pause")
        assert desktop.inhibitors() == [held], "paused counts as running"
        daemon.ctl("stop")
        wait_until(lambda: desktop.inhibitors() == ["No inhibitors"], 10, "the inhibitor released at the stop")
        assert daemon.status()["inhibited"] == ""
        # A workout that finishes gives it back too.
        daemon.ctl("start", "-e", "1s run")
        wait_until(lambda: daemon.history() and daemon.history()[-1]["result"] == "finished", 10, "the finish")
        wait_until(lambda: desktop.inhibitors() == ["No inhibitors"], 10, "the inhibitor released at the finish")
        assert not desktop.session_inhibited()
    finally:
        daemon.stop()


@needs_gnome_session
def test_a_daemon_killed_mid_workout_holds_nothing_and_its_successor_holds_it_again(desktop, tmp_path):
    desktop.start_session_manager()
    daemon = Daemon(tmp_path, desktop.env).start()
    held = [f"org.intervald.IntervalTimer: {REASON.format('Galloway')} (suspend)"]
    try:
        daemon.ctl("start", "-e", 'name "Galloway"\n10x(30s run, 30s walk)')
        wait_until(lambda: desktop.inhibitors() == held, 10, "the inhibitor in gnome-session's list")
        daemon.kill()
        wait_until(lambda: desktop.inhibitors() == ["No inhibitors"], 10, "the dead daemon's inhibitor gone")
        # The next daemon resumes the recorded workout, and holds the inhibitor again.
        daemon.start()
        assert daemon.status()["state"] == "running"
        wait_until(lambda: desktop.inhibitors() == held, 10, "the resumed workout's inhibitor")
    finally:
        daemon.stop()
    wait_until(lambda: desktop.inhibitors() == ["No inhibitors"], 10, "the inhibitor released at the shutdown")


@pytest.mark.skipif(not Path("/usr/libexec/xdg-desktop-portal").exists(),
                    reason="needs xdg-desktop-portal (scripts/setup-deps)")
def test_without_a_session_manager_the_desktop_portal_is_asked_and_forgets_a_daemon_that_dies(desktop, tmp_path):
    """The real portal, started by the bus at the daemon's call, with its GTK backend. On Debian 12 its backend can
    only pass the suspend on to a session manager, so none holds it here: what is shown is that the daemon asks the
    portal when no session manager runs, closes its request at the end, and that its death ends the request."""
    daemon = Daemon(tmp_path, desktop.env).start()
    try:
        daemon.ctl("start", "-e", "10m run")
        wait_until(lambda: daemon.status()["inhibited"] == "portal", 30 * SLOWDOWN, "the portal's answer")
        requests = desktop.portal_requests()
        assert len(requests) == 1, requests
        monitor = BusMonitor(f"type='method_call',path='{requests[0]}',member='Close'", env=desktop.env)
        try:
            daemon.ctl("stop")
            close = monitor.wait_for("Close")[0]
            assert close["destination"] == "org.freedesktop.portal.Desktop"
        finally:
            monitor.close()
        assert daemon.status()["inhibited"] == ""
        daemon.ctl("start", "-e", "10m run")
        wait_until(lambda: daemon.status()["inhibited"] == "portal", 30 * SLOWDOWN, "the portal's answer")
        requests = desktop.portal_requests()
        daemon.kill()
        wait_until(lambda: not set(requests) & set(desktop.portal_requests()), 10,
                   "the portal to end the dead daemon's request")
    finally:
        daemon.stop()


class Logind:
    """logind.py on a system bus of its own."""

    def __init__(self, tmp_path, state_file):
        self.bus, self.address = private_bus(tmp_path / "system.sock", os.environ)
        self.log = tmp_path / "logind.log"
        self.log.touch()
        self.process = subprocess.Popen(["/usr/bin/python3", str(HERE / "logind.py"), self.address, str(self.log),
                                         str(state_file)], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "ready"

    def lines(self, prefix):
        return [line for line in self.log.read_text().splitlines() if line.startswith(prefix)]

    def call(self, method):
        subprocess.run(["gdbus", "call", "--address", self.address, "--dest", "org.freedesktop.login1",
                        "--object-path", "/org/freedesktop/login1", "--method", f"org.intervald.Test.Logind.{method}"],
                       check=True, capture_output=True, timeout=10)

    def close(self):
        end_processes([self.bus, self.process])


@pytest.fixture
def logind_settings():
    """What the daemon's settings file has besides the test defaults; a test may parametrize it."""
    return ""


@pytest.fixture
def logind_daemon(tmp_path, logind_settings):
    """The daemon on the test desktop's session bus (dunst's), with logind.py on its system bus."""
    daemon = Daemon(tmp_path, dict(os.environ), settings=logind_settings)
    logind = Logind(tmp_path, daemon.state / "state.json")
    daemon.env["DBUS_SYSTEM_BUS_ADDRESS"] = logind.address
    daemon.start()
    yield daemon, logind
    daemon.stop()
    logind.close()


DELAY = "inhibit sleep|Interval Timer|A sleep pauses the workout first|delay"


@desktop_required()
def test_a_sleep_pauses_the_workout_before_the_computer_sleeps_and_the_person_resumes_after_the_wake(logind_daemon):
    daemon, logind = logind_daemon
    notifications = NotifyLog()
    assert logind.lines("inhibit") == [], "an idle daemon holds no delay"
    daemon.ctl("start", "-e", 'name "Galloway"\n10x(30s run, 30s walk)')
    wait_until(lambda: logind.lines("inhibit") == [DELAY], 10, "the sleep delay")
    wait_until(lambda: daemon.status()["inhibited"] == "logind", 10, "Inhibited to say so")
    before = daemon.status()["elapsed_us"]

    logind.call("Suspend")
    released = wait_until(lambda: logind.lines("released"), 10, "the delay released")
    what, after, state = released[0].rsplit(" ", 3)[1:]
    assert what == "after" and 0 <= int(after) < 5000, released  # within InhibitDelayMaxSec
    assert state == "paused", "the pause was on disk before the delay was given back"
    wait_until(lambda: logind.lines("slept"), 10, "the sleep")
    assert daemon.status()["state"] == "paused"
    time.sleep(0.5)  # the time asleep, which must not count as done
    logind.call("Wake")
    shown = wait_until(lambda: [n for n in notifications.entries()
                                if n["summary"] == "Paused while the computer slept"], 10, "the notification")
    assert shown[-1]["body"].startswith("Run · ")
    wait_until(lambda: len(logind.lines("inhibit")) == 2, 10, "the delay taken again for the next sleep")
    status = daemon.status()
    assert status["state"] == "paused" and status["elapsed_us"] - before < 1_000_000, status
    press("resume")
    wait_until(lambda: daemon.status()["state"] == "running", 10, "the workout resumed by the notification's Resume")

    daemon.ctl("stop")
    wait_until(lambda: len(logind.lines("released")) == 2, 10, "the delay released at the stop")
    record = daemon.history()[-1]
    assert record["result"] == "stopped"
    assert 500_000 <= record["slept_us"] < 10_000_000, record


@desktop_required()
def test_a_daemon_killed_mid_workout_gives_the_sleep_delay_back(logind_daemon):
    daemon, logind = logind_daemon
    daemon.ctl("start", "-e", "10m run")
    wait_until(lambda: logind.lines("inhibit") == [DELAY], 10, "the sleep delay")
    daemon.kill()
    wait_until(lambda: logind.lines("released"), 10, "the delay released with the process")


@desktop_required()
@pytest.mark.parametrize("logind_settings", ['[timing]\non-sleep = "continue"\n'])
def test_with_on_sleep_continue_the_workout_goes_on_through_the_sleep_and_ends_as_before(logind_daemon):
    daemon, logind = logind_daemon
    notifications = NotifyLog()
    daemon.ctl("start", "-e", "2s run")
    wait_until(lambda: daemon.status()["state"] == "running", 10, "the workout")
    logind.call("Suspend")
    wait_until(lambda: logind.lines("slept"), 10, "the sleep")
    assert logind.lines("inhibit") == [], "no delay: nothing to do before a sleep"
    # The workout ends while the computer sleeps, and is recorded as it always was.
    wait_until(lambda: daemon.history(), 10, "the history record")
    logind.call("Wake")
    record = daemon.history()[-1]
    assert record["result"] == "finished" and record["done_us"] == 2_000_000, record
    assert not any(n["summary"] == "Paused while the computer slept" for n in notifications.entries())

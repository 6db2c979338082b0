"""Integration tests: the built binaries against a real session bus and a real notification server (dunst).

Run inside scripts/test-desktop, which provides the bus, Xvfb, dunst and the INTERVALD_TEST_* helpers.
Every wait is bounded; nothing sleeps and hopes.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

# The window's harness asserts too: rewritten as a test module's asserts are, its failures say what each side was.
pytest.register_assert_rewrite("window_harness")

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("INTERVALD_BIN_DIR", REPO / ".build" / "debug"))
# Binaries built with a sanitizer (scripts/test-sanitized) run several times slower: bounds on how soon something
# happens are multiplied by this.
SLOWDOWN = float(os.environ.get("INTERVALD_TEST_SLOWDOWN", "1"))
SERVICE = "org.intervald.Timer1"
#: The compiled catalogs (scripts/build-mo), which a build-tree binary finds through $INTERVALD_LOCALEDIR.
LOCALE_DIR = os.environ.get("INTERVALD_LOCALEDIR", str(REPO / ".build" / "locale"))
PATH = "/org/intervald/Timer1"


def desktop_required():
    return pytest.mark.skipif(
        "INTERVALD_TEST_NOTIFY_LOG" not in os.environ, reason="needs scripts/test-desktop (session bus + dunst)"
    )


def has_locale(name):
    listed = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.split()
    return name.replace("UTF-8", "utf8") in listed


def in_language(locale):
    """The environment of a process in `locale`, with the build's catalogs."""
    return {"LC_ALL": locale, "LANGUAGE": "", "INTERVALD_LOCALEDIR": LOCALE_DIR}


def allow_core_dump():
    """For `preexec_fn`: the child may dump core, into its working directory (the kernel's default core_pattern)."""
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)


def crash_report(status, binary, directory):
    """For a process that ended with `status` in `directory`, started with allow_core_dump: when a signal killed it,
    every thread's backtrace from its core dump (gdb), or why there is none; else "". A rare crash then says where."""
    if status >= 0:
        return ""
    core = directory / "core"
    if not core.exists():
        pattern = Path("/proc/sys/kernel/core_pattern").read_text().strip()
        return f"no core dump in {directory} (core_pattern {pattern!r})"
    if shutil.which("gdb") is None:
        return f"its core dump: {core} (no gdb to read it)"
    backtraces = subprocess.run(["gdb", "-batch", "-nx", "-ex", "thread apply all bt 40", str(binary), str(core)],
                                capture_output=True, text=True, timeout=300)
    return f"its core dump ({core}), every thread:\n{backtraces.stdout[-30000:]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each test's call report on it, for the fixtures that add to a failure's report (attach_if_failed)."""
    outcome = yield
    if call.when == "call":
        item.call_report = outcome.get_result()


def attach_if_failed(request, title, path, limit=30000):
    """Adds the end of a file (a server's log, deleted at teardown) to the report of the test, if it failed."""
    report = getattr(request.node, "call_report", None)
    if report is not None and report.failed and path.exists():
        report.sections.append((title, path.read_text(errors="replace")[-limit:]))


def wait_until(predicate, timeout, what):
    """Polls `predicate` until it returns a truthy value or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)


def end_processes(processes):
    """Terminates `processes`, the last started first (a desktop's clients before its buses), killing any that is
    still there 10 s later."""
    for process in reversed(processes):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def private_bus(path, env):
    """A dbus-daemon with the session bus's configuration (so that the system's services are activatable, as on a
    desktop, and anyone may own any name, as a stand-in of a system service must) at `path`: its process and address.
    Tests use one as a session bus of their own or as the system bus (DBUS_SYSTEM_BUS_ADDRESS)."""
    process = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address", f"--address=unix:path={path}"],
        stdout=subprocess.PIPE, text=True, env=env)
    return process, process.stdout.readline().strip()


def ctl(*args, input=None, timeout=30, env=None, cwd=None):
    """Runs intervalctl and returns the completed process (text mode)."""
    return subprocess.run(
        [str(BIN / "intervalctl"), *args], input=input, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})}, cwd=cwd,
    )


def write_history(state, time_per_kind_us):
    """A history of one finished one-line workout under XDG_STATE_HOME `state` that spent `time_per_kind_us`."""
    (state / "intervald").mkdir(parents=True, exist_ok=True)
    done = sum(time_per_kind_us.values())
    record = {"id": "a1", "plan": "2x(1m run, 1m walk)", "origin": "", "start": "2026-11-27T18:00:00+01:00",
              "end": "2026-11-27T18:04:00+01:00", "start_wall_us": 1795806000000000, "planned_us": done,
              "done_us": done, "segments_done": 4, "time_per_kind_us": time_per_kind_us, "result": "finished",
              "text": "2x(1m run, 1m walk)"}
    (state / "intervald" / "history.jsonl").write_text(json.dumps(record) + "\n")


def history_activity(tmp_path):
    """A FIT activity file (file type 4), as `history export` writes one for a workout of the history."""
    write_history(tmp_path / "state", {"run": 120_000_000, "walk": 120_000_000})
    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"),
                   env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert exported.returncode == 0, exported.stderr
    [activity] = (tmp_path / "log").iterdir()
    return activity


def busctl(*args, timeout=20, check=True, env=None):
    """busctl on the session bus of `env` (the test desktop's by default, or a private bus given as the session's)."""
    result = subprocess.run(["busctl", "--user", *args], capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"busctl {' '.join(args)} failed: {result.stderr}")
    return result


def call(method, signature="", *args, check=True):
    return busctl("call", SERVICE, PATH, SERVICE, method, *([signature, *args] if signature else []), check=check)


def name_owner_pid(name=SERVICE):
    """The process that owns `name` (the daemon's by default) on the bus, or None."""
    result = busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "GetConnectionUnixProcessID", "s", name, check=False)
    return int(result.stdout.split()[1]) if result.returncode == 0 else None


def owns_name(name, env=None):
    """Whether `name` has an owner on the session bus of `env` (the test desktop's by default, or a bus of its own, as
    GNOME Shell's is): what proves a daemon ready there, since `intervalctl status` answers "idle" before it owns its
    name and such a bus cannot activate it."""
    reply = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                            "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", name],
                           capture_output=True, text=True, env=env, timeout=10).stdout
    return reply.strip() == "(true,)"


class BusMonitor:
    """Records messages matching `match` with `busctl monitor --json=short`, each with its arrival time, on the session
    bus of `env` (the test desktop's by default)."""

    def __init__(self, match, env=None):
        self.messages = []
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            ["busctl", "--user", "monitor", "--json=short", "--match", match],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        # busctl says "Monitoring bus message stream." on stderr once the match is installed.
        wait_until(lambda: self.process.stderr.readline().startswith("Monitoring"), 10, "busctl monitor")

    def _read(self):
        for line in self.process.stdout:
            if line.startswith("{"):
                with self.lock:
                    self.messages.append(json.loads(line))

    def received(self, member=None):
        """Messages (signals or method calls, as matched) with `member`, or all of them."""
        with self.lock:
            return [m for m in self.messages if member is None or m.get("member") == member]

    def wait_for(self, member, count=1, timeout=10):
        return wait_until(lambda: len(self.received(member)) >= count and self.received(member), timeout,
                          f"{count} {member} message(s)")

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=5)


class NotifyLog:
    """The notifications dunst showed (scripts/test-desktop writes one line each)."""

    def __init__(self):
        self.path = Path(os.environ["INTERVALD_TEST_NOTIFY_LOG"])
        self.start = self._count()

    def _lines(self):
        try:
            return self.path.read_text().splitlines()
        except FileNotFoundError:
            return []

    def _count(self):
        return len(self._lines())

    def entries(self):
        """The notifications in the order dunst received them: its scripts, one per notification, run side by side,
        so two notifications a few milliseconds apart may have their lines written the other way round."""
        rows = []
        for line in self._lines()[self.start:]:
            stamp, *fields = line.split("\t")
            row = {"time": float(stamp)}
            for field in fields:
                key, _, value = field.partition("=")
                row[key] = value
            rows.append(row)
        return sorted(rows, key=lambda row: (int(row["received"]), int(row["script_pid"])))

    def wait_for(self, count, timeout=10):
        return wait_until(lambda: len(self.entries()) >= count and self.entries(), timeout, f"{count} notification(s)")


def press(action, timeout=10):
    """Presses a notification's button through dunst's context menu, as a user would."""
    subprocess.run([os.environ["INTERVALD_TEST_PRESS_ACTION"], action], check=True, timeout=timeout)


@pytest.fixture
def notify_log():
    return NotifyLog()


@pytest.fixture
def daemon_config(tmp_path):
    """A settings file for the daemon; tests may rewrite it before the daemon starts."""
    path = tmp_path / "intervald.toml"
    path.write_text('[notifications]\nsound = false\n')
    return path


@pytest.fixture
def daemon_environment():
    """Variables the activated daemon gets besides XDG_STATE_HOME; a test module may override this fixture."""
    return {}


@pytest.fixture
def activatable_daemon(daemon_config, daemon_environment, tmp_path):
    """Makes intervald D-Bus activatable on the test bus, as an installed one is, with its state and history in
    `tmp_path / "state" / "intervald"` and `daemon_environment` set; stops it afterwards."""
    service_dir = os.environ.get("INTERVALD_TEST_DBUS_SERVICE_DIR")
    if not service_dir:
        pytest.skip("the test bus has no private service directory")
    log = tmp_path / "intervald.log"
    service_file = Path(service_dir) / f"{SERVICE}.service"
    service_file.write_text(
        "[D-BUS Service]\n"
        f"Name={SERVICE}\n"
        f"Exec=/bin/sh -c 'XDG_STATE_HOME={tmp_path / 'state'} "
        + "".join(f"{name}={value} " for name, value in daemon_environment.items()) +
        f"exec {BIN / 'intervald'} --config {daemon_config} --log-level debug 2>>{log}'\n"
    )
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")
    yield log
    stop_daemon()
    service_file.unlink()
    busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ReloadConfig")


def install_desktop_files(share, bin_dir=BIN):
    """Puts the desktop integration into `share` as the package does into /usr/share (docs/reference.md §8): the desktop entry,
    GNOME Shell's search provider, KRunner's runner, the bus activation file, the icon and the bundled plans and programs, with
    `bin_dir` for the binaries. Returns `share`."""
    desktop = REPO / "desktop"
    files = {
        "applications/org.intervald.Timer1.desktop": desktop / "org.intervald.Timer1.desktop",
        "applications/org.intervald.IntervalTimer.desktop": desktop / "org.intervald.IntervalTimer.desktop",
        "dbus-1/services/org.intervald.IntervalTimer.service": desktop / "org.intervald.IntervalTimer.service",
        "gnome-shell/search-providers/org.intervald.Timer1.search-provider.ini":
            desktop / "org.intervald.Timer1.search-provider.ini",
        "krunner/dbusplugins/org.intervald.Timer1.desktop": desktop / "org.intervald.Timer1.krunner.desktop",
        "dbus-1/services/org.intervald.Timer1.service": REPO / "systemd" / "org.intervald.Timer1.service",
        "icons/hicolor/scalable/apps/org.intervald.Timer1.svg": desktop / "org.intervald.Timer1.svg",
    }
    files.update({f"intervald/plans/{plan.name}": plan for plan in (REPO / "config" / "plans").glob("*.plan")})
    files.update({f"intervald/programs/{program.name}": program
                  for program in (REPO / "config" / "programs").glob("*.program")})
    for target, source in files.items():
        path = share / target
        text = source.read_text().replace("@bindir@", str(bin_dir))
        # Called again while a window or daemon reads these files (window_environment in a polling helper): a file
        # rewritten in place was read empty or cut now and then, and a program "vanished" under a button's press.
        # So only a change is written, and atomically, as a package manager does.
        if path.exists() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(text)
        os.replace(temporary, path)
    return share


def stop_daemon():
    pid = name_owner_pid()
    if pid:
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: name_owner_pid() is None, 10, "intervald to leave the bus")


@pytest.fixture
def monitor():
    monitors = []

    def make(match=f"type='signal',path='{PATH}'"):
        m = BusMonitor(match)
        monitors.append(m)
        return m

    yield make
    for m in monitors:
        m.close()

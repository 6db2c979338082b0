"""Faults under a real systemd user manager (docs/reference.md §5): run inside scripts/test-systemd, which provides `systemd --user`
in namespaces of its own, its user bus, and scripts/test-desktop's Xvfb and dunst on that bus.

The daemon is what scripts/install put into the throw-away home: the unit in $XDG_DATA_HOME/systemd/user, the
activation file (SystemdService=intervald.service) in $XDG_DATA_HOME/dbus-1/services. A drop-in shortens the watchdog
to 2 s, so that a hung daemon is killed quickly, turns off core dumps, and runs the daemon with --log-level debug and
its stderr in a file (there is no journald here).
Every wait polls systemd, the bus or a file with a deadline.
"""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PATH, REPO, SERVICE, BusMonitor, NotifyLog, busctl, name_owner_pid, wait_until

pytestmark = pytest.mark.skipif(
    "INTERVALD_TEST_SYSTEMD_DIR" not in os.environ or "INTERVALD_TEST_NOTIFY_LOG" not in os.environ,
    reason="needs scripts/test-systemd (a systemd user manager, its bus and dunst)",
)

UNIT = "intervald.service"
HOME = Path(os.environ.get("HOME", "/nonexistent"))
BINDIR = HOME / ".local" / "bin"
STATE_DIR = Path(os.environ.get("XDG_STATE_HOME", "/nonexistent")) / "intervald"
DAEMON_LOG = Path(os.environ.get("INTERVALD_TEST_SYSTEMD_DIR", "/nonexistent")) / "intervald.log"
WATCHDOG_SECONDS = 2


def systemctl(*args, check=True, timeout=30):
    result = subprocess.run(["systemctl", "--user", *args], capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"systemctl {' '.join(args)} failed: {result.stdout}{result.stderr}")
    return result


def unit(*properties):
    """The unit's properties now, e.g. unit("MainPID", "NRestarts") → {"MainPID": "123", "NRestarts": "0"}."""
    out = systemctl("show", "-p", ",".join(properties), UNIT).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def unit_of(name, prop):
    return systemctl("show", "-p", prop, "--value", name).stdout.strip()


def main_pid():
    return int(unit("MainPID")["MainPID"])


def ctl(*args, timeout=30):
    return subprocess.run([str(BINDIR / "intervalctl"), *args], capture_output=True, text=True, timeout=timeout)


def get(prop):
    """Reads a property; the bus activates the daemon through systemd when it is not running."""
    out = busctl("get-property", SERVICE, PATH, SERVICE, prop).stdout.split(maxsplit=1)
    return json.loads(out[1]) if out[0] == "s" else int(out[1])


def start(plan):
    busctl("call", SERVICE, PATH, SERVICE, "Start", "ssb", plan, "", "false")


def history():
    return json.loads(ctl("history", "--json").stdout)["workouts"]


def displayed_notifications():
    return int(subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True,
                              timeout=10).stdout)


def restarted(old_pid, restarts_before, timeout=15):
    """Waits until systemd has restarted the unit (NRestarts went up, a new MainPID that owns the bus name)."""

    def check():
        now = unit("MainPID", "NRestarts", "ActiveState")
        pid = int(now["MainPID"])
        if int(now["NRestarts"]) > restarts_before and pid not in (0, old_pid) and now["ActiveState"] == "active":
            return pid if name_owner_pid() == pid else None
        return None

    return wait_until(check, timeout, "systemd to restart intervald")


@pytest.fixture(scope="module")
def installed():
    """scripts/install of the already-built debug tree into the throw-away home, with daemon-reload and a bus
    reload (no --no-systemctl: the real path), and a drop-in for the tests."""
    env = {**os.environ, "INTERVALD_MAN": "none", "INTERVALD_SCRATCH_PATH": str(REPO / ".build")}
    install = subprocess.run([str(REPO / "scripts" / "install"), "--no-build", "--configuration", "debug"],
                             env=env, capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stdout + install.stderr
    assert "Reloading the systemd user manager" in install.stdout
    drop_in = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / f"{UNIT}.d" / "test.conf"
    drop_in.parent.mkdir(parents=True, exist_ok=True)
    # LimitCORE=0: a watchdog kill is SIGABRT; its core dump would only fill the disk here.
    drop_in.write_text(f"[Service]\nWatchdogSec={WATCHDOG_SECONDS}s\nLimitCORE=0\n"
                       f"ExecStart=\nExecStart={BINDIR / 'intervald'} --log-level debug\n"
                       f"StandardError=append:{DAEMON_LOG}\n")
    systemctl("daemon-reload")
    assert unit("DropInPaths")["DropInPaths"] == str(drop_in)
    yield
    systemctl("stop", UNIT, check=False)


@pytest.fixture
def clean(installed):
    """Each test starts with the unit stopped, its failure counters reset, and no state, history or notification."""
    systemctl("stop", UNIT)
    systemctl("reset-failed", UNIT, check=False)
    for path in STATE_DIR.glob("*"):
        path.unlink()
    subprocess.run(["dunstctl", "close-all"], check=True, timeout=10)
    wait_until(lambda: displayed_notifications() == 0, 10, "dunst to close every notification")
    monitors = []

    def monitor():
        m = BusMonitor(f"type='signal',path='{PATH}'")
        monitors.append(m)
        return m

    yield monitor
    for m in monitors:
        m.close()


def test_activation_goes_through_systemd(clean):
    assert unit("ActiveState")["ActiveState"] == "inactive"
    assert get("State") == "idle"
    pid = main_pid()
    assert pid != 0 and name_owner_pid() == pid, "the bus asked systemd for intervald.service (SystemdService=)"
    assert os.readlink(f"/proc/{pid}/exe") == str(BINDIR / "intervald")
    # Idle, the daemon asked for a day-long interval so as not to wake up; a workout brings back the unit's.
    assert unit("WatchdogUSec")["WatchdogUSec"] == "1d"
    start("10m run")
    wait_until(lambda: unit("WatchdogUSec")["WatchdogUSec"] == f"{WATCHDOG_SECONDS}s", 10, "the unit's interval")


def test_kill_9_mid_workout_resumes_on_schedule_and_ends_in_the_history(clean):
    signals = clean()
    notify_log = NotifyLog()
    start('name "Durable"\n10x(500ms run, 500ms walk)')
    first = signals.wait_for("SegmentStarted")[0]
    started = time.monotonic() - (time.time() - first["timestamp-realtime"] / 1e6)
    wait_until(lambda: get("SegmentIndex") >= 3, 10, "a few cues")
    wait_until(lambda: json.loads((STATE_DIR / "state.json").read_text())["notification_id"] > 0, 10,
               "the notification's id in the state file")
    old_ids = {e["id"] for e in notify_log.entries()}
    assert len(old_ids) == 1
    old_pid = main_pid()

    os.kill(old_pid, signal.SIGKILL)
    new_pid = restarted(old_pid, 0)
    # Without a client's call: systemd's Restart=on-failure alone brought the workout back.
    assert get("State") == "running" and get("PlanName") == "Durable"
    due = (time.monotonic() - started) / 0.5
    assert abs(get("SegmentIndex") - due) <= 1.5, (get("SegmentIndex"), due)
    # The cues after the restart replaced the old notification instead of leaving its dead Stop button.
    cues_before = len(notify_log.entries())
    wait_until(lambda: len(notify_log.entries()) > cues_before, 10, "a cue from the new daemon")
    assert {e["id"] for e in notify_log.entries()} == old_ids
    assert displayed_notifications() == 1

    finished = signals.wait_for("Finished", timeout=15)
    assert finished[0]["payload"]["data"] == ["Durable"]
    # Every index the new daemon announced is the schedule's, counted from the original start.
    for cue in signals.received("SegmentStarted"):
        at = (cue["timestamp-realtime"] - first["timestamp-realtime"]) / 1e6
        assert abs(cue["payload"]["data"][0] - at / 0.5) <= 1.2, (cue["payload"]["data"], at)
    workouts = wait_until(history, 10, "the history record")
    assert [(w["plan"], w["result"]) for w in workouts] == [("Durable", "finished")]
    assert workouts[0]["segments_done"] == 20
    assert "Durable" in ctl("history").stdout
    assert main_pid() == new_pid and int(unit("NRestarts")["NRestarts"]) == 1


def test_intervalctl_start_galloway_kill_9_and_a_second_later_the_same_segment(clean):
    started = ctl("start", "galloway-30-30")
    assert started.returncode == 0, started.stderr
    wait_until(lambda: get("State") == "running", 10, "the workout")
    before = get("Elapsed")
    before_at = time.monotonic()
    index = get("SegmentIndex")
    old_pid = main_pid()
    os.kill(old_pid, signal.SIGKILL)
    killed_at = time.monotonic()
    restarted(old_pid, 0)
    assert time.monotonic() - killed_at < 5, "RestartSec=1s and a quick start-up"
    status = json.loads(ctl("status", "--json").stdout)
    assert status["state"] == "running" and status["plan_name"] == "Galloway run/walk 30:30"
    assert status["segment_index"] == index
    expected = before + (time.monotonic() - before_at) * 1e6
    assert abs(get("Elapsed") - expected) < 500_000, (get("Elapsed"), expected)
    assert ctl("stop").returncode == 0
    workouts = wait_until(history, 10, "the history record")
    assert [(w["plan"], w["result"], w["reason"]) for w in workouts] == [
        ("Galloway run/walk 30:30", "stopped", "user")]
    assert "Galloway run/walk 30:30" in ctl("history").stdout


def test_a_stopped_daemon_is_killed_by_the_watchdog_and_the_workout_resumes(clean):
    signals = clean()
    start('name "Hung"\n20x(500ms run, 500ms walk)')
    first = signals.wait_for("SegmentStarted")[0]
    wait_until(lambda: get("SegmentIndex") >= 1, 10, "a cue")
    old_pid = main_pid()
    os.kill(old_pid, signal.SIGSTOP)
    try:
        stopped_at = time.monotonic()
        # Between the kill and the restart (RestartSec=1s) the unit says why it failed.
        wait_until(lambda: unit("SubState", "Result") == {"SubState": "auto-restart", "Result": "watchdog"},
                   WATCHDOG_SECONDS + 15, "the watchdog to kill the stopped daemon")
        new_pid = restarted(old_pid, 0)
    finally:
        if os.path.exists(f"/proc/{old_pid}"):
            os.kill(old_pid, signal.SIGCONT)
    assert time.monotonic() - stopped_at < WATCHDOG_SECONDS + 5
    assert get("State") == "running" and get("PlanName") == "Hung"
    at = time.time() - first["timestamp-realtime"] / 1e6
    assert abs(get("SegmentIndex") - at / 0.5) <= 1.5
    # The restarted daemon pets the watchdog too: it outlives several watchdog intervals.
    signals.wait_for("SegmentStarted", count=len(signals.received("SegmentStarted")) + 2 * WATCHDOG_SECONDS * 2,
                     timeout=10)
    assert main_pid() == new_pid
    assert ctl("stop").returncode == 0


def test_systemctl_stop_says_shutdown_succeeds_and_is_in_the_history(clean):
    signals = clean()
    start('name "Evening"\n10m run')
    wait_until(lambda: displayed_notifications() == 1, 10, "the notification")
    systemctl("stop", UNIT)
    assert signals.wait_for("Stopped")[0]["payload"]["data"] == ["shutdown"]
    props = unit("ActiveState", "Result", "ExecMainStatus")
    assert (props["ActiveState"], props["Result"], props["ExecMainStatus"]) == ("inactive", "success", "0")
    workouts = history()
    assert [(w["plan"], w["result"], w["reason"]) for w in workouts] == [("Evening", "stopped", "shutdown")]
    assert not (STATE_DIR / "state.json").exists(), "a stopped workout is not resumed"
    wait_until(lambda: displayed_notifications() == 0, 10, "the notification to close")


def test_systemctl_reload_applies_the_settings_and_the_workout_goes_on(clean):
    """`systemctl --user reload` (the unit's ExecReload=, SIGHUP) reads the settings again; the workout is not
    interrupted and the daemon is not restarted (docs/reference.md §4c)."""
    signals = clean()
    start('name "Hangup"\n10m run')
    pid = main_pid()
    log_before = DAEMON_LOG.read_text() if DAEMON_LOG.exists() else ""
    systemctl("reload", UNIT)
    wait_until(lambda: "reason=SIGHUP" in DAEMON_LOG.read_text()[len(log_before):], 10, "the reload to be logged")
    assert unit("ActiveState")["ActiveState"] == "active"
    assert (main_pid(), unit("NRestarts")["NRestarts"]) == (pid, "0")
    assert json.loads(ctl("status", "--json").stdout)["state"] == "running"
    assert not signals.received("Stopped")
    assert history() == []

def test_a_state_file_from_another_boot_resumes_on_the_wall_clock(clean):
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    # Started 3 s ago by the wall clock, before a reboot: the boot clock of then means nothing now.
    now_us = int(time.time() * 1e6)
    (STATE_DIR / "state.json").write_text(json.dumps({
        "version": 1, "id": "before-reboot", "plan": 'name "Across"\n20x(1s run, 1s walk)', "origin": "",
        "boot_id": "another-boot", "anchor_boot_us": 1, "anchor_wall_us": now_us - 3_000_000,
        "started_wall_us": now_us - 3_000_000, "state": "running", "paused_elapsed_us": None,
        "notification_id": 0}))
    systemctl("start", UNIT)
    status = json.loads(ctl("status", "--json").stdout)  # one GetAll: the index and the time agree
    expected = time.time() * 1e6 - (now_us - 3_000_000)
    assert status["state"] == "running" and status["plan_name"] == "Across"
    assert abs(status["elapsed_us"] - expected) < 500_000, (status["elapsed_us"], expected)
    assert status["segment_index"] == status["elapsed_us"] // 1_000_000
    assert ctl("stop").returncode == 0
    assert [(w["plan"], w["result"]) for w in history()] == [("Across", "stopped")]


# Not JSON; and sound JSON whose wall-clock anchor made the resuming daemon overflow and crash at every restart.
@pytest.mark.parametrize("contents", [
    b'{"version": 1, "plan": \xff\x00',
    json.dumps({"version": 1, "id": "x", "plan": "10m run", "origin": "", "boot_id": "another-boot",
                "anchor_boot_us": 1, "anchor_wall_us": -2**63, "started_wall_us": 1, "state": "running",
                "paused_elapsed_us": None, "notification_id": 0}).encode(),
], ids=["garbage", "times-out-of-range"])
def test_a_corrupt_state_file_is_set_aside_and_the_daemon_idles(clean, contents):
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    (STATE_DIR / "state.json").write_bytes(contents)
    log_before = DAEMON_LOG.read_text() if DAEMON_LOG.exists() else ""
    systemctl("start", UNIT)
    assert get("State") == "idle"
    assert unit("ActiveState", "NRestarts") == {"ActiveState": "active", "NRestarts": "0"}
    aside = [p.name for p in STATE_DIR.iterdir() if p.name.startswith("state.json.corrupt-")]
    assert len(aside) == 1 and not (STATE_DIR / "state.json").exists()
    assert "Failed to read the recorded workout, set it aside." in DAEMON_LOG.read_text()[len(log_before):]
    # And it works: a workout starts.
    start("10m run")
    assert get("State") == "running"


def notification_server_pid():
    return int(busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                      "GetConnectionUnixProcessID", "s", "org.freedesktop.Notifications").stdout.split()[1])


def test_a_hung_notification_server_mid_workout_delays_no_cue_and_trips_no_watchdog(clean):
    signals = clean()
    notify_log = NotifyLog()
    start('name "Quiet screen"\n20x(500ms run, 500ms walk)')
    first = signals.wait_for("SegmentStarted")[0]
    notify_log.wait_for(1)
    pid = main_pid()
    dunst = notification_server_pid()
    os.kill(dunst, signal.SIGSTOP)
    try:
        # libnotify's calls now wait for a server that does not answer, for longer than the watchdog's 2 s.
        signals.wait_for("SegmentStarted", count=12, timeout=15)
    finally:
        os.kill(dunst, signal.SIGCONT)
    assert unit("MainPID", "NRestarts") == {"MainPID": str(pid), "NRestarts": "0"}
    cues = signals.received("SegmentStarted")
    assert [c["payload"]["data"][0] for c in cues] == list(range(len(cues)))
    for index, cue in enumerate(cues):
        late_ms = (cue["timestamp-realtime"] - first["timestamp-realtime"]) / 1000 - index * 500
        assert late_ms < 100, f"cue {index} {late_ms:.0f} ms late"
    # Once the server answers again the notification follows the workout.
    shown = len(notify_log.entries())
    wait_until(lambda: len(notify_log.entries()) > shown, 15, "the notification to catch up")
    assert ctl("stop").returncode == 0


def test_a_hung_notification_server_does_not_hold_up_the_shutdown(clean):
    signals = clean()
    start('name "Stuck"\n10m run')
    wait_until(lambda: displayed_notifications() == 1, 10, "the notification")
    dunst = notification_server_pid()
    os.kill(dunst, signal.SIGSTOP)
    try:
        stop_began = time.monotonic()
        systemctl("stop", UNIT)
        took = time.monotonic() - stop_began
    finally:
        os.kill(dunst, signal.SIGCONT)
    assert signals.wait_for("Stopped")[0]["payload"]["data"] == ["shutdown"]
    # The daemon's own bound (2 s) and not systemd's TimeoutStopSec= (15 s) ended it.
    assert 1.5 < took < 6, took
    props = unit("Result", "ExecMainStatus")
    assert (props["Result"], props["ExecMainStatus"]) == ("success", "0")
    assert [(w["plan"], w["result"], w["reason"]) for w in history()] == [("Stuck", "stopped", "shutdown")]


def test_a_hung_session_bus_does_not_hold_up_the_shutdown(clean):
    start('name "Bus gone quiet"\n10m run')
    wait_until(lambda: displayed_notifications() == 1, 10, "the notification")
    bus = int(unit_of("dbus.service", "MainPID"))
    os.kill(bus, signal.SIGSTOP)
    try:
        stop_began = time.monotonic()
        # systemctl talks to the manager on its private socket, not on the bus.
        systemctl("stop", UNIT)
        took = time.monotonic() - stop_began
        props = unit("Result", "ExecMainStatus")
    finally:
        os.kill(bus, signal.SIGCONT)
    assert took < 6, took
    assert (props["Result"], props["ExecMainStatus"]) == ("success", "0")
    assert [(w["plan"], w["result"], w["reason"]) for w in history()] == [("Bus gone quiet", "stopped", "shutdown")]

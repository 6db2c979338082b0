"""intervalctl controlling a D-Bus-activated intervald, as a user and a status bar do (docs/reference.md §2)."""
import json
import os
import signal
import subprocess
import threading
import time

from conftest import BIN, REPO, call, ctl, desktop_required, name_owner_pid, press, wait_until

pytestmark = desktop_required()


def test_start_activates_the_daemon_and_the_controls_work(activatable_daemon):
    assert name_owner_pid() is None
    started = ctl("start", "-e", "4x(30s run, 30s walk)")
    assert started.returncode == 0, started.stderr
    assert started.stdout == "Started 4x(30s run, 30s walk) (4:00, 8 segments)\n"
    assert name_owner_pid() is not None
    status = json.loads(ctl("status", "--json").stdout)
    assert status["state"] == "running"
    assert (status["segment_kind"], status["segment_label"], status["next_label"]) == ("run", "Run", "Walk")
    assert status["segment_count"] == 8 and status["plan_duration_us"] == 240_000_000
    text = ctl("status").stdout
    assert text.startswith("running · 4x(30s run, 30s walk) · Run 0:") and "(1/8)" in text
    assert ctl("pause").returncode == 0
    again = ctl("pause")
    assert (again.returncode, again.stderr) == (1, "intervalctl: error: The workout is already paused.\n")
    assert ctl("resume").returncode == 0
    assert ctl("skip").returncode == 0
    assert json.loads(ctl("status", "--json").stdout)["segment_index"] == 1
    assert ctl("status", "--format", "{label} {index}/{count} {state}").stdout == "Walk 2/8 running\n"
    busy = ctl("start", "-e", "1m walk")
    assert busy.returncode == 1
    assert "intervalctl start --replace" in busy.stderr
    replaced = ctl("start", "--replace", str(REPO / "config" / "plans" / "tabata.plan"))
    assert replaced.returncode == 0 and replaced.stdout.startswith("Started Tabata (12:00, 18 segments)")
    assert ctl("stop").returncode == 0
    assert ctl("stop").returncode == 0, "stop is idempotent"
    assert ctl("status").stdout == "idle\n"
    idle = ctl("skip")
    assert (idle.returncode, idle.stderr) == (1, "intervalctl: error: No workout is running.\n")


def test_invalid_plans_are_refused_before_the_bus(activatable_daemon, tmp_path):
    bad = tmp_path / "bad.plan"
    bad.write_text("5m walk\n30sx run\n")
    result = ctl("start", str(bad))
    assert result.returncode == 65
    assert result.stderr.startswith(f"{bad}:2:3: error: unknown duration unit 'sx'")
    assert name_owner_pid() is None, "an invalid plan does not even start the daemon"


def test_unreachable_daemon_exits_69():
    # No activation file on the bus (the activatable_daemon fixture is not used) and no daemon running.
    assert name_owner_pid() is None
    result = ctl("start", "-e", "1m run")
    assert result.returncode == 69
    assert result.stderr.startswith("intervalctl: error: cannot reach intervald")
    assert ctl("status").stdout == "idle\n", "status of an absent daemon is idle and does not start it"
    no_bus = ctl("stop", env={"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"})
    assert no_bus.returncode == 69


class Follower:
    """`intervalctl status --follow …` with each line's arrival time."""

    def __init__(self, *args):
        self.lines = []
        self.process = subprocess.Popen([str(BIN / "intervalctl"), "status", "--follow", *args],
                                        stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, predicate, timeout=10, what="a line"):
        return wait_until(lambda: next((l for _, l in self.lines if predicate(l)), None), timeout, what)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=10)


def test_follow_counts_down_every_second_and_is_quiet_while_idle(activatable_daemon):
    follower = Follower("--format", "{state} {label} {remaining}")
    try:
        follower.wait_for(lambda l: l == "idle  ", what="the idle line")
        ctl("start", "-e", "2x(4s run \"Go\", 4s walk)")
        follower.wait_for(lambda l: l.startswith("running Walk"), timeout=15, what="the second segment")
        running = [l for _, l in follower.lines if l.startswith("running Go")]
        assert running[:4] == ["running Go 0:04", "running Go 0:03", "running Go 0:02", "running Go 0:01"]
        before_stop = len(follower.lines)
        ctl("stop")
        wait_until(lambda: len(follower.lines) > before_stop and follower.lines[-1][1] == "idle  ", 10, "idle again")
        quiet_from = len(follower.lines)
        time.sleep(2.5)  # measuring silence: nothing may be printed while idle
        assert len(follower.lines) == quiet_from, follower.lines[quiet_from:]
    finally:
        assert follower.stop() == 0


def test_the_control_commands_load_no_notification_sound_or_gio_library(activatable_daemon):
    """intervalctl links neither libnotify nor libpulse nor libcanberra nor GIO (nor what they load): those are
    intervalctl-desktop's, for `run`, `test-sound` and `watch` (DesktopExecutable); a status bar's follower and every
    `intervalctl start` go without them."""
    follower = Follower("--format", "{state}")
    try:
        follower.wait_for(lambda l: l == "idle", what="the idle line")
        with open(f"/proc/{follower.process.pid}/maps") as maps:
            libraries = {line.split()[-1].rsplit("/", 1)[-1].split(".so")[0] for line in maps if ".so" in line}
        assert "libsystemd" in libraries, "the maps list the libraries the process loaded"
        assert not libraries & {"libnotify", "libpulse", "libcanberra", "libgdk_pixbuf-2.0", "libsndfile",
                                "libgio-2.0"}, libraries
    finally:
        assert follower.stop() == 0


def test_waybar_output(activatable_daemon):
    ctl("start", "-e", "name \"Easy & <slow>\"\n5m run")
    data = json.loads(ctl("status", "--waybar").stdout)
    assert set(data) == {"text", "tooltip", "class", "percentage"}
    assert "running" in data["class"]
    assert "Easy &amp; &lt;slow&gt;" in data["tooltip"]
    ctl("stop")


def test_stop_button_ends_a_daemon_workout_with_reason_notification(activatable_daemon, monitor, notify_log):
    signals = monitor()
    ctl("start", "-e", "4x(30s run, 30s walk)")
    notify_log.wait_for(1)
    press("stop")
    assert signals.wait_for("Stopped")[0]["payload"]["data"] == ["notification"]
    assert ctl("status").stdout == "idle\n"

"""Workouts that survive (docs/reference.md §5): the state file, resuming after kill -9, history, idle exit. (Hostile callers:
test_hostile.py; faults under a real systemd user manager:
test_systemd_faults.py.)"""
import json
import os
import signal
import subprocess
import threading
import time

from pathlib import Path

from conftest import BIN, PATH, SERVICE, busctl, call, ctl, desktop_required, name_owner_pid, wait_until

pytestmark = desktop_required()

IDLE_EXIT_CLIENT = Path(__file__).with_name("idle_exit_client.py")
# Debian's interpreter has python3-dbus, whichever one runs pytest.
DEBIAN_PYTHON = "/usr/bin/python3"
NOT_RUNNING = "org.intervald.Timer1.Error.NotRunning"


def start(plan, origin="", replace=False, check=True):
    return call("Start", "ssb", plan, origin, "true" if replace else "false", check=check)


def get(prop):
    """Reads a property; busctl activates the daemon when it is not running, as any client would."""
    out = busctl("get-property", SERVICE, PATH, SERVICE, prop).stdout.split(maxsplit=1)
    return json.loads(out[1]) if out[0] == "s" else int(out[1])


def state_dir(tmp_path):
    return tmp_path / "state" / "intervald"


def test_kill_9_resumes_the_same_workout_on_its_schedule(activatable_daemon, tmp_path, notify_log):
    started = time.monotonic()
    start('name "Durable"\n40x(500ms run, 500ms walk)')
    wait_until(lambda: get("SegmentIndex") >= 3, 10, "a few cues")
    state = json.loads((state_dir(tmp_path) / "state.json").read_text())
    assert state["version"] == 1 and state["state"] == "running"
    assert state["plan"].startswith('name "Durable"')
    wait_until(lambda: json.loads((state_dir(tmp_path) / "state.json").read_text())["notification_id"] > 0, 10,
               "the notification's id in the state file")
    old_ids = {e["id"] for e in notify_log.entries()}
    assert len(old_ids) == 1

    pid = name_owner_pid()
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: name_owner_pid() is None, 5, "the killed daemon to leave the bus")
    # The next client activates a new daemon, which continues the recorded workout.
    assert get("State") == "running"
    assert name_owner_pid() != pid
    assert get("PlanName") == "Durable"
    elapsed_s = time.monotonic() - started
    due = int(elapsed_s / 0.5)
    assert abs(get("SegmentIndex") - due) <= 2, (get("SegmentIndex"), due)
    # The cue after the restart replaced the old notification instead of opening a second one.
    wait_until(lambda: len(notify_log.entries()) > 4, 10, "a cue from the new daemon")
    assert {e["id"] for e in notify_log.entries()} == old_ids

    ctl("stop")
    history = json.loads(ctl("history", "--json", env={"XDG_STATE_HOME": str(tmp_path / "state")}).stdout)
    assert [w["result"] for w in history["workouts"]] == ["stopped"]
    assert history["workouts"][0]["plan"] == "Durable"
    assert history["workouts"][0]["reason"] == "user"
    assert history["totals"]["count"] == 1
    # What the killed daemon played is in the record too, its segments at their real instants from the first on.
    segments = history["workouts"][0]["segments"]
    assert segments[0]["index"] == 0
    assert abs(segments[0]["start_wall_us"] - history["workouts"][0]["start_wall_us"]) < 5000
    assert [segment["index"] for segment in segments] == list(range(len(segments)))
    assert not (state_dir(tmp_path) / "state.json").exists()


def test_the_state_file_is_written_at_changes_not_at_every_cue(activatable_daemon, tmp_path):
    path = state_dir(tmp_path) / "state.json"
    start('20x(200ms run, 200ms walk)')
    wait_until(lambda: path.exists() and get("SegmentIndex") >= 1, 10, "the state file")
    wait_until(lambda: json.loads(path.read_text())["notification_id"] > 0, 10, "the notification's id recorded")
    written = path.stat().st_ino  # every write is a rename of a new file
    wait_until(lambda: get("SegmentIndex") >= 6, 10, "five more cues")
    assert path.stat().st_ino == written
    call("Pause")
    wait_until(lambda: json.loads(path.read_text())["state"] == "paused", 5, "the pause recorded")
    assert path.stat().st_ino != written
    ctl("stop")


def test_a_finished_workout_is_in_the_history(activatable_daemon, tmp_path):
    start('name "Short one"\n2x(100ms run, 100ms walk)')
    history = state_dir(tmp_path) / "history.jsonl"
    wait_until(lambda: history.exists() and history.read_text().endswith("\n"), 10, "the history record")
    record = json.loads(history.read_text().splitlines()[-1])
    assert record["result"] == "finished" and record["reason"] is None
    assert record["planned_us"] == 400_000 and record["done_us"] == 400_000
    assert record["segments_done"] == 4
    assert record["time_per_kind_us"] == {"run": 200_000, "walk": 200_000}
    assert record["start"][10] == "T" and record["start"][19] in "+-"
    text = ctl("history", env={"XDG_STATE_HOME": str(tmp_path / "state")}).stdout
    assert "Short one" in text and "finished" in text and "1 workout" in text


def test_a_corrupt_state_file_is_set_aside(activatable_daemon, tmp_path):
    state_dir(tmp_path).mkdir(parents=True)
    (state_dir(tmp_path) / "state.json").write_text("{ not json")
    assert get("State") == "idle"
    aside = [p.name for p in state_dir(tmp_path).iterdir() if p.name.startswith("state.json.corrupt-")]
    assert len(aside) == 1
    assert "set it aside" in activatable_daemon.read_text()


def test_a_workout_whose_time_passed_is_recorded_as_interrupted(activatable_daemon, tmp_path):
    state_dir(tmp_path).mkdir(parents=True)
    now_us = int(time.time() * 1e6)
    (state_dir(tmp_path) / "state.json").write_text(json.dumps({
        "version": 1, "id": "old", "plan": "name \"Yesterday\"\n10m run", "origin": "", "boot_id": "another-boot",
        "anchor_boot_us": 1, "anchor_wall_us": now_us - 86_400_000_000, "started_wall_us": now_us - 86_400_000_000,
        "state": "running", "paused_elapsed_us": None, "notification_id": 0}))
    assert get("State") == "idle"
    record = json.loads((state_dir(tmp_path) / "history.jsonl").read_text().splitlines()[-1])
    assert record["result"] == "interrupted" and record["plan"] == "Yesterday"
    assert not (state_dir(tmp_path) / "state.json").exists()


def test_idle_exit_and_status_follow_across_it(activatable_daemon, daemon_config):
    daemon_config.write_text('idle-exit = 1\n[notifications]\nsound = false\n')
    lines = []
    follow = subprocess.Popen(["timeout", "60", str(BIN / "intervalctl"), "status", "--follow", "--format", "{state}"],
                              stdout=subprocess.PIPE, text=True)
    reader = threading.Thread(target=lambda: [lines.append(line.strip()) for line in follow.stdout], daemon=True)
    reader.start()
    try:
        wait_until(lambda: lines[:1] == ["idle"], 10, "status --follow to say idle without activating")
        assert name_owner_pid() is None
        start("300ms run")
        wait_until(lambda: "running" in lines, 10, "status --follow to see the workout")
        wait_until(lambda: name_owner_pid() is None, 15, "the idle daemon to exit")
        assert lines[-1] == "idle"
        assert follow.poll() is None, "status --follow keeps following after the daemon exited"
        start("300ms walk")
        wait_until(lambda: lines.count("running") >= 2, 10, "status --follow to see the next daemon's workout")
    finally:
        follow.terminate()


def test_no_call_is_dropped_at_the_idle_exit_instant(activatable_daemon, daemon_config):
    """Calls keep arriving while the idle daemon exits, five times over: every one is answered, by the daemon that
    exits or by the next one D-Bus activation starts, never with NoReply (release the name, answer what was routed
    to it, then exit)."""
    daemon_config.write_text('idle-exit = 1\n[notifications]\nsound = false\n')
    exits = 5
    run = subprocess.run([DEBIAN_PYTHON, str(IDLE_EXIT_CLIENT), "6", str(exits), "60"], capture_output=True,
                         text=True, timeout=120, check=True)
    calls = json.loads(run.stdout)["calls"]
    unanswered = [call for call in calls if call[3] and call[3] != NOT_RUNNING]
    assert not unanswered, f"{len(unanswered)} of {len(calls)} calls not answered: {unanswered[:5]}"
    # The daemons in the order they answered first: each one but the last exited while the calls went on.
    daemons = []
    for call in sorted(calls, key=lambda call: call[1]):
        if call[2] and call[2] not in daemons:
            daemons.append(call[2])
    assert len(daemons) > exits, f"only {len(daemons) - 1} idle exits happened"
    # The calls at an instant: sent from 20 ms before the exiting daemon's last answer until the next one's first.
    at_the_instant = 0
    for exiting, following in zip(daemons, daemons[1:]):
        last = max(call[1] for call in calls if call[2] == exiting)
        first = min(call[1] for call in calls if call[2] == following)
        at_the_instant += sum(1 for call in calls if last - 0.020 <= call[0] <= first)
    assert at_the_instant >= 200, f"only {at_the_instant} calls were sent at the idle-exit instants"

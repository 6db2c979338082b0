"""`intervalctl run`: the embedded mode against dunst on a real session bus (issue: scheduler + notifications)."""
import json
import os
import pty
import select
import signal
import subprocess
import time

import pytest

from conftest import BIN, SLOWDOWN, BusMonitor, NotifyLog, ctl, desktop_required, press, wait_until

pytestmark = desktop_required()


@pytest.fixture(autouse=True)
def history(tmp_path, monkeypatch):
    """A run records its workout in the history (docs/reference.md §5): each test's goes to a folder of its own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "intervald" / "history.jsonl"


def start_run(*args):
    return subprocess.Popen([str(BIN / "intervalctl"), "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_cues_arrive_on_time_in_one_notification_with_a_stop_button(notify_log, monitor):
    calls = monitor("type='method_call',interface='org.freedesktop.Notifications',member='Notify'")
    started = time.monotonic()
    run = start_run("-e", "3x(300ms run, 300ms walk)")
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert out.splitlines()[-1] == "Finished 3x(300ms run, 300ms walk) in 0:01.800."
    shown = notify_log.wait_for(7)
    assert [e["summary"] for e in shown] == ["Run · 300 ms", "Walk · 300 ms"] * 3 + ["Workout finished"]
    assert shown[0]["body"] == "Next: Walk 300 ms · round 1 of 3"
    assert {e["app"] for e in shown} == {"intervald"}
    assert len({e["id"] for e in shown}) == 1, "each cue must replace the previous one in place"
    notifies = calls.wait_for("Notify", 7)
    # The schedule's origin as the earliest one the calls fit: the first call may be the slowest (libnotify
    # connects to the server then), so it is not the reference.
    origin = min(m["timestamp-realtime"] / 1000 - k * 300 for k, m in enumerate(notifies[:6]))
    for index, message in enumerate(notifies[:6]):
        late_ms = message["timestamp-realtime"] / 1000 - origin - index * 300
        # A loose bound: precision is measured by the benchmark, this only catches a broken schedule.
        assert -5 < late_ms < 250, f"cue {index} arrived {late_ms:.1f} ms off its schedule"
        app, replaces_id, icon, summary, body, actions, hints, timeout = message["payload"]["data"]
        assert app == "intervald"
        # Named after the bus name, as the installed icon and desktop entry are (docs/reference.md §7).
        assert icon == "org.intervald.Timer1"
        assert hints["desktop-entry"] == {"type": "s", "data": "org.intervald.Timer1"}
        assert actions[:2] == ["stop", "Stop"]
        assert timeout == 0, "a cue stays until the next one replaces it"
        if index > 0:
            assert replaces_id != 0
    assert time.monotonic() - started < 20


def test_stop_button_pressed_through_dunst_ends_the_run(notify_log):
    run = start_run("-e", "10x(30s run, 30s walk)")
    notify_log.wait_for(1)
    pressed = time.monotonic()
    press("stop")
    out, err = run.communicate(timeout=10)
    assert time.monotonic() - pressed < 1.0 * SLOWDOWN, "the run must end within a second of pressing Stop"
    assert run.returncode == 0, err
    assert out.splitlines()[-1].startswith("Stopped from the notification after 0:0")


def test_pause_and_skip_buttons(notify_log):
    run = start_run("-e", "30s run, 30s walk, 30s rest")
    notify_log.wait_for(1)
    press("skip")
    assert notify_log.wait_for(2)[-1]["summary"] == "Walk · 30 s"
    press("pause")
    assert notify_log.wait_for(3)[-1]["summary"] == "Paused · Walk"
    press("resume")
    assert notify_log.wait_for(4)[-1]["summary"] == "Walk · 30 s"
    press("stop")
    out, _ = run.communicate(timeout=10)
    assert "Paused" in out and "Resumed" in out
    assert run.returncode == 0


def test_ctrl_c_stops_cleanly(notify_log):
    run = start_run("-e", "10m run")
    notify_log.wait_for(1)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=10)
    assert run.returncode == 0, err
    assert out.splitlines()[-1].startswith("Stopped by you (Ctrl-C or the media player's Stop) after 0:0")


def test_plain_lines_when_not_a_terminal():
    run = start_run("--no-notifications", "-e", "2x(100ms run, 100ms walk)")
    out, err = run.communicate(timeout=10)
    lines = out.splitlines()
    assert run.returncode == 0
    assert "\r" not in out and "\x1b" not in out
    assert lines[0] == "2x(100ms run, 100ms walk) — 0:00.400, 4 segments"
    assert [l.split(maxsplit=1)[1] for l in lines[1:5]] == [
        "Run · 100 ms — Next: Walk 100 ms · round 1 of 2",
        "Walk · 100 ms — Next: Run 100 ms · round 1 of 2",
        "Run · 100 ms — Next: Walk 100 ms · round 2 of 2",
        "Walk · 100 ms — Last one · round 2 of 2",
    ]


def test_no_notification_server_does_not_stop_the_workout():
    dunst = os.environ["INTERVALD_TEST_DUNST"]
    subprocess.run([dunst, "stop"], check=True, timeout=20)
    try:
        run = start_run("-e", "4x(100ms run)")
        out, err = run.communicate(timeout=20)
        assert run.returncode == 0
        assert out.splitlines()[-1] == "Finished 4x(100ms run) in 0:00.400."
        assert err.count("Failed to show notification") == 1, err
    finally:
        subprocess.run([dunst, "start"], check=True, timeout=20)


def test_notification_server_restarting_mid_workout(notify_log):
    dunst = os.environ["INTERVALD_TEST_DUNST"]
    run = start_run("-e", "20x(250ms run, 250ms walk)")
    notify_log.wait_for(2)
    subprocess.run([dunst, "restart"], check=True, timeout=20)
    before = len(notify_log.entries())
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert out.splitlines()[-1].startswith("Finished")
    assert len(notify_log.entries()) > before, "delivery resumes when the server returns"


def test_the_settings_file_applies_to_the_foreground_run(monitor, tmp_path):
    """`intervalctl run` reads the daemon's settings file: buttons, urgency, the default countdown and hooks apply;
    a problem in it is reported on stderr and the rest still applies."""
    calls = monitor("type='method_call',interface='org.freedesktop.Notifications',member='Notify'")
    cues = tmp_path / "cues"
    config = tmp_path / "intervald.toml"
    config.write_text(
        'bogus = 1\n'
        '[notifications]\nbuttons = ["stop"]\nurgency = "critical"\n'
        '[timing]\ncountdown = "200ms"\n'
        f'[hooks]\non-cue = ["sh", "-c", "echo $0 >> {cues}", "{{label}}"]\n')
    run = start_run("-e", "2x(600ms run, 600ms walk)", "--config", str(config))
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert f"{config}:1: unknown setting 'bogus', ignoring it." in err
    notifies = calls.wait_for("Notify", 8)
    for message in notifies[:4]:
        _, _, _, summary, _, actions, hints, _ = message["payload"]["data"]
        assert actions == ["stop", "Stop"], f"only the Stop button on {summary}"
        assert hints["urgency"] == {"type": "y", "data": 2}
    # A countdown update before each of the three changes, besides the four cues and the summary.
    assert len(calls.wait_for("Notify", 8)) >= 8
    wait_until(lambda: cues.exists() and cues.read_text().split() == ["Run", "Walk", "Run", "Walk"], 5 * SLOWDOWN,
               "the on-cue hook to run at each change")


def test_a_run_is_recorded_in_the_history_as_it_was_played(history, tmp_path):
    """`intervalctl run` recorded nothing: a workout in the foreground could be neither counted nor exported."""
    text = 'name "Porch"\n2x(300ms run, 200ms walk)'
    run = start_run("--no-notifications", "--silent", "-e", text)
    out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    # Written before the command exits.
    record = json.loads(history.read_text().splitlines()[-1])
    assert (record["plan"], record["result"], record["origin"], record["text"]) == ("Porch", "finished", "", text)
    assert record["done_us"] == record["planned_us"] == 1_000_000
    assert [segment["kind"] for segment in record["segments"]] == ["run", "walk"] * 2
    starts = [segment["start_wall_us"] for segment in record["segments"]]
    assert starts == sorted(starts) and record["end_wall_us"] >= record["segments"][-1]["end_wall_us"]
    listed = ctl("history", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [workout["id"] for workout in json.loads(listed.stdout)["workouts"]] == [record["id"]]
    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"))
    assert exported.returncode == 0, exported.stderr
    assert [path.name[-9:] for path in (tmp_path / "log").iterdir()] == ["Porch.fit"]


def test_enter_on_the_terminal_ends_a_step_you_end_yourself(history):
    """On a terminal the live line counts an open step up and says Enter ends it; a stray Enter in a timed step skips
    nothing."""
    controller, terminal = pty.openpty()
    run = subprocess.Popen([str(BIN / "intervalctl"), "run", "--no-notifications", "--silent", "-e",
                            "open warmup, 400ms run"], stdin=terminal, stdout=terminal, stderr=subprocess.PIPE)
    os.close(terminal)
    seen = bytearray()

    def read_until(text, timeout):
        def arrived():
            ready, _, _ = select.select([controller], [], [], 0.1)
            if ready:
                try:
                    seen.extend(os.read(controller, 4096))
                except OSError:  # the terminal closed: the run ended
                    pass
            return text in seen.decode(errors="replace")
        wait_until(arrived, timeout, repr(text))

    try:
        read_until("0:01, Enter when done", 10 * SLOWDOWN)
        assert run.poll() is None, "the warm-up waits"
        os.write(controller, b"\n")
        read_until("left", 10 * SLOWDOWN)
        os.write(controller, b"\n")  # in the timed run: nothing happens
        read_until("Finished", 10 * SLOWDOWN)
        assert run.wait(timeout=10) == 0
    finally:
        if run.poll() is None:
            run.kill()
        os.close(controller)
    record = json.loads(history.read_text().splitlines()[-1])
    warm_up, timed = record["segments"]
    assert warm_up["end_wall_us"] - warm_up["start_wall_us"] >= 1_000_000
    assert abs(record["end_wall_us"] - timed["start_wall_us"] - 400_000) < 20_000

"""Steps the person ends (docs/plan-language.md, docs/reference.md §3–§5): the daemon holds an open step until it is
ended by the notification's Done button (pressed through dunst) or by MPRIS Next (playerctl), counts it up, times what
follows from that instant, and the history and its FIT activity keep the step as long as it was really played.
fitdecode (MIT, from PyPI) reads the activity."""
import json
import shutil
import subprocess
import time

import fitdecode
import pytest

from conftest import BIN, PATH, SERVICE, busctl, ctl, desktop_required, press, wait_until

pytestmark = desktop_required()


def get(prop):
    kind, value = busctl("get-property", SERVICE, PATH, SERVICE, prop).stdout.split(maxsplit=1)
    return {"s": json.loads, "b": lambda text: text.strip() == "true"}.get(kind, int)(value)


def status():
    return json.loads(ctl("status", "--json").stdout)


def read_fit(path):
    with fitdecode.FitReader(str(path), check_crc=fitdecode.CrcCheck.RAISE) as reader:
        return [(frame.name, {field.name: field.value for field in frame.fields})
                for frame in reader if isinstance(frame, fitdecode.FitDataMessage)]


def started_at(signals, index):
    """The instant (s, wall clock) of the cue of segment `index`, as the bus delivered it."""
    cue = next(m for m in signals.received("SegmentStarted") if m["payload"]["data"][0] == index)
    return cue["timestamp-realtime"] / 1e6


def finished_after(signals, index):
    """Seconds from the cue of segment `index` to `Finished`, as busctl stamped them: it stamps a message when it reads
    it, tens of ms late when it is busy printing others (MPRIS's metadata), so only a coarse bound; the history has
    the daemon's own instants."""
    return signals.wait_for("Finished", timeout=5)[0]["timestamp-realtime"] / 1e6 - started_at(signals, index)


def last_record(tmp_path):
    history = tmp_path / "state" / "intervald" / "history.jsonl"
    wait_until(lambda: history.exists() and history.read_text().endswith("\n"), 10, "the history record")
    return json.loads(history.read_text().splitlines()[-1])


def test_an_open_step_waits_for_done_and_the_log_keeps_its_real_length(activatable_daemon, monitor, notify_log,
                                                                         tmp_path):
    signals = monitor()
    plan = 'name "Track"\nopen warmup "Warm up", 0.4km run, 300ms walk'
    assert ctl("start", "-e", plan).returncode == 0
    first = notify_log.wait_for(1)[0]
    assert (first["summary"], first["body"]) == ("Warm up", "Done when you are ready · Next: Run 0.4 km · segment 1 of 3")

    # Seconds go by and the warm-up plays on, counting up; the plan's clock stands at its start.
    wait_until(lambda: get("SegmentElapsed") >= 1_500_000, 10, "the warm-up to count up past 1.5 s")
    assert get("Open") is True and get("SegmentIndex") == 0 and get("State") == "running"
    # The workout's time counts the step; the plan's timed time (its 300 ms walk) waits, all of it left.
    assert get("SegmentRemaining") == 0 and get("Elapsed") >= 1_500_000
    assert (get("PlanDuration"), get("Remaining"), get("PlanOpenSteps")) == (300_000, 300_000, 2)
    shown = status()
    assert shown["open"] is True and shown["segment_remaining_us"] is None
    assert shown["segment_elapsed_us"] >= 1_500_000 and "until Done (1/3)" in shown["text"]

    # A pause inside it: not training, and not in the step's count.
    assert ctl("pause").returncode == 0
    counted = get("SegmentElapsed")
    paused = time.monotonic()
    wait_until(lambda: time.monotonic() - paused >= 1.0, 5, "a second of pause")
    assert get("SegmentElapsed") == counted, "a pause stops the count"
    assert ctl("resume").returncode == 0
    pause = time.monotonic() - paused
    wait_until(lambda: get("SegmentElapsed") >= counted + 500_000, 10, "the count to go on after the pause")

    # Done, pressed on the notification through dunst, ends it at once; the distance step is open too.
    notify_log.wait_for(3)  # the cue, the pause, the resume
    pressed = time.time()
    press("done")
    signals.wait_for("SegmentStarted", count=2, timeout=5)
    assert started_at(signals, 1) - pressed < 1.0
    assert get("Open") is True and get("SegmentIndex") == 1 and get("SegmentDistance") == 400
    run = notify_log.wait_for(4)[-1]
    assert (run["summary"], run["body"].split(" · ")[0]) == ("Run · 0.4 km", "Done when you get there")

    # `intervalctl skip` ends the run; the 300 ms walk after it is timed from that instant.
    assert ctl("skip").returncode == 0
    walk = finished_after(signals, 2)
    assert 0.2 <= walk < 0.6, f"the walk lasted {walk:.3f} s, not 300 ms"

    record = last_record(tmp_path)
    warm_up, run_step, walk_step = record["segments"]
    # The daemon's own instants: the walk began when the run was ended, and lasted its 300 ms from there.
    assert run_step["end_wall_us"] == walk_step["start_wall_us"]
    assert abs(record["end_wall_us"] - walk_step["start_wall_us"] - 300_000) < 20_000
    played = (warm_up["end_wall_us"] - warm_up["start_wall_us"]) / 1e6
    assert abs(played - (started_at(signals, 1) - started_at(signals, 0))) < 0.1, "the warm-up as long as it was"
    assert abs(warm_up["paused_us"] / 1e6 - pause) < 0.3
    assert record["time_per_kind_us"]["warmup"] == pytest.approx((played - warm_up["paused_us"] / 1e6) * 1e6, abs=1e5)
    assert record["result"] == "finished"

    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"),
                   env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert exported.returncode == 0, exported.stderr
    (path,) = (tmp_path / "log").iterdir()
    laps = [fields for name, fields in read_fit(path) if name == "lap"]
    assert len(laps) == 3
    assert abs(laps[0]["total_elapsed_time"] - played) < 0.01
    assert abs(laps[0]["total_elapsed_time"] - laps[0]["total_timer_time"] - pause) < 0.3, "the pause is out of timer"
    assert abs(laps[2]["total_timer_time"] - 0.3) < 0.05


@pytest.mark.skipif(shutil.which("playerctl") is None, reason="needs playerctl")
def test_a_headsets_next_ends_an_open_step(activatable_daemon, monitor, tmp_path):
    signals = monitor()
    assert ctl("start", "-e", "open walk, 250ms run, 250ms walk").returncode == 0
    wait_until(lambda: subprocess.run(["playerctl", "-l"], capture_output=True, text=True, timeout=10)
               .stdout.split().count("intervald") == 1, 10, "playerctl to list intervald")
    wait_until(lambda: get("SegmentElapsed") >= 1_000_000, 10, "the open walk to count up past a second")
    assert get("SegmentIndex") == 0 and get("Open") is True
    length = subprocess.run(["playerctl", "-p", "intervald", "metadata", "mpris:length"], capture_output=True,
                            text=True, timeout=10).stdout.strip()
    assert length in ("", "0"), "a step the person ends has no length"
    assert subprocess.run(["playerctl", "-p", "intervald", "next"], timeout=10).returncode == 0
    signals.wait_for("SegmentStarted", count=2, timeout=5)
    timed = finished_after(signals, 1)
    assert 0.4 <= timed < 0.8, f"the two timed steps took {timed:.3f} s, not 500 ms"
    record = last_record(tmp_path)
    walk, run, last = record["segments"]
    assert walk["end_wall_us"] - walk["start_wall_us"] >= 1_000_000, "the open walk as long as it was played"
    assert abs(record["end_wall_us"] - run["start_wall_us"] - 500_000) < 20_000


def test_a_note_on_four_hundred_minutes_and_totals_with_open_steps():
    noted = ctl("plan", "show", "-e", "open warmup, 6x(400m run, 90s walk)")
    assert noted.returncode == 0, noted.stderr
    assert "<inline>:1:17: note: 400m is 400 minutes; a distance is written 0.4km" in noted.stderr
    shown = ctl("plan", "show", "-e", "open warmup, 6x(0.4km run, 90s walk), 15m run, open cooldown")
    assert shown.returncode == 0 and shown.stderr == ""
    assert "24:00 + 8 open steps, 15 segments" in shown.stdout.splitlines()[0]
    as_json = json.loads(ctl("plan", "show", "--json", "-e", "open warmup, 0.4km run @ 5:00/km").stdout)
    assert (as_json["duration_us"], as_json["open_steps"]) == (120_000_000, 1)
    assert [(item["open"], item["duration_us"], item.get("distance_m")) for item in as_json["items"]] == \
        [(True, 0, None), (False, 120_000_000, 400.0)]


def test_without_a_strap_a_heart_rate_step_waits_for_done_and_says_its_bound(activatable_daemon, notify_log):
    """`hr<120 walk` (docs/plan-language.md) with no strap to read: a step the person ends, whose cue, status and
    properties say the heart rate that is to end it; Done ends it."""
    assert ctl("start", "-e", 'hr<120 walk "Recover", 250ms run').returncode == 0
    cue = notify_log.wait_for(1)[0]
    assert cue["summary"] == "Recover"
    assert cue["body"].startswith("until heart rate below 120 · Done when you are ready · Next: Run"), cue["body"]
    assert get("Open") is True and get("SegmentHeartRateBound") == "hr<120" and get("PlanOpenSteps") == 1
    assert status()["segment_remaining_us"] is None
    press("done")
    wait_until(lambda: ctl("status").stdout.strip() == "idle", 5, "Done to end the step and the plan to finish")
    assert ctl("plan", "show", "-e", "hr>160 run, 1m walk").stdout.splitlines()[0] == \
        "hr>160 run, 1m walk — 1:00 + 1 open step, 2 segments"

"""A chosen treadmill or bike driven by the daemon during a workout (docs/machines.md), against BlueZ's D-Bus API on a
private system bus with FTMS machines of the stand-in's (bluez.py; no radio runs here): every byte written to the
control point checked against the plan's steps and their instants, pause, resume and stop, the ceiling, control
refused, taken back and unanswered, a machine out of range and back, and a distance step ended by the machine's own
distance. The workout is a timer that cues on time whatever the machine does."""
import json

import fitdecode
import pytest

from bluez import bluez  # noqa: F401
from conftest import PATH, SERVICE, busctl, ctl, wait_until

TREADMILL = ("Horizon 7.8 AT", "E4:5F:01:AA:BB:CC")
BIKE = ("KICKR CORE 5A1B", "F0:12:34:56:5A:1B")

REQUEST_CONTROL, START, STOP, PAUSE = b"\x00", b"\x07", b"\x08\x01", b"\x08\x02"


def speed(hundredths_of_km_h):
    return b"\x02" + hundredths_of_km_h.to_bytes(2, "little")


def power(watts):
    return b"\x05" + watts.to_bytes(2, "little", signed=True)


def get(prop):
    kind, value = busctl("get-property", SERVICE, PATH, SERVICE, prop).stdout.split(maxsplit=1)
    return {"s": lambda text: json.loads(text), "d": float}.get(kind, int)(value)


def written(bluez, machine):
    return [write.value for write in bluez.control_writes(machine)]


def said(notify_log):
    return [entry["body"] for entry in notify_log.entries() if entry.get("summary") == "Fitness machine"]


@pytest.fixture
def treadmill(bluez):
    bluez.add_adapter()
    return bluez.add_treadmill(*TREADMILL)


@pytest.fixture
def daemon_config(tmp_path):
    path = tmp_path / "intervald.toml"
    path.write_text(f'[notifications]\nsound = false\n\n[sensors]\nmachine = "{TREADMILL[1]}"\n')
    return path


@pytest.fixture
def daemon_environment(bluez):
    return {"DBUS_SYSTEM_BUS_ADDRESS": bluez.address}


def test_each_step_sets_the_belts_speed_within_half_a_second_and_the_end_stops_it(bluez, treadmill,
                                                                                 activatable_daemon, monitor,
                                                                                 notify_log):
    segments = monitor(f"type='signal',path='{PATH}',member='SegmentStarted'")
    assert ctl("start", "-e", "3s run @ 5:00/km, 3s walk @ 10:00/km, 3s walk, 3s run @ 3:00/km").returncode == 0
    wait_until(lambda: get("State") == "idle" and STOP in written(bluez, treadmill), 30,
               "the workout to finish and the belt to stop")
    writes = bluez.control_writes(treadmill)
    # Control, start, then a speed per step with a pace: none for the walk without one, the ceiling (16 km/h) for
    # 3:00/km (20 km/h), and stop at the finish.
    assert [write.value for write in writes] == \
        [REQUEST_CONTROL, START, speed(1200), speed(600), speed(1600), STOP]
    assert all(write.indication == bytes([0x80, write.value[0], 0x01]) for write in writes), writes
    starts = [message["timestamp-realtime"] for message in segments.received("SegmentStarted")]
    assert len(starts) == 4
    # The first step's speed follows the machine's start, once it is connected and under control (a countdown covers
    # that second); every later one follows its step. A step's write and its SegmentStarted leave at the same cue on
    # two buses, so the write may reach the stand-in a little before the monitor stamps the signal (1 ms in a CI run):
    # up to 20 ms early is the same instant, more would be a speed set before its step.
    due = [max(starts[0], writes[1].realtime_us), starts[1], starts[3]]
    for write, instant in zip(writes[2:5], due):
        assert -20_000 <= write.realtime_us - instant < 500_000, (write, instant, starts)
    assert said(notify_log).count(
        "A step's pace is faster than the top speed; the machine is set to 16.0 km/h.") == 1
    wait_until(lambda: bluez.calls("Disconnect"), 10, "the machine let go")
    assert bluez.machine_state(treadmill)["state"] == "stopped"


def test_pause_resume_and_stop_are_the_machines_too(bluez, treadmill, activatable_daemon):
    assert ctl("start", "-e", "1m run @ 6:00/km").returncode == 0
    wait_until(lambda: speed(1000) in written(bluez, treadmill), 10, "the step's speed")
    assert ctl("pause").returncode == 0
    wait_until(lambda: written(bluez, treadmill)[-1:] == [PAUSE], 5, "the machine paused")
    assert ctl("resume").returncode == 0
    # Resumed, then set to the step's speed again: some belts resume at their lowest.
    wait_until(lambda: written(bluez, treadmill)[-2:] == [START, speed(1000)], 5, "the machine resumed")
    assert ctl("stop").returncode == 0
    wait_until(lambda: written(bluez, treadmill)[-1:] == [STOP], 5, "the machine stopped")
    assert written(bluez, treadmill) == [REQUEST_CONTROL, START, speed(1000), PAUSE, START, speed(1000), STOP]
    wait_until(lambda: bluez.calls("Disconnect"), 10, "the machine let go")


def test_control_refused_leaves_a_timer_and_is_asked_for_again_at_the_next_step(bluez, treadmill,
                                                                                activatable_daemon, notify_log):
    bluez.refuse(treadmill, 0x05)
    assert ctl("start", "-e", "4s run @ 6:00/km, 4s walk @ 10:00/km, 10s run @ 5:00/km").returncode == 0
    wait_until(lambda: said(notify_log), 10, "the refusal said")
    assert said(notify_log) == [
        "Horizon 7.8 AT refused control (control not permitted); the plan's targets stop until it gives control."]
    assert written(bluez, treadmill) == [REQUEST_CONTROL]
    bluez.answer_normally(treadmill)
    wait_until(lambda: get("SegmentIndex") == 1, 10, "the next step, on time")
    wait_until(lambda: speed(600) in written(bluez, treadmill), 5, "control asked for again and the speed set")
    assert written(bluez, treadmill) == [REQUEST_CONTROL, REQUEST_CONTROL, START, speed(600)]
    wait_until(lambda: speed(1200) in written(bluez, treadmill), 10, "the next step's speed")
    assert len(said(notify_log)) == 1
    assert ctl("stop").returncode == 0


def test_control_taken_back_stops_the_targets_until_the_next_step(bluez, treadmill, activatable_daemon,
                                                                   notify_log):
    assert ctl("start", "-e", "5s run @ 6:00/km, 5s walk @ 10:00/km, 1m run @ 5:00/km").returncode == 0
    wait_until(lambda: speed(1000) in written(bluez, treadmill), 10, "the first speed")
    bluez.take_back_control(treadmill)
    wait_until(lambda: said(notify_log), 5, "control taken back said")
    assert said(notify_log) == [
        "Horizon 7.8 AT took back control; the plan's targets stop until it gives it back."]
    wait_until(lambda: speed(600) in written(bluez, treadmill), 10, "control asked for again at the next step")
    assert written(bluez, treadmill)[3:] == [REQUEST_CONTROL, START, speed(600)]
    assert get("State") == "running"
    assert ctl("stop").returncode == 0


def test_a_machine_that_does_not_answer_is_said_once_and_the_workout_goes_on(bluez, treadmill,
                                                                             activatable_daemon, notify_log):
    assert ctl("start", "-e", "4s run @ 6:00/km, 1m walk @ 10:00/km").returncode == 0
    wait_until(lambda: speed(1000) in written(bluez, treadmill), 10, "the first speed")
    bluez.stop_answering(treadmill)
    wait_until(lambda: said(notify_log), 10, "the silence said")
    assert said(notify_log) == [
        "Horizon 7.8 AT did not answer the target speed within 3 seconds; the plan's targets stop until it gives control."]
    assert get("SegmentIndex") == 1 and get("State") == "running"
    assert ctl("stop").returncode == 0


def test_a_machine_out_of_range_is_said_and_driven_again_when_back(bluez, treadmill, activatable_daemon,
                                                                   notify_log):
    assert ctl("start", "-e", "2m run @ 6:00/km").returncode == 0
    wait_until(lambda: speed(1000) in written(bluez, treadmill), 10, "the speed")
    bluez.go_out_of_range(treadmill)
    wait_until(lambda: said(notify_log), 5, "the loss said")
    assert said(notify_log) == ["Horizon 7.8 AT is out of range; the plan's targets stop until it is back."]
    bluez.come_back(treadmill)
    wait_until(lambda: written(bluez, treadmill).count(speed(1000)) == 2, 15, "the machine driven again")
    assert written(bluez, treadmill)[3:] == [REQUEST_CONTROL, START, speed(1000)]
    assert said(notify_log)[1:] == ["Horizon 7.8 AT is found again."]
    assert ctl("stop").returncode == 0


def test_a_distance_step_ends_at_the_machines_own_distance(bluez, treadmill, activatable_daemon):
    assert ctl("start", "-e", "6s run @ 3:45/km, 0.02km run, 1m walk").returncode == 0
    wait_until(lambda: get("SegmentIndex") == 1, 15, "the distance step")
    begun = bluez.machine_state(treadmill)["distance_m"]
    wait_until(lambda: get("SegmentIndex") == 2, 30, "the distance step ended by the machine")
    ended = bluez.machine_state(treadmill)["distance_m"]
    # The belt covers at most 5 m between two of its notifications (16 km/h).
    assert 20 <= ended - begun <= 26, (begun, ended)
    assert ctl("stop").returncode == 0


def test_what_the_belt_reads_is_on_the_bus_and_in_the_status(bluez, treadmill, activatable_daemon):
    assert ctl("start", "-e", "1m run @ 5:00/km").returncode == 0
    # The belt moves toward 12 km/h at 1 km/h a second.
    wait_until(lambda: get("Speed") >= 3, 15, "the belt's speed on the bus")
    assert get("MachineReadings").split() == ["speed", "distance", "incline"]
    status = json.loads(ctl("status", "--json").stdout)["machine"]
    assert status["speed"] > 0 and status["distance"] >= 0 and status["power"] is None
    assert " km/h · " in ctl("status").stdout
    assert ctl("stop").returncode == 0
    wait_until(lambda: get("MachineReadings") == "", 10, "the readings gone after the workout")


class TestABike:
    """A smart trainer holds each step's watts."""

    @pytest.fixture
    def bike(self, bluez):
        bluez.add_adapter()
        return bluez.add_bike(*BIKE)

    @pytest.fixture
    def daemon_config(self, tmp_path):
        path = tmp_path / "intervald.toml"
        path.write_text(f'[notifications]\nsound = false\n\n[sensors]\nmachine = "{BIKE[1]}"\n\n'
                        '[machine]\nmax_power = 350\n')
        return path

    def test_each_step_sets_the_power_and_a_range_is_sent_as_its_middle(self, bluez, bike, activatable_daemon,
                                                                        notify_log):
        assert ctl("start", "-e", "2x(3s work @ 300W, 2s rest @ 100-110W), 3s work @ 500W").returncode == 0
        wait_until(lambda: get("State") == "idle" and STOP in written(bluez, bike), 30, "the workout to finish")
        assert written(bluez, bike) == [REQUEST_CONTROL, START, power(300), power(105), power(300), power(105),
                                        power(350), STOP]
        assert all(write.indication[2] == 0x01 for write in bluez.control_writes(bike))
        assert said(notify_log) == ["A step's power is above the top power; the machine is set to 350 W."]

    def test_the_bikes_power_and_cadence_are_on_the_bus(self, bluez, bike, activatable_daemon):
        assert ctl("start", "-e", "1m work @ 250W").returncode == 0
        wait_until(lambda: get("Power") == 250, 10, "the bike's power on the bus")
        assert get("Cadence") == 90
        assert json.loads(ctl("status", "--json").stdout)["machine"]["power"] == 250
        assert ctl("status").stdout.rstrip().endswith("· 250 W · 90 rpm")
        assert ctl("stop").returncode == 0


def test_the_history_and_the_fit_activity_keep_the_belts_speed_and_distance(bluez, treadmill, activatable_daemon,
                                                                             tmp_path):
    assert ctl("start", "-e", "6s run @ 5:00/km").returncode == 0
    history = tmp_path / "state" / "intervald" / "history.jsonl"
    wait_until(lambda: history.exists() and history.read_text().endswith("\n"), 20, "the workout to finish")
    record = json.loads(history.read_text().splitlines()[-1])
    speeds = [sample["speed"] for sample in record["machine"]]
    # The belt speeds up toward 12 km/h by 1 km/h a second, a sample a second.
    assert len(speeds) >= 4 and speeds == sorted(speeds) and speeds[-1] > speeds[0], record["machine"]
    summary = record["machine_summary"]
    assert summary["max_speed"] == max(speeds) and summary["distance"] >= 0
    state = {"XDG_STATE_HOME": str(tmp_path / "state")}
    exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"), env=state)
    assert exported.returncode == 0, exported.stderr
    (path,) = (tmp_path / "log").iterdir()
    with fitdecode.FitReader(str(path), check_crc=fitdecode.CrcCheck.RAISE) as reader:
        messages = [(frame.name, {field.name: field.value for field in frame.fields})
                    for frame in reader if isinstance(frame, fitdecode.FitDataMessage)]
    records = [fields for name, fields in messages if name == "record" and fields.get("speed") is not None]
    # FIT keeps m/s to the millimetre.
    assert [round(fields["speed"] * 3.6, 1) for fields in records] == [round(speed, 1) for speed in speeds]
    (session,) = [fields for name, fields in messages if name == "session"]
    assert round(session["max_speed"] * 3.6, 1) == round(max(speeds), 1)
    assert session["total_distance"] == summary["distance"]

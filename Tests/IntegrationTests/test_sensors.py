"""`intervalctl sensors` (docs/sensors.md) against BlueZ's D-Bus API on a private system bus (bluez.py: no radio runs
here): the straps, treadmills and bikes BlueZ knows listed with their kind, connection and battery; a scan with the
discovery filter on their services; a choice written to intervald.toml and taken out again; and no Bluetooth at all
said in one sentence."""
import csv
import io
import json
import threading
import time

import pytest

import fitdecode

from bluez import FITNESS_MACHINE_BIKE, HEART_RATE_MEASUREMENT, bluez, uuid16  # noqa: F401
from conftest import PATH, SERVICE, busctl, ctl, desktop_required, wait_until

STRAP = ("Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56")
BIKE = ("KICKR CORE 5A1B", "F1:E2:D3:C4:B5:A6")


def read_fit(path):
    with fitdecode.FitReader(str(path), check_crc=fitdecode.CrcCheck.RAISE) as reader:
        return [(frame.name, {field.name: field.value for field in frame.fields})
                for frame in reader if isinstance(frame, fitdecode.FitDataMessage)]


def get(prop):
    kind, value = busctl("get-property", SERVICE, PATH, SERVICE, prop).stdout.split(maxsplit=1)
    return {"s": json.loads, "b": lambda text: text.strip() == "true", "d": float}.get(kind, int)(value)


def sensors(bluez, tmp_path, *args):
    return ctl("sensors", *args, env=environment(bluez, tmp_path))


def environment(bluez, tmp_path):
    return {"DBUS_SYSTEM_BUS_ADDRESS": bluez.address, "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"}


def test_the_strap_and_the_bike_are_listed_by_kind_with_their_battery_and_connection(bluez, tmp_path):
    bluez.add_adapter()
    bluez.add_heart_rate_strap(*STRAP, battery=85)
    bluez.add_device(*BIKE, [FITNESS_MACHINE_BIKE])
    # A keyboard offers neither service: not a sensor.
    bluez.add_device("Keyboard K380", "11:22:33:44:55:66", [], advertised=[uuid16(0x1812)])
    listed = sensors(bluez, tmp_path, "--json")
    assert listed.returncode == 0, listed.stderr
    entries = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert set(entries) == {STRAP[0], BIKE[0]}
    assert (entries[STRAP[0]]["kind"], entries[STRAP[0]]["address"], entries[STRAP[0]]["battery"]) == \
        ("heart-rate", STRAP[1], 85)
    assert (entries[BIKE[0]]["kind"], entries[BIKE[0]]["battery"], entries[BIKE[0]]["chosen"]) == ("bike", None, False)
    text = sensors(bluez, tmp_path).stdout.splitlines()
    assert text[0].split() == ["KICKR", "CORE", "5A1B", BIKE[1], "bike", "not", "connected"], text
    assert text[1].split()[3:] == [STRAP[1], "heart-rate", "strap", "not", "connected", "battery", "85", "%"], text


def test_use_writes_the_strap_by_its_address_and_forget_takes_it_out(bluez, tmp_path):
    bluez.add_adapter()
    bluez.add_heart_rate_strap(*STRAP)
    bluez.add_device(*BIKE, [FITNESS_MACHINE_BIKE])
    chosen = sensors(bluez, tmp_path, "use", STRAP[0])
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout == f"Chosen as the heart-rate strap: {STRAP[0]} ({STRAP[1]}).\n"
    settings = tmp_path / "config" / "intervald" / "intervald.toml"
    assert f'heart_rate = "{STRAP[1]}"' in settings.read_text()
    assert sensors(bluez, tmp_path, "use", BIKE[1].lower()).returncode == 0
    assert f'machine = "{BIKE[1]}"' in settings.read_text()
    listed = {entry["name"]: entry["chosen"] for entry in json.loads(sensors(bluez, tmp_path, "--json").stdout)}
    assert listed == {STRAP[0]: True, BIKE[0]: True}
    assert sensors(bluez, tmp_path).stdout.splitlines()[1].startswith(f"* {STRAP[0]}")
    assert sensors(bluez, tmp_path, "forget", "heart-rate").stdout == "Forgotten: the heart-rate strap.\n"
    assert "heart_rate" not in settings.read_text() and "machine" in settings.read_text()
    assert sensors(bluez, tmp_path, "forget").returncode == 0
    assert "machine" not in settings.read_text()
    unknown = sensors(bluez, tmp_path, "use", "Garmin HRM")
    assert (unknown.returncode, unknown.stderr) == (
        1, "intervalctl: error: No sensor is named “Garmin HRM”; 'intervalctl sensors' lists them.\n")


def test_scan_filters_on_the_sensors_services_over_le_and_lists_what_it_found(bluez, tmp_path):
    bluez.add_adapter()
    found = []

    def appear():
        # The strap comes into range while the scan looks: BlueZ adds it (InterfacesAdded).
        wait_until(lambda: bluez.calls("StartDiscovery"), 10, "the discovery to start")
        found.append(bluez.add_heart_rate_strap(*STRAP))

    helper = threading.Thread(target=appear)
    helper.start()
    scanned = sensors(bluez, tmp_path, "scan", "--seconds", "2", "--json")
    helper.join(timeout=15)
    assert scanned.returncode == 0, scanned.stderr
    assert [entry["name"] for entry in json.loads(scanned.stdout)] == [STRAP[0]]
    (filter_call,) = bluez.calls("SetDiscoveryFilter")
    assert filter_call.args[0]["Transport"] == "le"
    assert set(filter_call.args[0]["UUIDs"]) == {uuid16(0x180D), uuid16(0x1826)}
    methods = [call.method for call in bluez.calls() if call.method.endswith("Discovery") or
               call.method == "SetDiscoveryFilter"]
    assert methods == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"], methods
    refused = sensors(bluez, tmp_path, "scan", "--seconds", "0")
    assert refused.returncode == 64 and "--seconds takes 1 to 120 seconds." in refused.stderr


def test_without_bluez_an_adapter_or_power_bluetooth_is_said_unavailable(bluez, tmp_path):
    none = sensors(bluez, tmp_path)
    assert (none.returncode, none.stderr) == (
        69, "intervalctl: error: Bluetooth is not available: this computer has no Bluetooth adapter.\n")
    bluez.add_adapter(powered=False)
    off = sensors(bluez, tmp_path, "--json")
    assert (off.returncode, off.stdout, off.stderr) == (
        69, "", "intervalctl: error: Bluetooth is off: turn it on to use a sensor.\n")
    nothing = ctl("sensors", env={**environment(bluez, tmp_path), "DBUS_SYSTEM_BUS_ADDRESS": bluez.address + "x"})
    assert nothing.returncode == 69 and nothing.stderr.startswith("intervalctl: error: Bluetooth is not available"), \
        nothing.stderr
    bluez.close()
    gone = sensors(bluez, tmp_path)
    assert gone.returncode == 69 and "Bluetooth is not available" in gone.stderr, gone.stderr


@desktop_required()
class TestAStrapInAWorkout:
    """The daemon reads the chosen strap during a workout (docs/sensors.md): connected and subscribed at the start,
    its bpm on the bus and in the status, a step its heart rate ends ended by the first measurement past the bound,
    and the strap let go at the end."""

    @pytest.fixture
    def strap(self, bluez):
        bluez.add_adapter()
        return bluez.add_heart_rate_strap(*STRAP)

    @pytest.fixture
    def daemon_config(self, tmp_path):
        path = tmp_path / "intervald.toml"
        path.write_text(f'[notifications]\nsound = false\n\n[sensors]\nheart_rate = "{STRAP[1]}"\n')
        return path

    @pytest.fixture
    def daemon_environment(self, bluez):
        return {"DBUS_SYSTEM_BUS_ADDRESS": bluez.address}

    def test_the_bpm_is_shown_and_a_recovery_ends_at_the_first_beat_below_its_bound(self, bluez, strap,
                                                                                     activatable_daemon):
        assert ctl("start", "-e", 'hr<120 walk "Recover", 1m run').returncode == 0
        wait_until(lambda: bluez.calls("StartNotify"), 10, "the daemon to subscribe to the strap's measurements")
        assert [call.method for call in bluez.calls() if call.method in ("Connect", "StartNotify")] == \
            ["Connect", "StartNotify"]
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 130]))
        wait_until(lambda: get("HeartRate") == 130, 5, "the bpm on the bus")
        status = json.loads(ctl("status", "--json").stdout)
        assert (status["heart_rate"], status["segment_index"]) == (130, 0)
        assert ctl("status").stdout.rstrip().endswith("· ♥ 130")
        # Malformed measurements are dropped; 120 is not below 120.
        for malformed in (b"", bytes([0x00, 0x00]), bytes([0x01, 0x2C])):
            assert bluez.notify(strap, HEART_RATE_MEASUREMENT, malformed)
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 120]))
        wait_until(lambda: get("HeartRate") == 120, 5, "120 on the bus")
        assert get("SegmentIndex") == 0
        # A 16-bit measurement below the bound ends the recovery.
        sent = time.monotonic()
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x01, 118, 0x00]))
        wait_until(lambda: get("SegmentIndex") == 1, 5, "the recovery to end")
        assert time.monotonic() - sent < 1.0
        assert ctl("stop").returncode == 0
        wait_until(lambda: bluez.calls("Disconnect"), 10, "the daemon to let the strap go")
        assert [call.method for call in bluez.calls() if call.method in ("StopNotify", "Disconnect")] == \
            ["StopNotify", "Disconnect"]

    def test_a_strap_out_of_range_is_gone_from_the_status_and_read_again_when_back(self, bluez, strap,
                                                                                   activatable_daemon, notify_log):
        assert ctl("start", "-e", "10m walk").returncode == 0
        wait_until(lambda: bluez.calls("StartNotify"), 10, "the daemon to subscribe")
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 95]))
        wait_until(lambda: get("HeartRate") == 95, 5, "the bpm on the bus")
        bluez.go_out_of_range(strap)
        wait_until(lambda: get("HeartRate") == 0, 4, "the bpm gone within 4 s")
        assert json.loads(ctl("status", "--json").stdout)["heart_rate"] is None
        bluez.come_back(strap)
        wait_until(lambda: len(bluez.calls("StartNotify")) == 2, 15, "the strap found again and subscribed")
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 101]))
        wait_until(lambda: get("HeartRate") == 101, 5, "the bpm back on the bus")
        assert get("State") == "running", "the workout never stops for the strap"
        # Each change said once, in a sentence.
        said = ["The heart-rate strap is lost; looking for it.", "The heart-rate strap is found again."]
        wait_until(lambda: [entry["body"] for entry in notify_log.entries()
                            if entry["summary"] == "Heart-rate strap"] == said, 5, f"{said} said once each")
        ctl("stop")

    def test_ten_seconds_above_a_steps_range_give_one_heart_rate_cue(self, bluez, strap, activatable_daemon,
                                                                     notify_log):
        assert ctl("start", "-e", "2m run @ 130-150bpm").returncode == 0
        assert get("SegmentTarget") == "130-150bpm"
        wait_until(lambda: bluez.calls("StartNotify"), 10, "the daemon to subscribe")

        def cues():
            return [(entry["summary"], entry["body"]) for entry in notify_log.entries()
                    if entry["summary"].startswith("Heart rate")]

        # A measurement a second, as a strap sends them: the tenth second out of the range gives the cue, and the
        # seconds after it (well within 30 s) none.
        for _ in range(14):
            assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 162]))
            time.sleep(1)  # the strap's pace, not a wait for the daemon
        wait_until(lambda: cues(), 5, "the heart-rate cue")
        assert cues() == [("Heart rate high, 162", "Target 130–150 bpm")]
        assert get("State") == "running"
        ctl("stop")

    def test_the_history_the_csv_and_the_fit_activity_keep_the_heart_rate(self, bluez, strap, activatable_daemon,
                                                                           tmp_path):
        assert ctl("start", "-e", 'hr<120 walk "Recover", 2s run').returncode == 0
        wait_until(lambda: bluez.calls("StartNotify"), 10, "the daemon to subscribe")
        for bpm in (131, 125):
            assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, bpm]))
            wait_until(lambda: get("HeartRate") == bpm, 5, f"{bpm} on the bus")
            time.sleep(1.05)  # the history keeps a sample a second: the next one falls in the next second
        assert bluez.notify(strap, HEART_RATE_MEASUREMENT, bytes([0x00, 118]))
        history = tmp_path / "state" / "intervald" / "history.jsonl"
        wait_until(lambda: history.exists() and history.read_text().endswith("\n"), 10, "the workout to finish")
        record = json.loads(history.read_text().splitlines()[-1])
        assert [bpm for _, bpm in record["heart_rate"]] == [131, 125, 118], record
        assert (record["avg_heart_rate"], record["max_heart_rate"]) == (125, 131)
        assert record["segments"][0]["max_heart_rate"] == 131
        listed = ctl("history", env={"XDG_STATE_HOME": str(tmp_path / "state")}).stdout
        assert "♥ 125 avg" in listed, listed
        state = {"XDG_STATE_HOME": str(tmp_path / "state")}
        csv_path = tmp_path / "log.csv"
        assert ctl("history", "export", "--format", "csv", "-o", str(csv_path), env=state).returncode == 0
        (row,) = csv.DictReader(io.StringIO(csv_path.read_text(), newline=""))
        assert (row["avg_heart_rate"], row["max_heart_rate"]) == ("125", "131"), row
        assert row["avg_speed"] == "" and row["distance"] == "", "no machine"
        exported = ctl("history", "export", "--format", "fit", "-o", str(tmp_path / "log"), env=state)
        assert exported.returncode == 0, exported.stderr
        (path,) = (tmp_path / "log").iterdir()
        messages = read_fit(path)
        assert [fields["heart_rate"] for name, fields in messages
                if name == "record" and fields.get("heart_rate") is not None] == [131, 125, 118]
        (session,) = [fields for name, fields in messages if name == "session"]
        assert (session["avg_heart_rate"], session["max_heart_rate"]) == (125, 131)
        laps = [fields for name, fields in messages if name == "lap"]
        assert [lap["max_heart_rate"] for lap in laps][0] == 131

    def test_without_bluez_the_workout_plays_with_its_recovery_waiting_for_done(self, bluez, activatable_daemon):
        bluez.close()
        assert ctl("start", "-e", 'hr<120 walk "Recover", 250ms run').returncode == 0
        assert get("State") == "running" and get("Open") is True and get("HeartRate") == 0
        assert ctl("skip").returncode == 0
        wait_until(lambda: ctl("status").stdout.strip() == "idle", 5, "the plan to finish")

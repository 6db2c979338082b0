"""`intervalctl sensors` (docs/sensors.md) against BlueZ's D-Bus API on a private system bus (bluez.py: no radio runs
here): the straps, treadmills and bikes BlueZ knows listed with their kind, connection and battery; a scan with the
discovery filter on their services; a choice written to intervald.toml and taken out again; and no Bluetooth at all
said in one sentence."""
import json
import threading

from bluez import FITNESS_MACHINE_BIKE, bluez, uuid16  # noqa: F401
from conftest import ctl, wait_until

STRAP = ("Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56")
BIKE = ("KICKR CORE 5A1B", "F1:E2:D3:C4:B5:A6")


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

"""The stand-in of BlueZ (bluez.py) answers a client on its system bus as BlueZ 5.66 does: the objects a strap and a
treadmill have, the connection sequence, notifications only to subscribers, link loss, a powered-off adapter and a
discovery, and fitness machines that answer their control point and move as the Fitness Machine Service says. The
client is dbus-python on its own connection (or busctl, for one that leaves), as the daemon is; signals
are watched with `busctl monitor`, and each is a broadcast (no destination), so every subscriber with a matching rule
receives what the monitor sees."""
import time

import dbus
import pytest

from bluez import bluez  # noqa: F401 (the fixture)
from bluez import (BLUEZ, CONTROL_POINT, FEATURE, HEART_RATE_MEASUREMENT, INCLINATION_RANGE, INDOOR_BIKE_DATA,
                   MACHINE_STATUS, POWER_RANGE, SPEED_RANGE, TREADMILL_DATA, GattService, plain, uuid16)
from conftest import BusMonitor, busctl, wait_until

DEVICE = "org.bluez.Device1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
STRAP = "/org/bluez/hci0/dev_C0_FF_EE_12_34_56"
MEASUREMENT = f"{STRAP}/service000c/char000d"
#: A Heart Rate Measurement: flags 0 (8-bit bpm), 72 bpm.
BEAT = bytes([0x00, 72])


@pytest.fixture
def client(bluez):
    """A client of the stand-in's system bus that stays on it, as the daemon does."""
    connection = dbus.bus.BusConnection(bluez.address)
    yield connection
    connection.close()


@pytest.fixture
def monitors(bluez):
    made = []

    def make(match):
        made.append(BusMonitor(match, env=bluez.client_env))
        return made[-1]

    yield make
    for monitor in made:
        monitor.close()


def call(client, path, interface, method, *args):
    """The method call alone (no introspection first), as a client that knows the API makes it."""
    return client.get_object(BLUEZ, path, introspect=False).get_dbus_method(method, interface)(*args)


def error_of(client, path, interface, method, *args):
    with pytest.raises(dbus.exceptions.DBusException) as raised:
        call(client, path, interface, method, *args)
    return raised.value.get_dbus_name()


def changes(monitor, path, count):
    """The first `count` property changes signalled at `path`, as (interface, {name: value}), in order."""
    def at_path():
        return [m for m in monitor.received("PropertiesChanged") if m["path"] == path]

    signals = wait_until(lambda: len(at_path()) >= count and at_path(), 10, f"{count} PropertiesChanged at {path}")
    signals = signals[:count]
    for signal in signals:
        assert signal.get("destination") is None, signal
    return [(s["payload"]["data"][0], {name: value["data"] for name, value in s["payload"]["data"][1].items()})
            for s in signals]


def connect(bluez, client, path=STRAP):
    """Connects the device as a client does: Connect, then a wait for ServicesResolved."""
    call(client, path, DEVICE, "Connect")
    wait_until(lambda: bluez.properties(path, DEVICE)["ServicesResolved"], 10, "ServicesResolved")


def managed_objects(client):
    return plain(call(client, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"))


def test_the_managed_objects_are_the_adapter_and_the_strap_with_its_battery_service_and_measurement(bluez, client):
    bluez.add_adapter()
    assert bluez.add_heart_rate_strap() == STRAP
    objects = managed_objects(client)
    assert objects["/org/bluez/hci0"]["org.bluez.Adapter1"]["Powered"] is True
    strap = objects[STRAP]
    device = strap[DEVICE]
    assert (device["Name"], device["Alias"], device["Address"], device["AddressType"]) == (
        "Polar H10 1A2B3C4D", "Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56", "random")
    assert "0000180d-0000-1000-8000-00805f9b34fb" in device["UUIDs"]
    assert (device["Connected"], device["ServicesResolved"], device["Adapter"]) == (False, False, "/org/bluez/hci0")
    assert isinstance(device["RSSI"], int)
    assert strap["org.bluez.Battery1"] == {"Percentage": 85}
    assert objects[f"{STRAP}/service000c"]["org.bluez.GattService1"] == {
        "UUID": "0000180d-0000-1000-8000-00805f9b34fb", "Primary": True, "Device": STRAP, "Includes": []}
    assert objects[MEASUREMENT][CHARACTERISTIC] == {
        "UUID": "00002a37-0000-1000-8000-00805f9b34fb", "Service": f"{STRAP}/service000c", "Flags": ["notify"],
        "Notifying": False, "Value": b""}
    assert bluez.characteristic(STRAP, HEART_RATE_MEASUREMENT) == MEASUREMENT


def test_connect_turns_connected_then_services_resolved_true_and_disconnect_the_reverse(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_heart_rate_strap()
    signals = monitors("sender='org.bluez'")
    call(client, STRAP, DEVICE, "Connect")
    assert changes(signals, STRAP, 2) == [(DEVICE, {"Connected": True}), (DEVICE, {"ServicesResolved": True})]
    answered = [m.get("member", m["type"]) for m in signals.received() if m.get("member") != "MethodCalled"][:3]
    assert answered == ["PropertiesChanged", "method_return", "PropertiesChanged"], "Connect answers before the services "\
        "are resolved, as BlueZ does: a client waits for ServicesResolved"
    assert error_of(client, STRAP, DEVICE, "Connect") == "org.bluez.Error.AlreadyConnected"
    call(client, STRAP, DEVICE, "Disconnect")
    assert changes(signals, STRAP, 4)[2:] == [(DEVICE, {"ServicesResolved": False}), (DEVICE, {"Connected": False})]
    assert [(c.path, c.method) for c in bluez.calls()] == [(STRAP, "Connect"), (STRAP, "Connect"),
                                                          (STRAP, "Disconnect")]


def test_a_strap_connected_for_the_first_time_has_its_objects_added_before_its_services_are_resolved(
        bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_heart_rate_strap(known=False)
    assert set(managed_objects(client)[STRAP]) == {DEVICE}, "no battery nor GATT objects before a connection"
    assert MEASUREMENT not in managed_objects(client)
    signals = monitors("type='signal',sender='org.bluez'")
    call(client, STRAP, DEVICE, "Connect")
    changes(signals, STRAP, 2)
    sequence = [(m["member"], m["payload"]["data"][0] if m["member"] == "InterfacesAdded" else m["path"])
                for m in signals.received() if m["member"] in ("InterfacesAdded", "PropertiesChanged")]
    assert sequence == [("PropertiesChanged", STRAP), ("InterfacesAdded", f"{STRAP}/service000c"),
                        ("InterfacesAdded", MEASUREMENT), ("InterfacesAdded", STRAP), ("PropertiesChanged", STRAP)]
    assert managed_objects(client)[STRAP]["org.bluez.Battery1"] == {"Percentage": 85}
    assert managed_objects(client)[MEASUREMENT][CHARACTERISTIC]["UUID"] == HEART_RATE_MEASUREMENT


def test_a_notification_reaches_the_bus_only_once_a_client_has_called_start_notify(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_heart_rate_strap()
    connect(bluez, client)
    values = monitors(f"type='signal',path='{MEASUREMENT}',member='PropertiesChanged'")
    assert bluez.notify(STRAP, HEART_RATE_MEASUREMENT, bytes([0x00, 60])) is False
    call(client, MEASUREMENT, CHARACTERISTIC, "StartNotify")
    assert bluez.properties(MEASUREMENT, CHARACTERISTIC)["Notifying"] is True
    assert bluez.notify(STRAP, HEART_RATE_MEASUREMENT, BEAT) is True
    # The signals come in order: had the first beat been sent, it would be second here, before the second one.
    assert changes(values, MEASUREMENT, 2) == [(CHARACTERISTIC, {"Notifying": True}),
                                               (CHARACTERISTIC, {"Value": list(BEAT)})]
    assert bluez.sent == [(STRAP, HEART_RATE_MEASUREMENT, bytes([0x00, 60]), False),
                          (STRAP, HEART_RATE_MEASUREMENT, BEAT, True)]
    assert [c.method for c in bluez.calls()] == ["Connect", "StartNotify"]
    assert bluez.calls("StartNotify")[0].path == MEASUREMENT


def test_a_strap_that_notifies_every_250_ms_reaches_its_subscriber_four_times_a_second(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_heart_rate_strap()
    connect(bluez, client)
    values = monitors(f"type='signal',path='{MEASUREMENT}',member='PropertiesChanged'")
    call(client, MEASUREMENT, CHARACTERISTIC, "StartNotify")
    bluez.notify_every(STRAP, HEART_RATE_MEASUREMENT, BEAT, 250)
    beats = wait_until(lambda: len(values.received()) >= 9 and values.received()[1:9], 10, "eight beats")
    assert {tuple(m["payload"]["data"][1]["Value"]["data"]) for m in beats} == {tuple(BEAT)}
    seconds = (beats[-1]["timestamp-realtime"] - beats[0]["timestamp-realtime"]) / 1e6
    assert 1.5 <= seconds < 4, f"seven intervals of 250 ms took {seconds} s"
    assert bluez.delivered(STRAP, HEART_RATE_MEASUREMENT) >= 8


def test_a_subscription_ends_with_stop_notify_or_when_its_client_leaves_the_bus(bluez, client):
    bluez.add_adapter()
    bluez.add_heart_rate_strap()
    call(client, STRAP, DEVICE, "Connect")
    assert error_of(client, MEASUREMENT, CHARACTERISTIC, "StopNotify") == "org.bluez.Error.Failed"
    call(client, MEASUREMENT, CHARACTERISTIC, "StartNotify")
    call(client, MEASUREMENT, CHARACTERISTIC, "StopNotify")
    assert bluez.properties(MEASUREMENT, CHARACTERISTIC)["Notifying"] is False
    assert bluez.notify(STRAP, HEART_RATE_MEASUREMENT, BEAT) is False
    # busctl leaves the bus once answered: BlueZ ends the subscription of a client that is gone.
    busctl("call", BLUEZ, MEASUREMENT, CHARACTERISTIC, "StartNotify", env=bluez.client_env)
    wait_until(lambda: not bluez.properties(MEASUREMENT, CHARACTERISTIC)["Notifying"], 10,
               "Notifying false once busctl has left")
    assert [c.method for c in bluez.calls()] == ["Connect", "StopNotify", "StartNotify", "StopNotify", "StartNotify"]


def test_a_strap_out_of_range_loses_its_link_cannot_be_connected_and_comes_back_with_its_subscription(
        bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_heart_rate_strap()
    connect(bluez, client)
    call(client, MEASUREMENT, CHARACTERISTIC, "StartNotify")
    signals = monitors(f"type='signal',path='{STRAP}',member='PropertiesChanged'")
    bluez.go_out_of_range(STRAP)
    assert changes(signals, STRAP, 2) == [(DEVICE, {"ServicesResolved": False}), (DEVICE, {"Connected": False})]
    assert bluez.notify(STRAP, HEART_RATE_MEASUREMENT, BEAT) is False
    assert error_of(client, STRAP, DEVICE, "Connect") == "org.bluez.Error.Failed"
    bluez.come_back(STRAP)
    assert bluez.properties(STRAP, DEVICE)["Connected"] is False, "BlueZ does not reconnect a strap by itself"
    call(client, STRAP, DEVICE, "Connect")
    assert changes(signals, STRAP, 4)[2:] == [(DEVICE, {"Connected": True}), (DEVICE, {"ServicesResolved": True})]
    assert bluez.properties(MEASUREMENT, CHARACTERISTIC)["Notifying"] is True, "BlueZ subscribes again"
    assert bluez.notify(STRAP, HEART_RATE_MEASUREMENT, BEAT) is True
    # A device on BlueZ's auto-connect list is connected by BlueZ as it comes back.
    bluez.go_out_of_range(STRAP)
    bluez.come_back(STRAP, reconnect=True)
    assert changes(signals, STRAP, 8)[6:] == [(DEVICE, {"Connected": True}), (DEVICE, {"ServicesResolved": True})]
    assert [c.method for c in bluez.calls()] == ["Connect", "StartNotify", "Connect", "Connect"]


def test_a_powered_off_adapter_connects_nothing_and_powering_it_off_loses_every_link(bluez, client, monitors):
    bluez.add_adapter(powered=False)
    bluez.add_heart_rate_strap()
    assert bluez.properties("/org/bluez/hci0", "org.bluez.Adapter1")["Powered"] is False
    assert error_of(client, STRAP, DEVICE, "Connect") == "org.bluez.Error.NotReady"
    bluez.set_powered(True)
    connect(bluez, client)
    signals = monitors("type='signal',member='PropertiesChanged'")
    bluez.set_powered(False)
    assert changes(signals, STRAP, 2) == [(DEVICE, {"ServicesResolved": False}), (DEVICE, {"Connected": False})]
    assert changes(signals, "/org/bluez/hci0", 1) == [("org.bluez.Adapter1", {"Powered": False})]


def test_a_strap_found_during_a_discovery_is_announced_with_interfaces_added(bluez, client, monitors):
    adapter = bluez.add_adapter()
    signals = monitors("type='signal',sender='org.bluez'")
    call(client, adapter, "org.bluez.Adapter1", "SetDiscoveryFilter",
         dbus.Dictionary({"UUIDs": dbus.Array([uuid16(0x180D)], signature="s"), "Transport": "le"}, signature="sv"))
    call(client, adapter, "org.bluez.Adapter1", "StartDiscovery")
    assert bluez.properties(adapter, "org.bluez.Adapter1")["Discovering"] is True
    bluez.add_heart_rate_strap(known=False)
    [added] = signals.wait_for("InterfacesAdded")
    path, interfaces = added["payload"]["data"]
    assert (path, list(interfaces)) == (STRAP, [DEVICE]), "a strap never connected has no battery nor GATT objects"
    assert interfaces[DEVICE]["UUIDs"]["data"] == [uuid16(0x180D)]
    assert interfaces[DEVICE]["AddressType"]["data"] == "random"
    call(client, adapter, "org.bluez.Adapter1", "StopDiscovery")
    assert bluez.properties(adapter, "org.bluez.Adapter1")["Discovering"] is False
    assert [(c.method, c.args) for c in bluez.calls()] == [
        ("SetDiscoveryFilter", [{"UUIDs": [uuid16(0x180D)], "Transport": "le"}]), ("StartDiscovery", []),
        ("StopDiscovery", [])]


def test_a_treadmills_characteristics_take_the_handles_and_answer_as_their_flags_allow(bluez, client):
    bluez.add_adapter()
    treadmill = bluez.add_device("Treadmill", "E4:5F:01:AA:BB:CC", [GattService(uuid16(0x1826), [
        (uuid16(0x2ACD), ["notify"]), (uuid16(0x2AD9), ["write", "indicate"])])], address_type="public")
    data, control = (bluez.characteristic(treadmill, uuid16(short)) for short in (0x2ACD, 0x2AD9))
    assert (data, control) == (f"{treadmill}/service000c/char000d", f"{treadmill}/service000c/char0010")
    assert managed_objects(client)[control][CHARACTERISTIC]["Flags"] == ["write", "indicate"]
    assert error_of(client, control, CHARACTERISTIC, "StartNotify") == "org.bluez.Error.Failed", "not connected"
    connect(bluez, client, treadmill)
    call(client, control, CHARACTERISTIC, "StartNotify")
    request_control = dbus.Array([0x00], signature="y")
    call(client, control, CHARACTERISTIC, "WriteValue", request_control, dbus.Dictionary({}, signature="sv"))
    assert error_of(client, data, CHARACTERISTIC, "WriteValue", request_control,
                    dbus.Dictionary({}, signature="sv")) == "org.bluez.Error.NotPermitted"
    assert error_of(client, data, CHARACTERISTIC, "ReadValue",
                    dbus.Dictionary({}, signature="sv")) == "org.bluez.Error.NotPermitted"
    assert bluez.notify(treadmill, uuid16(0x2AD9), bytes([0x80, 0x00, 0x01])) is True
    # Refused calls were received too.
    assert [(c.path, c.args) for c in bluez.calls("WriteValue")] == [(control, [b"\x00", {}]), (data, [b"\x00", {}])]


TREADMILL = "/org/bluez/hci0/dev_E4_5F_01_AA_BB_CC"
BIKE = "/org/bluez/hci0/dev_F0_12_34_56_5A_1B"
NO_OPTIONS = dbus.Dictionary({}, signature="sv")
# Control point op codes and results, as the Fitness Machine Service numbers them.
REQUEST_CONTROL, START, SUCCESS, NOT_SUPPORTED, INVALID, FAILED, NOT_PERMITTED = 0x00, 0x07, 1, 2, 3, 4, 5


def target_speed(km_h):
    return bytes([0x02]) + round(km_h * 100).to_bytes(2, "little")


def target_power(watts):
    return bytes([0x05]) + watts.to_bytes(2, "little", signed=True)


class Machine:
    """A client of a treadmill or a bike, as the daemon is: connected, subscribed to the control point's indications
    (and, with `data`, to the machine's data and status), writing its control point; what comes back is read from
    the PropertiesChanged signals of Value."""

    def __init__(self, bluez, client, monitors, path, data=True):
        self.bluez, self.client, self.path = bluez, client, path
        self.control = bluez.characteristic(path, CONTROL_POINT)
        self.status = bluez.characteristic(path, MACHINE_STATUS)
        self.data = bluez.characteristic(path, TREADMILL_DATA if path == TREADMILL else INDOOR_BIKE_DATA)
        self.signals = monitors(f"type='signal',sender='org.bluez',member='PropertiesChanged',path_namespace='{path}'")
        connect(bluez, client, path)
        for characteristic in (self.control, self.status, self.data) if data else (self.control,):
            call(client, characteristic, CHARACTERISTIC, "StartNotify")

    def write(self, value):
        call(self.client, self.control, CHARACTERISTIC, "WriteValue", dbus.Array(value, signature="y"), NO_OPTIONS)

    def values(self, characteristic):
        """Every Value the characteristic signalled so far, as bytes, in order."""
        return [bytes(m["payload"]["data"][1]["Value"]["data"]) for m in self.signals.received("PropertiesChanged")
                if m["path"] == characteristic and "Value" in m["payload"]["data"][1]]

    def wait(self, characteristic, count, timeout=10):
        """The first `count` Values the characteristic signalled, waited for."""
        return wait_until(lambda: len(self.values(characteristic)) >= count and self.values(characteristic)[:count],
                          timeout, f"{count} values of {characteristic}")

    def answers(self, count):
        return self.wait(self.control, count)

    def asked(self, value, count):
        """Writes `value` and returns the indication that answers it, the `count`th of the connection."""
        self.write(value)
        return self.answers(count)[-1]

    def speeds(self):
        """Each treadmill data notification's instantaneous speed (0.01 km/h)."""
        return [int.from_bytes(value[2:4], "little") for value in self.values(self.data)]


def test_a_treadmill_and_a_bike_read_their_features_and_ranges(bluez, client):
    bluez.add_adapter()
    treadmill, bike = bluez.add_treadmill(), bluez.add_bike()
    assert (treadmill, bike) == (TREADMILL, BIKE)
    device = managed_objects(client)[TREADMILL][DEVICE]
    assert (device["Name"], device["AddressType"], device["UUIDs"]) == ("Horizon 7.8 AT", "public", [uuid16(0x1826)])
    connect(bluez, client, TREADMILL)
    connect(bluez, client, BIKE)

    def read(path, uuid):
        return bytes(call(client, bluez.characteristic(path, uuid), CHARACTERISTIC, "ReadValue", NO_OPTIONS))

    # Treadmill: total distance and inclination; speed and inclination targets; 1.00–20.00 km/h by 0.10; 0–15 % by
    # 0.5.
    assert read(TREADMILL, FEATURE) == bytes([0x0C, 0, 0, 0, 0x03, 0, 0, 0])
    assert read(TREADMILL, SPEED_RANGE) == bytes([100, 0, 0xD0, 0x07, 10, 0])
    assert read(TREADMILL, INCLINATION_RANGE) == bytes([0, 0, 150, 0, 5, 0])
    # Bike: cadence, total distance and power; a power target, 0–1500 W by 1.
    assert read(BIKE, FEATURE) == bytes([0x06, 0x40, 0, 0, 0x08, 0, 0, 0])
    assert read(BIKE, POWER_RANGE) == bytes([0, 0, 0xDC, 0x05, 1, 0])
    assert bluez.properties(bluez.characteristic(BIKE, POWER_RANGE), CHARACTERISTIC)["Value"] == bytes(
        [0, 0, 0xDC, 0x05, 1, 0]), "BlueZ keeps what it read as Value"
    for uuid in (TREADMILL_DATA, CONTROL_POINT, MACHINE_STATUS):
        assert error_of(client, bluez.characteristic(TREADMILL, uuid), CHARACTERISTIC, "ReadValue",
                        NO_OPTIONS) == "org.bluez.Error.NotPermitted"


def test_a_control_point_write_with_its_indications_off_fails_as_bluez_fails_a_write_the_device_refuses(
        bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL, data=False)
    call(client, machine.control, CHARACTERISTIC, "StopNotify")
    with pytest.raises(dbus.exceptions.DBusException) as refused:
        machine.write([REQUEST_CONTROL])
    assert (refused.value.get_dbus_name(), refused.value.get_dbus_message()) == (
        "org.bluez.Error.Failed", "Operation failed with ATT error: 0xfd")
    call(client, machine.control, CHARACTERISTIC, "StartNotify")
    assert machine.asked([REQUEST_CONTROL], 1) == bytes([0x80, REQUEST_CONTROL, SUCCESS])
    assert error_of(client, machine.control, CHARACTERISTIC, "WriteValue", dbus.Array([], signature="y"),
                    NO_OPTIONS) == "org.bluez.Error.InvalidArguments", "an empty write has no op code to answer"
    writes = bluez.control_writes(TREADMILL)
    assert [(w.value, w.indication, w.error) for w in writes] == [
        (b"\x00", b"", "org.bluez.Error.Failed"), (b"\x00", bytes([0x80, 0, SUCCESS]), ""),
        (b"", b"", "org.bluez.Error.InvalidArguments")]
    assert machine.values(machine.control) == [bytes([0x80, 0, SUCCESS])], "a refused write is not answered"


def test_only_a_request_for_control_is_permitted_before_control_is_granted_and_each_write_is_answered(
        bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL, data=False)
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    assert machine.asked([START], 1) == bytes([0x80, START, NOT_PERMITTED])
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    assert machine.asked(target_speed(8), 2) == bytes([0x80, 0x02, NOT_PERMITTED])
    assert machine.asked([0x42], 3) == bytes([0x80, 0x42, NOT_SUPPORTED]), "an unknown op code, even without control"
    assert machine.asked([REQUEST_CONTROL], 4) == bytes([0x80, REQUEST_CONTROL, SUCCESS])
    assert machine.asked(target_speed(8), 5) == bytes([0x80, 0x02, SUCCESS])
    assert machine.asked(target_power(200), 6) == bytes([0x80, 0x05, NOT_SUPPORTED]), "a treadmill has no power"
    assert machine.asked(target_speed(25), 7) == bytes([0x80, 0x02, INVALID]), "above the supported 20 km/h"
    assert machine.asked([0x02, 0x20], 8) == bytes([0x80, 0x02, INVALID]), "a speed is two bytes"
    assert machine.asked([0x08, 0x03], 9) == bytes([0x80, 0x08, INVALID]), "0x01 stop or 0x02 pause"
    assert machine.asked([0x03, 0x32, 0x00], 10) == bytes([0x80, 0x03, SUCCESS]), "5.0 % inclination"
    writes = bluez.control_writes(TREADMILL)
    assert [w.value for w in writes] == [bytes([START]), target_speed(8), bytes([0x42]), bytes([REQUEST_CONTROL]),
                                         target_speed(8), target_power(200), target_speed(25), bytes([0x02, 0x20]),
                                         bytes([0x08, 0x03]), bytes([0x03, 0x32, 0x00])]
    assert [w.indication for w in writes] == machine.answers(10)
    assert before <= writes[0].monotonic_us <= after, "stamped on CLOCK_MONOTONIC when it was received"
    assert abs(writes[0].realtime_us - time.time_ns() // 1000) < 60_000_000
    assert bluez.machine_state(TREADMILL)["target_speed"] == 800
    assert bluez.machine_state(TREADMILL)["inclination"] == 50


def test_the_belt_moves_toward_the_set_speed_by_1_kmh_a_second_and_the_distance_follows(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL)
    machine.asked([REQUEST_CONTROL], 1)
    assert machine.asked(target_speed(3.5), 2) == bytes([0x80, 0x02, SUCCESS])
    assert machine.asked([START], 3) == bytes([0x80, START, SUCCESS])
    assert machine.wait(machine.status, 2) == [bytes([0x05, 0x5E, 0x01]), bytes([0x04])], \
        "target speed changed to 3.50 km/h, then started"
    wait_until(lambda: machine.speeds().count(350) >= 2, 15, "the belt at 3.50 km/h for two notifications")
    speeds = machine.speeds()
    moving = speeds.index(100)
    assert set(speeds[:moving]) <= {0}, "still before the start"
    assert speeds[moving:moving + 5] == [100, 200, 300, 350, 350]
    data = [value for value in machine.values(machine.data)][moving:moving + 5]
    assert {value[:2] for value in data} == {bytes([0x0C, 0x00])}, "speed, total distance, inclination and ramp angle"
    assert {len(value) for value in data} == {2 + 2 + 3 + 2 + 2}
    distances = [int.from_bytes(value[4:7], "little") for value in data]
    # Each second adds the mean of its speeds: 0.14, 0.42, 0.69, 0.90, 0.97 m … so about 3.1 m after five.
    assert distances == sorted(distances) and 2 <= distances[-1] <= 4, distances
    stamps = [m["timestamp-realtime"] for m in machine.signals.received("PropertiesChanged")
              if m["path"] == machine.data and "Value" in m["payload"]["data"][1]][moving:moving + 5]
    gaps = [(b - a) / 1e6 for a, b in zip(stamps, stamps[1:])]
    assert all(0.5 < gap < 2.5 for gap in gaps), f"a notification about every second: {gaps}"


def test_pause_and_stop_stop_the_belt_and_start_resumes_it(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL)
    machine.asked([REQUEST_CONTROL], 1)
    machine.asked(target_speed(1), 2)  # the slowest: reached at the first second
    machine.asked([START], 3)
    wait_until(lambda: 100 in machine.speeds(), 10, "the belt at 1 km/h")
    assert machine.asked([0x08, 0x02], 4) == bytes([0x80, 0x08, SUCCESS])
    assert machine.wait(machine.status, 2) == [bytes([0x04]), bytes([0x02, 0x02])], "started, then paused"
    assert bluez.machine_state(TREADMILL)["state"] == "paused"
    paused = len(machine.speeds())
    wait_until(lambda: len(machine.speeds()) > paused, 10, "a notification while paused")
    assert machine.speeds()[paused:] == [0]
    assert machine.asked([START], 5) == bytes([0x80, START, SUCCESS])
    assert machine.wait(machine.status, 3)[2] == bytes([0x04]), "resumed"
    resumed = len(machine.speeds())
    wait_until(lambda: len(machine.speeds()) > resumed, 10, "a notification once resumed")
    assert machine.speeds()[resumed] == 100, "back at the target speed"
    assert machine.asked([0x08, 0x01], 6) == bytes([0x80, 0x08, SUCCESS])
    assert machine.wait(machine.status, 4)[3] == bytes([0x02, 0x01]), "stopped"
    assert machine.asked([0x08, 0x02], 7) == bytes([0x80, 0x08, SUCCESS]), "pausing a stopped machine changes nothing"
    assert bluez.machine_state(TREADMILL)["state"] == "stopped"
    stopped = len(machine.speeds())
    wait_until(lambda: len(machine.speeds()) > stopped, 10, "a notification once stopped")
    assert machine.speeds()[stopped:] == [0]
    assert len(machine.values(machine.status)) == 4, "no status for what did not change"


def test_a_machine_that_takes_back_control_says_so_and_permits_nothing_until_asked_again(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL)
    machine.asked([REQUEST_CONTROL], 1)
    machine.asked([START], 2)
    bluez.take_back_control(TREADMILL)
    assert machine.wait(machine.status, 2)[1] == bytes([0xFF]), "control permission lost"
    assert machine.asked(target_speed(6), 3) == bytes([0x80, 0x02, NOT_PERMITTED])
    assert bluez.machine_state(TREADMILL)["target_speed"] == 100, "the refused target is not taken"
    assert machine.asked([REQUEST_CONTROL], 4) == bytes([0x80, REQUEST_CONTROL, SUCCESS])
    assert machine.asked(target_speed(6), 5) == bytes([0x80, 0x02, SUCCESS])
    assert bluez.machine_state(TREADMILL)["target_speed"] == 600


def test_a_refusing_machine_answers_its_result_and_a_silent_one_acknowledges_but_never_answers(
        bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_bike()
    machine = Machine(bluez, client, monitors, BIKE, data=False)
    bluez.refuse(BIKE, FAILED)
    assert machine.asked([REQUEST_CONTROL], 1) == bytes([0x80, REQUEST_CONTROL, FAILED])
    assert machine.asked(target_power(200), 2) == bytes([0x80, 0x05, FAILED])
    assert bluez.machine_state(BIKE)["controlled"] is False
    bluez.stop_answering(BIKE)
    machine.write([REQUEST_CONTROL])  # acknowledged: WriteValue answers
    bluez.answer_normally(BIKE)
    # Indications come in order: had the silent write been answered, its answer would come before this one.
    assert machine.asked([REQUEST_CONTROL], 3) == bytes([0x80, REQUEST_CONTROL, SUCCESS])
    assert machine.asked(target_power(200), 4) == bytes([0x80, 0x05, SUCCESS])
    assert [w.indication for w in bluez.control_writes(BIKE)] == [
        bytes([0x80, 0, FAILED]), bytes([0x80, 5, FAILED]), b"", bytes([0x80, 0, SUCCESS]), bytes([0x80, 5, SUCCESS])]


def test_a_bike_notifies_its_target_power_with_cadence_speed_and_distance(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_bike()
    machine = Machine(bluez, client, monitors, BIKE)
    machine.asked([REQUEST_CONTROL], 1)
    assert machine.asked(target_speed(30), 2) == bytes([0x80, 0x02, NOT_SUPPORTED]), "a bike has no speed target"
    assert machine.asked(target_power(2000), 3) == bytes([0x80, 0x05, INVALID]), "above the supported 1500 W"
    machine.asked([START], 4)

    def power_notified(watts):
        return [value for value in machine.values(machine.data) if int.from_bytes(value[9:11], "little") == watts]

    [free, *_] = wait_until(lambda: power_notified(100), 10, "the free 100 W once started")
    assert free[:2] == bytes([0x54, 0x00]), "speed, cadence, total distance and power"
    assert int.from_bytes(free[4:6], "little") == 180, "90 rpm in 0.5 rpm"
    assert 2000 < int.from_bytes(free[2:4], "little") < 3500, "20 to 35 km/h at 100 W"
    assert machine.asked(target_power(250), 5) == bytes([0x80, 0x05, SUCCESS])
    assert machine.wait(machine.status, 2) == [bytes([0x04]), bytes([0x08, 0xFA, 0x00])], "target power 250 W"
    [driven, *_] = wait_until(lambda: power_notified(250), 10, "250 W")
    assert int.from_bytes(driven[2:4], "little") > int.from_bytes(free[2:4], "little"), "faster with more power"
    machine.asked([0x08, 0x01], 6)
    stopped = len(machine.values(machine.data))
    wait_until(lambda: len(machine.values(machine.data)) > stopped, 10, "a notification once stopped")
    assert machine.values(machine.data)[stopped][2:6] == bytes(4) and machine.values(machine.data)[stopped][9:] == \
        bytes(2), "no speed, cadence nor power once stopped"


def test_a_machine_out_of_range_loses_control_with_its_link_and_grants_it_again_once_back(bluez, client, monitors):
    bluez.add_adapter()
    bluez.add_treadmill()
    machine = Machine(bluez, client, monitors, TREADMILL)
    machine.asked([REQUEST_CONTROL], 1)
    machine.asked([START], 2)
    bluez.go_out_of_range(TREADMILL)
    wait_until(lambda: not bluez.properties(TREADMILL, DEVICE)["Connected"], 10, "the link lost")
    assert error_of(client, machine.control, CHARACTERISTIC, "WriteValue", dbus.Array([0x07], signature="y"),
                    NO_OPTIONS) == "org.bluez.Error.Failed"
    notified = len(machine.values(machine.data))
    bluez.come_back(TREADMILL)
    connect(bluez, client, TREADMILL)
    assert bluez.machine_state(TREADMILL)["state"] == "started", "the belt ran on with its runner"
    assert machine.asked(target_speed(5), 3) == bytes([0x80, 0x02, NOT_PERMITTED]), "control went with the link"
    assert machine.asked([REQUEST_CONTROL], 4) == bytes([0x80, REQUEST_CONTROL, SUCCESS])
    assert machine.asked(target_speed(5), 5) == bytes([0x80, 0x02, SUCCESS])
    wait_until(lambda: len(machine.values(machine.data)) > notified, 10, "data again once back")

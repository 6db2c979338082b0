"""The stand-in of BlueZ (bluez.py) answers a client on its system bus as BlueZ 5.66 does: the objects a strap and a
treadmill have, the connection sequence, notifications only to subscribers, link loss, a powered-off adapter and a
discovery. The client is dbus-python on its own connection (or busctl, for one that leaves), as the daemon is; signals
are watched with `busctl monitor`, and each is a broadcast (no destination), so every subscriber with a matching rule
receives what the monitor sees."""
import dbus
import pytest

from bluez import BLUEZ, GattService, HEART_RATE_MEASUREMENT, bluez, plain, uuid16  # noqa: F401 (the fixture)
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

"""A python3-dbusmock template that adds what its `bluez5` template lacks for Bluetooth LE sensors and machines:
devices with GATT services and characteristics, BlueZ's connection sequence, notifications, link loss and a call log
that says which object each call went to. bluez.py adds it to `python3 -m dbusmock --template bluez5` with
AddTemplate; its methods are on org.bluez.Mock at /, beside bluez5's AddAdapter and AddDevice.

What it does as BlueZ 5.66 does (src/device.c, src/gatt-client.c):
- Connect turns Connected true, answers, then exports the GATT objects and Battery1 (InterfacesAdded) if the device
  has none yet and turns ServicesResolved true; Disconnect and a link loss turn ServicesResolved, then Connected false.
  The GATT objects stay (BlueZ's default `Cache = always`).
- StartNotify subscribes its caller; Notifying is true while anyone is subscribed. A subscription outlasts a link loss
  (BlueZ subscribes again on the reconnection) and ends with StopNotify or when its caller leaves the bus.
- A notification is a PropertiesChanged of Value, sent only while the device is connected and someone is subscribed.
- Errors: Connect on a powered-off adapter is org.bluez.Error.NotReady; out of range it is org.bluez.Error.Failed
  (le-connection-abort-by-local), at once where BlueZ gives up after its connection timeout.
- ReadValue answers, then Value holds what was read (BlueZ stores it and signals the change before it replies).
  WriteValue does not change Value: BlueZ stores no written value (gatt-client.c, write_result_cb).

Fitness machines (AddFitnessMachine) answer as the Bluetooth SIG's Fitness Machine Service 1.0 specification says: its
features, supported ranges, control point, machine status, treadmill and indoor bike data; see FitnessMachine.
"""
import math
import time

import dbus
from dbusmock import MOCK_IFACE, OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5
from gi.repository import GLib

ADAPTER = "org.bluez.Adapter1"
DEVICE = "org.bluez.Device1"
BATTERY = "org.bluez.Battery1"
SERVICE = "org.bluez.GattService1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
#: BlueZ numbers a device's attribute objects by their ATT handles; a strap's GAP and GATT services take 1 to 0x0b.
FIRST_SERVICE_HANDLE = 0x000C

#: Each call the stand-in's BlueZ API received, in order: (object path, method, arguments).
calls = []
#: (device path, characteristic UUID): how many of its notifications and indications reached BlueZ's subscribers.
delivered = {}


def error(name, message):
    return dbus.exceptions.DBusException(message, name=f"org.bluez.Error.{name}")


def logged(obj, interface, method):
    """Puts `method` (a dbus.service.method) on `obj`'s `interface`, logged as the methods dbusmock makes are: the way
    dbusmock adds a template's methods, which, unlike AddMethod's code, can have the caller's bus name."""
    wrapped = mockobject.loggedmethod(obj, method)
    obj.methods.setdefault(interface, {})[method.__name__] = (
        method._dbus_in_signature, method._dbus_out_signature, "", wrapped)


def emit_interfaces_added(path, interfaces):
    mockobject.objects["/"].EmitSignal(OBJECT_MANAGER_IFACE, "InterfacesAdded", "oa{sa{sv}}",
                                       [dbus.ObjectPath(path), interfaces])


def load(mock, _parameters):
    """Records every call the template's objects log (their MethodCalled signals, which come back to this process as to
    any subscriber, in the order sent), leaving out the stand-in's own control methods at /."""
    bus = mock.connection

    def record(name, args, path, sender):
        controls = mockobject.objects["/"].methods.get(bluez5.BLUEZ_MOCK_IFACE, {})
        if sender == bus.get_unique_name() and not (path == "/" and name in controls):
            calls.append((path, name, args))

    bus.add_signal_receiver(record, signal_name="MethodCalled", dbus_interface=MOCK_IFACE, path_keyword="path",
                            sender_keyword="sender")


def is_connected(device):
    return bool(device.props[DEVICE]["Connected"])


def adapter_powered(device):
    return bool(mockobject.objects[device.props[DEVICE]["Adapter"]].props[ADAPTER]["Powered"])


def export(device, path, interface, properties):
    """Puts a GATT object on the bus, with its methods, and announces it."""
    mockobject.objects["/"].AddObject(path, interface, properties, [])
    if interface == CHARACTERISTIC:
        characteristic = mockobject.objects[path]
        characteristic.device = device
        characteristic.subscribers = {}  # bus name: the watch that ends its subscription when it leaves
        for method in (GattCharacteristic1.StartNotify, GattCharacteristic1.StopNotify, GattCharacteristic1.ReadValue,
                       GattCharacteristic1.WriteValue):
            logged(characteristic, CHARACTERISTIC, method)
    emit_interfaces_added(path, mockobject.objects[path].props)


def resolve_services(device):
    """What BlueZ does once connected: the GATT discovery (or its cache), then ServicesResolved."""
    if not device.exported:
        device.exported = True
        for attribute in device.attributes:
            export(device, *attribute)
        if device.battery is not None:
            device.AddProperties(BATTERY, {"Percentage": dbus.Byte(device.battery)})
            emit_interfaces_added(device.path, {BATTERY: device.props[BATTERY]})
    if is_connected(device):
        device.UpdateProperties(DEVICE, {"ServicesResolved": dbus.Boolean(True)})
    return False  # as an idle callback: once


def lose_link(device):
    if is_connected(device):
        device.UpdateProperties(DEVICE, {"ServicesResolved": dbus.Boolean(False)})
        device.UpdateProperties(DEVICE, {"Connected": dbus.Boolean(False)})
        if device.machine is not None:
            device.machine.link_lost()


class Device1:
    """A device object's methods (in a class, so that AddTemplate does not put them on / as well)."""

    @dbus.service.method(DEVICE, in_signature="", out_signature="")
    def Connect(device):
        if not adapter_powered(device):
            raise error("NotReady", "Resource Not Ready")
        if not device.in_range:
            raise error("Failed", "le-connection-abort-by-local")
        if is_connected(device):
            raise error("AlreadyConnected", "Already Connected")
        device.UpdateProperties(DEVICE, {"Connected": dbus.Boolean(True)})
        # After the reply, as BlueZ resolves the services after answering: a client must wait for ServicesResolved.
        GLib.idle_add(resolve_services, device)

    @dbus.service.method(DEVICE, in_signature="", out_signature="")
    def Disconnect(device):
        if not is_connected(device):
            raise error("NotConnected", "Not Connected")
        lose_link(device)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="osssasnyb", out_signature="o")
def AddLEDevice(mock, adapter_path, address, address_type, name, uuids, rssi, battery, known):
    """An LE device that advertises `uuids`, seen by the adapter, announced with InterfacesAdded as a discovery finds
    one. `battery` is its Battery1's Percentage (255: none). `known`: BlueZ has its GATT objects from an earlier
    connection (they are there now); otherwise they come at the first Connect."""
    if adapter_path not in mockobject.objects:
        raise dbus.exceptions.DBusException(f"Adapter {adapter_path} does not exist.",
                                            name=f"{bluez5.BLUEZ_MOCK_IFACE}.NoSuchAdapter")
    path = f"{adapter_path}/dev_{address.replace(':', '_').upper()}"
    properties = {
        "Address": dbus.String(address), "AddressType": dbus.String(address_type), "Name": dbus.String(name),
        "Alias": dbus.String(name), "UUIDs": dbus.Array(uuids, signature="s"), "Paired": dbus.Boolean(False),
        "Trusted": dbus.Boolean(False), "Blocked": dbus.Boolean(False), "LegacyPairing": dbus.Boolean(False),
        "Connected": dbus.Boolean(False), "ServicesResolved": dbus.Boolean(False), "RSSI": dbus.Int16(rssi),
        "Adapter": dbus.ObjectPath(adapter_path),
    }
    mock.AddObject(path, DEVICE, properties, [("Pair", "", "", ""), ("CancelPairing", "", "", ""),
                                              ("ConnectProfile", "s", "", ""), ("DisconnectProfile", "s", "", "")])
    device = mockobject.objects[path]
    for method in (Device1.Connect, Device1.Disconnect):
        logged(device, DEVICE, method)
    device.in_range = True
    device.exported = known
    device.attributes = []  # (path, interface, properties) of its GATT objects, in handle order
    device.characteristics = {}  # UUID: path
    device.next_handle = FIRST_SERVICE_HANDLE
    device.read_values = {}  # UUID: what a ReadValue of its characteristic gets from the device
    device.machine = None  # a FitnessMachine, once AddFitnessMachine made it one
    device.battery = None if battery == 255 else battery
    if known and device.battery is not None:
        device.AddProperties(BATTERY, {"Percentage": dbus.Byte(device.battery)})
    emit_interfaces_added(path, device.props)
    return path


def characteristic_flags(characteristic):
    return set(characteristic.props[CHARACTERISTIC]["Flags"])


def require_connected(characteristic):
    if not is_connected(characteristic.device):
        raise error("Failed", "Not connected")


def unsubscribe(characteristic, sender):
    characteristic.subscribers.pop(sender).cancel()
    if not characteristic.subscribers:
        characteristic.UpdateProperties(CHARACTERISTIC, {"Notifying": dbus.Boolean(False)})


class GattCharacteristic1:
    """A characteristic object's methods."""

    @dbus.service.method(CHARACTERISTIC, in_signature="", out_signature="", sender_keyword="sender")
    def StartNotify(characteristic, sender=None):
        if not characteristic_flags(characteristic) & {"notify", "indicate"}:
            raise error("NotSupported", "Operation is not supported")
        require_connected(characteristic)
        if sender in characteristic.subscribers:
            return

        def left(owner):
            if not owner and sender in characteristic.subscribers:
                unsubscribe(characteristic, sender)

        characteristic.subscribers[sender] = characteristic.connection.watch_name_owner(sender, left)
        if len(characteristic.subscribers) == 1:
            characteristic.UpdateProperties(CHARACTERISTIC, {"Notifying": dbus.Boolean(True)})

    @dbus.service.method(CHARACTERISTIC, in_signature="", out_signature="", sender_keyword="sender")
    def StopNotify(characteristic, sender=None):
        if sender not in characteristic.subscribers:
            raise error("Failed", "No notify session started")
        unsubscribe(characteristic, sender)

    @dbus.service.method(CHARACTERISTIC, in_signature="a{sv}", out_signature="ay")
    def ReadValue(characteristic, _options):
        if "read" not in characteristic_flags(characteristic):
            raise error("NotPermitted", "Read not permitted")
        require_connected(characteristic)
        uuid = str(characteristic.props[CHARACTERISTIC]["UUID"])
        if uuid in characteristic.device.read_values:
            characteristic.UpdateProperties(CHARACTERISTIC, {
                "Value": dbus.Array(characteristic.device.read_values[uuid], signature="y")})
        return characteristic.props[CHARACTERISTIC]["Value"]

    @dbus.service.method(CHARACTERISTIC, in_signature="aya{sv}", out_signature="")
    def WriteValue(characteristic, value, _options):
        if not characteristic_flags(characteristic) & {"write", "write-without-response"}:
            raise error("NotPermitted", "Write not permitted")
        require_connected(characteristic)
        machine = characteristic.device.machine
        if machine is not None and characteristic.path == machine.control_point:
            machine.write_control_point(characteristic, bytes(value))


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="osa(sas)", out_signature="ao")
def AddGattService(_mock, device_path, uuid, characteristics):
    """A primary service of `uuid` on the device, with `characteristics` (UUID, BlueZ's Flags) in handle order, at
    paths named by their handles as BlueZ's are: each characteristic takes a declaration and a value handle, and a
    client configuration descriptor's if it can notify or indicate. On the bus now if the device's GATT objects are,
    else at its first connection. Returns the service's path, then theirs."""
    device = mockobject.objects[device_path]
    service_path = f"{device_path}/service{device.next_handle:04x}"
    attributes = [(service_path, SERVICE, {"UUID": dbus.String(uuid), "Primary": dbus.Boolean(True),
                                           "Device": dbus.ObjectPath(device_path),
                                           "Includes": dbus.Array([], signature="o")})]
    handle = device.next_handle + 1
    for characteristic_uuid, flags in characteristics:
        path = f"{service_path}/char{handle:04x}"
        attributes.append((path, CHARACTERISTIC, {
            "UUID": dbus.String(characteristic_uuid), "Service": dbus.ObjectPath(service_path),
            "Flags": dbus.Array(flags, signature="s"), "Notifying": dbus.Boolean(False),
            "Value": dbus.Array([], signature="y"),
        }))
        device.characteristics.setdefault(characteristic_uuid, path)
        handle += 3 if {"notify", "indicate"} & set(flags) else 2
    device.next_handle = handle
    device.attributes += attributes
    if device.exported:
        for attribute in attributes:
            export(device, *attribute)
    return dbus.Array([path for path, _, _ in attributes], signature="o")


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="osay", out_signature="b")
def Notify(_mock, device_path, uuid, value):
    """The device notifies (or indicates) `value` on its characteristic of `uuid`: whether it reached BlueZ's
    subscribers (only while connected and someone is subscribed, as a device sends none otherwise)."""
    device = mockobject.objects[device_path]
    if uuid not in device.characteristics:
        raise dbus.exceptions.DBusException(f"{device_path} has no characteristic {uuid}",
                                            name=f"{bluez5.BLUEZ_MOCK_IFACE}.NoSuchCharacteristic")
    return send(device, uuid, value)


def send(device, uuid, value):
    """A notification or indication from the device: a change of its characteristic's Value, only while connected and
    someone is subscribed. Whether it went out."""
    if not is_connected(device):
        return False
    characteristic = mockobject.objects[device.characteristics[uuid]]
    if not characteristic.subscribers:
        return False
    characteristic.UpdateProperties(CHARACTERISTIC, {"Value": dbus.Array(value, signature="y")})
    delivered[device.path, uuid] = delivered.get((device.path, uuid), 0) + 1
    return True


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="osayu", out_signature="")
def NotifyEvery(mock, device_path, uuid, value, interval_ms):
    """The device notifies `value` on its characteristic of `uuid` every `interval_ms`, from now on, as a strap sends
    its measurement whether or not anyone listens (only what reaches a subscriber goes on the bus)."""
    Notify(mock, device_path, uuid, value)
    GLib.timeout_add(interval_ms, lambda: send(mockobject.objects[device_path], uuid, value) or True)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="os", out_signature="u")
def Delivered(_mock, device_path, uuid):
    """How many of the device's notifications (or indications) of its characteristic of `uuid` reached a subscriber."""
    return dbus.UInt32(delivered.get((device_path, uuid), 0))


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="o", out_signature="")
def GoOutOfRange(_mock, device_path):
    """The device's link is lost (supervision timeout), and it cannot be connected until it comes back."""
    device = mockobject.objects[device_path]
    device.in_range = False
    lose_link(device)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="ob", out_signature="")
def ComeBack(_mock, device_path, reconnect):
    """The device is in range again: a Connect reaches it; with `reconnect`, BlueZ connects it itself, as it does a
    device on its auto-connect list."""
    device = mockobject.objects[device_path]
    device.in_range = True
    if reconnect and not is_connected(device) and adapter_powered(device):
        device.UpdateProperties(DEVICE, {"Connected": dbus.Boolean(True)})
        resolve_services(device)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="ob", out_signature="")
def SetPowered(_mock, adapter_path, powered):
    """Turns the adapter on or off; off, as BlueZ does, it stops discovering and loses every connection."""
    adapter = mockobject.objects[adapter_path]
    if not powered:
        for path, obj in list(mockobject.objects.items()):
            if path.startswith(f"{adapter_path}/") and DEVICE in obj.props:
                lose_link(obj)
        if adapter.props[ADAPTER]["Discovering"]:
            adapter.UpdateProperties(ADAPTER, {"Discovering": dbus.Boolean(False)})
    adapter.UpdateProperties(ADAPTER, {"Powered": dbus.Boolean(powered)})


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="", out_signature="a(ssav)")
def Calls(_mock):
    """Every call the BlueZ API received so far, in order: (object path, method, arguments)."""
    return dbus.Array(calls, signature="(ssav)")


def uuid16(short):
    return f"{short:08x}-0000-1000-8000-00805f9b34fb"


FEATURE, TREADMILL_DATA, INDOOR_BIKE_DATA = uuid16(0x2ACC), uuid16(0x2ACD), uuid16(0x2AD2)
SPEED_RANGE, INCLINATION_RANGE, POWER_RANGE = uuid16(0x2AD4), uuid16(0x2AD5), uuid16(0x2AD8)
CONTROL_POINT, MACHINE_STATUS = uuid16(0x2AD9), uuid16(0x2ADA)
# Control point op codes, and the response code that answers each.
REQUEST_CONTROL, RESET, TARGET_SPEED, TARGET_INCLINATION, TARGET_POWER = 0x00, 0x01, 0x02, 0x03, 0x05
START_OR_RESUME, STOP_OR_PAUSE, RESPONSE = 0x07, 0x08, 0x80
STOP, PAUSE = 0x01, 0x02
SUCCESS, NOT_SUPPORTED, INVALID_PARAMETER, FAILED, CONTROL_NOT_PERMITTED = 0x01, 0x02, 0x03, 0x04, 0x05
# Machine status op codes.
STATUS_RESET, STATUS_STOPPED_OR_PAUSED, STATUS_STARTED, STATUS_TARGET_SPEED = 0x01, 0x02, 0x04, 0x05
STATUS_TARGET_INCLINATION, STATUS_TARGET_POWER, STATUS_CONTROL_LOST = 0x06, 0x08, 0xFF
#: A write to the control point while its indications are off is refused with this ATT error ("Client
#: Characteristic Configuration Descriptor Improperly Configured", Core Supplement part B 1.2); BlueZ 5.66 answers
#: WriteValue with it as org.bluez.Error.Failed, "Operation failed with ATT error: 0x%02x" (src/gatt-client.c,
#: create_gatt_dbus_error: every ATT error it has no own D-Bus error for).
CCCD_IMPROPERLY_CONFIGURED = 0xFD
#: An empty write has no op code to answer: ATT's Invalid Attribute Value Length, which BlueZ 5.66 answers as
#: org.bluez.Error.InvalidArguments, "Invalid Length" (the same function).
INVALID_ATTRIBUTE_VALUE_LENGTH = 0x0D


def uint16(value):
    return list(int(value).to_bytes(2, "little"))


def sint16(value):
    return list(int(value).to_bytes(2, "little", signed=True))


def uint24(value):
    return list(int(value).to_bytes(3, "little"))


def now_us():
    """CLOCK_MONOTONIC (the daemon's cue instants) and CLOCK_REALTIME (busctl monitor's timestamp-realtime), µs."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000, time.clock_gettime_ns(time.CLOCK_REALTIME) // 1000


class FitnessMachine:
    """A treadmill or an indoor bike behind a Fitness Machine service.

    Control point: a write while nobody has StartNotify on it fails (ATT 0xFD). Every other write is acknowledged
    (WriteValue answers), then answered by an indication [0x80, op code, result]: an op code the machine does not have
    is 0x02; any but request control (0x00) before control is granted is 0x05; a wrong length or a parameter outside the
    supported range is 0x03. Control is lost with the link, a reset (0x01) or the machine taking it back (status 0xFF).
    The machine status notifies what changed: reset 0x01, stopped 0x02 0x01 / paused 0x02 0x02, started 0x04, target
    speed 0x05, target inclination 0x06, target power 0x08, control lost 0xFF.

    Once a second the machine moves on and notifies its data while anyone listens: a treadmill's belt moves toward the
    target speed by 1 km/h, its distance integrates the speed; a bike's power is its target (100 W before one), its
    cadence 90 rpm and its speed follows the power. Stopped or paused, speeds, cadence and power are 0.
    """

    TICK_MS = 1000
    #: The belt's speed change in a second, 0.01 km/h.
    BELT_STEP = 100
    #: A bike's power before any target, W.
    FREE_POWER = 100

    def __init__(self, device, kind):
        self.device = device
        self.kind = kind
        self.control_point = device.characteristics[CONTROL_POINT]
        self.controlled = False
        self.state = "stopped"  # "started", "paused" or "stopped"
        self.answers = "normal"  # "refuse" (with self.refusal) or "silent"
        self.refusal = FAILED
        #: Each write to the control point: (value, monotonic µs, realtime µs, indication sent or b"", D-Bus error).
        self.writes = []
        self.distance_m = 0.0
        if kind == "treadmill":
            # 1.00 to 20.00 km/h by 0.10; 0 to 15.0 % by 0.5 %.
            self.speed_range = (100, 2000, 10)
            self.inclination_range = (0, 150, 5)
            self.speed = 0  # 0.01 km/h
            self.target_speed = self.speed_range[0]
            self.inclination = 0  # 0.1 %
            # Features: total distance (bit 2), inclination (bit 3); targets: speed (bit 0), inclination (bit 1).
            device.read_values[FEATURE] = [0x0C, 0, 0, 0, 0x03, 0, 0, 0]
            device.read_values[SPEED_RANGE] = sum((uint16(v) for v in self.speed_range), [])
            device.read_values[INCLINATION_RANGE] = sint16(0) + sint16(150) + uint16(5)
            self.supported = {REQUEST_CONTROL, RESET, TARGET_SPEED, TARGET_INCLINATION, START_OR_RESUME, STOP_OR_PAUSE}
        else:
            self.power_range = (0, 1500, 1)  # W
            self.target_power = None
            # Features: cadence (bit 1), total distance (bit 2), power (bit 14); targets: power (bit 3).
            device.read_values[FEATURE] = [0x06, 0x40, 0, 0, 0x08, 0, 0, 0]
            device.read_values[POWER_RANGE] = sint16(0) + sint16(1500) + uint16(1)
            self.supported = {REQUEST_CONTROL, RESET, TARGET_POWER, START_OR_RESUME, STOP_OR_PAUSE}
        GLib.timeout_add(self.TICK_MS, self.tick)

    # -- the control point

    def write_control_point(self, characteristic, value):
        monotonic_us, realtime_us = now_us()
        entry = [value, monotonic_us, realtime_us, b"", ""]
        self.writes.append(entry)
        if not characteristic.subscribers:
            entry[4] = "org.bluez.Error.Failed"
            raise error("Failed", f"Operation failed with ATT error: 0x{CCCD_IMPROPERLY_CONFIGURED:02x}")
        if not value:
            entry[4] = "org.bluez.Error.InvalidArguments"
            raise error("InvalidArguments", "Invalid Length")
        if self.answers == "silent":
            return
        if self.answers == "refuse":
            result, statuses = self.refusal, []
        else:
            result, statuses = self.operate(value[0], value[1:])
        entry[3] = bytes([RESPONSE, value[0], result])
        # The ATT write response goes first, the indication after it: WriteValue has answered before it comes.
        GLib.idle_add(self.answer, entry[3], statuses)

    def answer(self, indication, statuses):
        send(self.device, CONTROL_POINT, indication)
        for status in statuses:
            send(self.device, MACHINE_STATUS, status)
        return False

    def operate(self, op, parameter):
        """The result of op code `op` with `parameter`, and the machine status notifications it brings."""
        if op not in self.supported:
            return NOT_SUPPORTED, []
        if op == REQUEST_CONTROL:
            if parameter:
                return INVALID_PARAMETER, []
            self.controlled = True
            return SUCCESS, []
        if not self.controlled:
            return CONTROL_NOT_PERMITTED, []
        handler = {RESET: self.reset, TARGET_SPEED: self.set_target_speed, TARGET_INCLINATION: self.set_inclination,
                   TARGET_POWER: self.set_target_power, START_OR_RESUME: self.start,
                   STOP_OR_PAUSE: self.stop_or_pause}[op]
        return handler(parameter)

    def reset(self, parameter):
        if parameter:
            return INVALID_PARAMETER, []
        self.controlled = False
        self.state = "stopped"
        self.distance_m = 0.0
        if self.kind == "treadmill":
            self.speed, self.target_speed, self.inclination = 0, self.speed_range[0], 0
        else:
            self.target_power = None
        return SUCCESS, [[STATUS_RESET]]

    def set_target_speed(self, parameter):
        if len(parameter) != 2:
            return INVALID_PARAMETER, []
        speed = int.from_bytes(parameter, "little")
        if not self.speed_range[0] <= speed <= self.speed_range[1]:
            return INVALID_PARAMETER, []
        changed = speed != self.target_speed
        self.target_speed = speed
        return SUCCESS, [[STATUS_TARGET_SPEED, *uint16(speed)]] if changed else []

    def set_inclination(self, parameter):
        if len(parameter) != 2:
            return INVALID_PARAMETER, []
        inclination = int.from_bytes(parameter, "little", signed=True)
        if not self.inclination_range[0] <= inclination <= self.inclination_range[1]:
            return INVALID_PARAMETER, []
        changed = inclination != self.inclination
        self.inclination = inclination
        return SUCCESS, [[STATUS_TARGET_INCLINATION, *sint16(inclination)]] if changed else []

    def set_target_power(self, parameter):
        if len(parameter) != 2:
            return INVALID_PARAMETER, []
        power = int.from_bytes(parameter, "little", signed=True)
        if not self.power_range[0] <= power <= self.power_range[1]:
            return INVALID_PARAMETER, []
        changed = power != self.target_power
        self.target_power = power
        return SUCCESS, [[STATUS_TARGET_POWER, *sint16(power)]] if changed else []

    def start(self, parameter):
        if parameter:
            return INVALID_PARAMETER, []
        if self.state == "started":
            return SUCCESS, []
        self.state = "started"
        return SUCCESS, [[STATUS_STARTED]]

    def stop_or_pause(self, parameter):
        if len(parameter) != 1 or parameter[0] not in (STOP, PAUSE):
            return INVALID_PARAMETER, []
        state = "stopped" if parameter[0] == STOP else "paused"
        # Pausing a machine that is not running changes nothing; stopping a paused one does.
        if self.state == state or (state == "paused" and self.state == "stopped"):
            return SUCCESS, []
        self.state = state
        if self.kind == "treadmill":
            self.speed = 0
        return SUCCESS, [[STATUS_STOPPED_OR_PAUSED, parameter[0]]]

    # -- what the machine does by itself

    def take_back_control(self):
        self.controlled = False
        send(self.device, MACHINE_STATUS, [STATUS_CONTROL_LOST])

    def link_lost(self):
        """Control is the connection's: a client connecting again asks for it again."""
        self.controlled = False

    def tick(self):
        running = self.state == "started"
        if self.kind == "treadmill":
            before = self.speed
            if running:
                step = max(-self.BELT_STEP, min(self.BELT_STEP, self.target_speed - self.speed))
                self.speed += step
            # Metres in the second: the mean of the speeds at its ends (0.01 km/h) over 360.
            self.distance_m += (before + self.speed) / 2 / 360
            # Flags: instantaneous speed (bit 0 clear), total distance (bit 2), inclination and ramp angle (bit 3).
            ramp_angle = round(math.degrees(math.atan(self.inclination / 1000)) * 10)
            data = (uint16(0x000C) + uint16(self.speed) + uint24(self.distance_m) + sint16(self.inclination)
                    + sint16(ramp_angle))
            send(self.device, TREADMILL_DATA, data)
        else:
            power = (self.FREE_POWER if self.target_power is None else self.target_power) if running else 0
            speed = self.bike_speed(power)
            self.distance_m += speed / 360
            cadence = 180 if running else 0  # 0.5 rpm
            # Flags: instantaneous speed (bit 0 clear), cadence (bit 2), total distance (bit 4), power (bit 6).
            data = uint16(0x0054) + uint16(speed) + uint16(cadence) + uint24(self.distance_m) + sint16(power)
            send(self.device, INDOOR_BIKE_DATA, data)
        return True  # as a GLib timeout: again in a second

    @staticmethod
    def bike_speed(power):
        """A rider's speed on the flat, 0.01 km/h: the air's drag (about 0.3 P = v³ in SI units) takes the power."""
        return round((max(power, 0) / 0.3) ** (1 / 3) * 3.6 * 100)

    def state_summary(self):
        summary = {"kind": self.kind, "state": self.state, "controlled": self.controlled,
                   "distance_m": int(self.distance_m), "answers": self.answers}
        if self.kind == "treadmill":
            summary.update(speed=self.speed, target_speed=self.target_speed, inclination=self.inclination)
        else:
            summary.update(target_power=-1 if self.target_power is None else self.target_power)
        return summary


def machine_of(device_path):
    device = mockobject.objects[device_path]
    if device.machine is None:
        raise dbus.exceptions.DBusException(f"{device_path} is not a fitness machine",
                                            name=f"{bluez5.BLUEZ_MOCK_IFACE}.NotAFitnessMachine")
    return device.machine


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="os", out_signature="")
def AddFitnessMachine(_mock, device_path, kind):
    """Makes the device, which has a Fitness Machine service (AddGattService) with a control point, a "treadmill" or a
    "bike" (FitnessMachine): what it reads, how it answers its control point, its data once a second."""
    if kind not in ("treadmill", "bike"):
        raise dbus.exceptions.DBusException(f"No fitness machine is a {kind!r}",
                                            name=f"{bluez5.BLUEZ_MOCK_IFACE}.NoSuchKind")
    device = mockobject.objects[device_path]
    device.machine = FitnessMachine(device, kind)


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="o", out_signature="")
def TakeBackControl(_mock, device_path):
    """The machine takes control back (its own keys were used): machine status 0xFF; writes are answered 0x05 until
    the client requests control again."""
    machine_of(device_path).take_back_control()


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="osy", out_signature="")
def SetControlAnswers(_mock, device_path, answers, result):
    """How the control point answers from now on: "normal"; "refuse", every write with `result` (0x02 to 0x05) and
    nothing done; "silent", writes acknowledged but neither done nor answered."""
    if answers not in ("normal", "refuse", "silent"):
        raise dbus.exceptions.DBusException(f"No control point answers {answers!r}",
                                            name=f"{bluez5.BLUEZ_MOCK_IFACE}.NoSuchAnswers")
    machine = machine_of(device_path)
    machine.answers, machine.refusal = answers, result


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="o", out_signature="a(ayttays)")
def ControlPointWrites(_mock, device_path):
    """Every write to the machine's control point, in order: (value, CLOCK_MONOTONIC µs, CLOCK_REALTIME µs, the
    indication that answered it or empty, the D-Bus error WriteValue answered or empty)."""
    return dbus.Array([(dbus.Array(value, signature="y"), dbus.UInt64(monotonic), dbus.UInt64(realtime),
                        dbus.Array(indication, signature="y"), error_name)
                       for value, monotonic, realtime, indication, error_name in machine_of(device_path).writes],
                      signature="(ayttays)")


@dbus.service.method(bluez5.BLUEZ_MOCK_IFACE, in_signature="o", out_signature="a{sv}")
def MachineState(_mock, device_path):
    """What the machine is doing: kind, state, controlled, distance_m, answers, and speed, target_speed, inclination
    (treadmill, 0.01 km/h and 0.1 %) or target_power (bike, W, -1 before one)."""
    return dbus.Dictionary(machine_of(device_path).state_summary(), signature="sv")

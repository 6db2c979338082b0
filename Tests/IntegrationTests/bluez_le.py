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
"""
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
        return characteristic.props[CHARACTERISTIC]["Value"]

    @dbus.service.method(CHARACTERISTIC, in_signature="aya{sv}", out_signature="")
    def WriteValue(characteristic, _value, _options):
        if not characteristic_flags(characteristic) & {"write", "write-without-response"}:
            raise error("NotPermitted", "Write not permitted")
        require_connected(characteristic)


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
    if not is_connected(device):
        return False
    characteristic = mockobject.objects[device.characteristics[uuid]]
    if not characteristic.subscribers:
        return False
    characteristic.UpdateProperties(CHARACTERISTIC, {"Value": dbus.Array(value, signature="y")})
    return True


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

"""BlueZ's D-Bus API on a private system bus, for the tests of heart-rate straps and fitness machines.

No radio exists in these containers nor on CI (no /dev/vhci, no kernel modules), so no bluetoothd runs: the daemon and
intervalctl meet a stand-in of the API they use, `org.bluez` on a system bus of the test's own, which they are given as
DBUS_SYSTEM_BUS_ADDRESS. The stand-in is python3-dbusmock's `bluez5` template (adapters, discovery) with bluez_le.py
added (LE devices with GATT services and characteristics, BlueZ's connection sequence, notifications, link loss). It
answers as BlueZ 5.66 does (bluez_le.py says how); it cannot show that a real strap speaks as BlueZ reports. A person
with a strap checks that by hand, bluetoothd running and the strap worn:

    bluetoothctl            power on, scan on (the strap appears: "Polar H10 …"), scan off, connect <its address>
    intervalctl sensors     the strap, its battery and its heart rate

The `bluez` fixture gives a BlueZ: `address` for DBUS_SYSTEM_BUS_ADDRESS; add_adapter(), then add_heart_rate_strap(),
add_treadmill(), add_bike() or add_device(); notify() sends what the device would, go_out_of_range() and come_back()
move it, calls() says what the clients asked. A treadmill or a bike answers its control point as the Fitness Machine
Service says and notifies its data once a second (bluez_le.FitnessMachine); take_back_control(), refuse() and
stop_answering() make it misbehave, control_writes() says what was written to it and when.
"""
import os
import subprocess
from pathlib import Path
from typing import NamedTuple

import dbus
import pytest

from conftest import SLOWDOWN, attach_if_failed, end_processes, private_bus, wait_until

HERE = Path(__file__).parent
BLUEZ = "org.bluez"
MOCK = "org.bluez.Mock"


def uuid16(short):
    """The 128-bit form of a Bluetooth SIG 16-bit UUID, as BlueZ writes them."""
    return f"{short:08x}-0000-1000-8000-00805f9b34fb"


class GattService(NamedTuple):
    uuid: str
    characteristics: list  # (UUID, BlueZ's Flags: "read", "write", "notify", "indicate", …)


HEART_RATE = GattService(uuid16(0x180D), [(uuid16(0x2A37), ["notify"])])
HEART_RATE_MEASUREMENT = uuid16(0x2A37)
#: Fitness Machine (FTMS): the features (read), a treadmill's data (notify) and supported speed and inclination ranges
#: (read), or a bike's indoor bike data and supported power range; both have the control point (write, indicate) and
#: the machine status (notify). In the order of the service's definition, which is the handles' order on machines.
FEATURE, CONTROL_POINT, MACHINE_STATUS = uuid16(0x2ACC), uuid16(0x2AD9), uuid16(0x2ADA)
TREADMILL_DATA, SPEED_RANGE, INCLINATION_RANGE = uuid16(0x2ACD), uuid16(0x2AD4), uuid16(0x2AD5)
INDOOR_BIKE_DATA, POWER_RANGE = uuid16(0x2AD2), uuid16(0x2AD8)
FITNESS_MACHINE_TREADMILL = GattService(uuid16(0x1826), [
    (FEATURE, ["read"]), (TREADMILL_DATA, ["notify"]), (SPEED_RANGE, ["read"]), (INCLINATION_RANGE, ["read"]),
    (CONTROL_POINT, ["write", "indicate"]), (MACHINE_STATUS, ["notify"])])
FITNESS_MACHINE_BIKE = GattService(uuid16(0x1826), [
    (FEATURE, ["read"]), (INDOOR_BIKE_DATA, ["notify"]), (POWER_RANGE, ["read"]),
    (CONTROL_POINT, ["write", "indicate"]), (MACHINE_STATUS, ["notify"])])


class Call(NamedTuple):
    path: str
    method: str
    args: list


class ControlWrite(NamedTuple):
    """A write to a machine's control point."""
    value: bytes
    #: When the stand-in received it: CLOCK_MONOTONIC (the daemon's cue instants) and CLOCK_REALTIME (busctl
    #: monitor's timestamp-realtime), µs.
    monotonic_us: int
    realtime_us: int
    #: The indication that answered it, [0x80, op code, result], or b"" (refused by BlueZ, or not answered).
    indication: bytes
    #: The D-Bus error WriteValue answered with, or "".
    error: str


def plain(value):
    """A dbus-python value as Python's: a byte array as bytes."""
    if isinstance(value, dbus.Array) and value.signature == "y":
        return bytes(value)
    if isinstance(value, (dbus.Array, dbus.Struct)):
        return [plain(item) for item in value]
    if isinstance(value, dbus.Dictionary):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return int(value)
    return value


class BlueZ:
    """The stand-in on a private system bus: a dbus-daemon, and python3-dbusmock with the bluez5 template and
    bluez_le.py, driven through its org.bluez.Mock methods."""

    def __init__(self, tmp_path):
        self.log = tmp_path / "bluez.log"
        self.bus_process, self.address = private_bus(tmp_path / "system.sock", os.environ)
        #: Where `busctl --user`, `gdbus --session` and BusMonitor reach this system bus, as its clients.
        self.client_env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address}
        #: What python3-dbusmock prints: a failed call's traceback.
        self.output = tmp_path / "dbusmock.out"
        with open(self.output, "w") as output:
            self.process = subprocess.Popen(
                ["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "bluez5", "--logfile", str(self.log)],
                env={**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": self.address}, stdout=output, stderr=subprocess.STDOUT)
        self.bus = dbus.bus.BusConnection(self.address)
        wait_until(lambda: self.bus.name_has_owner(BLUEZ) or self.process.poll() is not None, 20 * SLOWDOWN,
                   "python3-dbusmock to own org.bluez")
        assert self.process.poll() is None, self.output.read_text()
        self.mock = dbus.Interface(self.bus.get_object(BLUEZ, "/"), MOCK)
        dbus.Interface(self.bus.get_object(BLUEZ, "/"), "org.freedesktop.DBus.Mock").AddTemplate(
            str(HERE / "bluez_le.py"), dbus.Dictionary({}, signature="sv"))
        self.adapter = None
        #: (device path, characteristic UUID): its object path.
        self.characteristics = {}
        #: Each notify(): (device path, characteristic UUID, value, whether it reached a subscriber).
        self.sent = []

    def add_adapter(self, name="hci0", powered=True):
        self.adapter = str(self.mock.AddAdapter(name, "intervald-test"))
        if not powered:
            self.set_powered(False)
        return self.adapter

    def set_powered(self, powered):
        self.mock.SetPowered(self.adapter, powered)

    def add_device(self, name, address, services, advertised=None, address_type="random", battery=None, rssi=-60,
                   known=True):
        """An LE device with GATT `services` (GattService), advertising `advertised` UUIDs (its services' by
        default), with a Battery1 if `battery` is a percentage. `known`: BlueZ has its GATT objects from an earlier
        connection; otherwise they appear at the first Connect, before ServicesResolved. Returns its object path."""
        uuids = [service.uuid for service in services] if advertised is None else advertised
        path = self.mock.AddLEDevice(self.adapter, address, address_type, name,
                                     dbus.Array(uuids, signature="s"), dbus.Int16(rssi),
                                     dbus.Byte(255 if battery is None else battery), known)
        for service in services:
            _, *paths = self.mock.AddGattService(
                path, service.uuid, dbus.Array([(uuid, dbus.Array(flags, signature="s"))
                                                for uuid, flags in service.characteristics], signature="(sas)"))
            for (uuid, _), characteristic_path in zip(service.characteristics, paths):
                self.characteristics[str(path), uuid] = str(characteristic_path)
        return str(path)

    def add_heart_rate_strap(self, name="Polar H10 1A2B3C4D", address="C0:FF:EE:12:34:56", battery=85, **options):
        return self.add_device(name, address, [HEART_RATE], battery=battery, **options)

    def add_treadmill(self, name="Horizon 7.8 AT", address="E4:5F:01:AA:BB:CC", **options):
        """A treadmill (bluez_le.FitnessMachine): 1 to 20 km/h, 0 to 15 % inclination; it notifies treadmill data once
        a second and answers its control point."""
        return self.add_fitness_machine("treadmill", name, address, FITNESS_MACHINE_TREADMILL, options)

    def add_bike(self, name="KICKR CORE 5A1B", address="F0:12:34:56:5A:1B", **options):
        """An indoor bike or smart trainer (bluez_le.FitnessMachine): a power target from 0 to 1500 W; it notifies
        indoor bike data once a second and answers its control point."""
        return self.add_fitness_machine("bike", name, address, FITNESS_MACHINE_BIKE, options)

    def add_fitness_machine(self, kind, name, address, service, options):
        path = self.add_device(name, address, [service], **{"address_type": "public", **options})
        self.mock.AddFitnessMachine(path, kind)
        return path

    def take_back_control(self, machine_path):
        """The machine takes control back (status 0xFF): writes are answered 0x05 until a new request for control."""
        self.mock.TakeBackControl(machine_path)

    def refuse(self, machine_path, result=0x04):
        """The machine answers every later write with `result` (0x02 not supported … 0x05 control not permitted)
        and does nothing, until answer_normally()."""
        self.mock.SetControlAnswers(machine_path, "refuse", dbus.Byte(result))

    def stop_answering(self, machine_path):
        """The machine acknowledges later writes (WriteValue answers) but neither acts on them nor indicates a result,
        until answer_normally()."""
        self.mock.SetControlAnswers(machine_path, "silent", dbus.Byte(0))

    def answer_normally(self, machine_path):
        self.mock.SetControlAnswers(machine_path, "normal", dbus.Byte(0))

    def control_writes(self, machine_path):
        """Every write to the machine's control point so far (ControlWrite), in order."""
        return [ControlWrite(*plain(write)) for write in self.mock.ControlPointWrites(machine_path)]

    def machine_state(self, machine_path):
        """What the machine is doing: kind, state ("started", "paused", "stopped"), controlled, distance_m, and speed,
        target_speed (0.01 km/h), inclination (0.1 %) on a treadmill, target_power (W, -1 before one) on a bike."""
        return plain(self.mock.MachineState(machine_path))

    def notify(self, device_path, characteristic_uuid, value):
        """The device sends `value` (bytes) on its characteristic: whether BlueZ passed it on (only while connected
        and someone called StartNotify)."""
        delivered = bool(self.mock.Notify(device_path, characteristic_uuid, dbus.Array(value, signature="y")))
        self.sent.append((device_path, characteristic_uuid, bytes(value), delivered))
        return delivered

    def notify_every(self, device_path, characteristic_uuid, value, interval_ms):
        """The device sends `value` on its characteristic every `interval_ms` from now on (the stand-in's own timer, as
        a strap sends each measurement by itself)."""
        self.mock.NotifyEvery(device_path, characteristic_uuid, dbus.Array(value, signature="y"),
                              dbus.UInt32(interval_ms))

    def delivered(self, device_path, characteristic_uuid):
        """How many of the device's notifications of its characteristic reached a subscriber so far (notify(),
        notify_every() and a fitness machine's own)."""
        return int(self.mock.Delivered(device_path, characteristic_uuid))

    def go_out_of_range(self, device_path):
        self.mock.GoOutOfRange(device_path)

    def come_back(self, device_path, reconnect=False):
        """In range again: Connect reaches it; `reconnect`: BlueZ connects it itself (its auto-connect list)."""
        self.mock.ComeBack(device_path, reconnect)

    def calls(self, method=None):
        """The calls the BlueZ API received (Call: path, method, args), in order, or those of `method`."""
        return [Call(str(path), str(name), plain(args)) for path, name, args in self.mock.Calls()
                if method is None or name == method]

    def properties(self, path, interface):
        return plain(self.bus.get_object(BLUEZ, path).GetAll(interface, dbus_interface=dbus.PROPERTIES_IFACE))

    def characteristic(self, device_path, uuid):
        """The object path of the device's characteristic of `uuid`."""
        return self.characteristics[device_path, uuid]

    def close(self):
        self.bus.close()
        end_processes([self.bus_process, self.process])


@pytest.fixture
def bluez(tmp_path, request):
    """The stand-in of BlueZ on a private system bus; the test adds the adapter and devices it needs."""
    standin = BlueZ(tmp_path)
    yield standin
    standin.close()
    attach_if_failed(request, "python3-dbusmock's log", standin.log)
    attach_if_failed(request, "python3-dbusmock's output", standin.output)

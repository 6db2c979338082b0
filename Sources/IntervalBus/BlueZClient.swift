import Glibc
import IntervalCore

/// BlueZ, the system's Bluetooth daemon, through its D-Bus API on the system bus (`org.bluez`, docs/sensors.md): what
/// it knows (its ObjectManager), and discovery of the devices that offer the Heart Rate or the Fitness Machine
/// service. No Bluetooth code of intervald's own runs below D-Bus. Not thread-safe: one thread owns it, as its bus.
public final class BlueZClient {
    /// Its system-bus connection, for the caller's own matches (``HeartRateStrap``).
    let bus: Bus

    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the system's), named `description` there.
    public init(description: String = "intervald-bluetooth") throws(SensorError) {
        do throws(BusError) {
            bus = try Bus.openSystem(description: description)
        } catch {
            throw .unavailable(
                tr(
                    "Bluetooth is not available: the system bus cannot be reached ({detail}).",
                    ["detail": error.errnoDescription]))
        }
    }

    /// Every object BlueZ lists (`GetManagedObjects`).
    public func objects() throws(SensorError) -> BlueZObjects {
        let reply: BusMessage
        do throws(BusError) {
            let call = try bus.newMethodCall(
                destination: Self.service, path: "/", interface: "org.freedesktop.DBus.ObjectManager",
                member: "GetManagedObjects")
            reply = try bus.call(call, timeout: .seconds(5))
        } catch {
            throw Self.failure(error)
        }
        do throws(BusError) {
            var objects: [String: [String: BlueZObjects.Properties]] = [:]
            try reply.enterContainer("a", contents: "{oa{sa{sv}}}")
            while try reply.enterContainer("e", contents: "oa{sa{sv}}") {
                let path = try reply.readString(type: "o")
                var interfaces: [String: BlueZObjects.Properties] = [:]
                try reply.enterContainer("a", contents: "{sa{sv}}")
                while try reply.enterContainer("e", contents: "sa{sv}") {
                    let interface = try reply.readString()
                    interfaces[interface] = try reply.readProperties()
                    try reply.exitContainer()
                }
                try reply.exitContainer()
                try reply.exitContainer()
                objects[path] = interfaces
            }
            try reply.exitContainer()
            return BlueZObjects(objects)
        } catch {
            throw .failed(tr("BlueZ's list of devices could not be read ({detail}).", ["detail": "\(error)"]))
        }
    }

    /// The sensors BlueZ knows, after a check that Bluetooth can be used at all.
    public func sensors() throws(SensorError) -> [SensorDevice] {
        let objects = try objects()
        if let reason = objects.unavailability { throw .unavailable(reason) }
        return objects.sensors
    }

    /// Looks for sensors for `seconds` on every powered adapter, as a Bluetooth settings panel does: a discovery
    /// filter on the Heart Rate and Fitness Machine services over LE, then `StartDiscovery`, then `StopDiscovery`.
    /// Answers the sensors known afterwards.
    public func scan(seconds: Int) throws(SensorError) -> [SensorDevice] {
        let objects = try objects()
        if let reason = objects.unavailability { throw .unavailable(reason) }
        let adapters = objects.adapters.filter(\.powered).map(\.path)
        do throws(BusError) {
            for adapter in adapters {
                let filter = try bus.newMethodCall(
                    destination: Self.service, path: adapter, interface: Self.adapterInterface,
                    member: "SetDiscoveryFilter")
                try filter.openContainer("a", contents: "{sv}")
                try filter.appendEntry("UUIDs", "as") { message throws(BusError) in
                    try message.append([BluetoothUUID.heartRateService, BluetoothUUID.fitnessMachineService])
                }
                try filter.appendEntry("Transport", "s") { message throws(BusError) in try message.append("le") }
                try filter.closeContainer()
                _ = try bus.call(filter, timeout: .seconds(5))
                _ = try call(adapter, Self.adapterInterface, "StartDiscovery", timeout: .seconds(5))
            }
            // BlueZ adds what it finds to its objects; what is listed afterwards is read in one piece.
            let end = monotonicMicroseconds() + UInt64(max(0, seconds)) * 1_000_000
            while monotonicMicroseconds() < end {
                while try bus.process() {}
                let now = monotonicMicroseconds()
                if now < end { try bus.wait(timeout: .microseconds(Int64(end - now))) }
            }
            for adapter in adapters {
                _ = try? call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5))
            }
        } catch {
            throw Self.failure(error)
        }
        return try sensors()
    }

    /// Calls BlueZ's method `member` of `interface` on the object at `path`, without arguments, and waits for its
    /// answer.
    @discardableResult
    func call(_ path: String, _ interface: String, _ member: String, timeout: Duration) throws(BusError) -> BusMessage {
        try bus.call(
            try bus.newMethodCall(destination: Self.service, path: path, interface: interface, member: member),
            timeout: timeout)
    }

    /// Writes `bytes` to the characteristic at `path` (`WriteValue`, a write with a response) and waits for BlueZ's
    /// answer: the device's acknowledgement, or its refusal as an error.
    func writeValue(_ bytes: [UInt8], to path: String, timeout: Duration) throws(BusError) {
        let call = try bus.newMethodCall(
            destination: Self.service, path: path, interface: BlueZObjects.characteristicInterface, member: "WriteValue"
        )
        try call.append(bytes: bytes)
        try call.openContainer("a", contents: "{sv}")
        try call.closeContainer()
        _ = try bus.call(call, timeout: timeout)
    }

    /// Reads the characteristic at `path` (`ReadValue`): its value as the device gives it now.
    func readValue(of path: String, timeout: Duration) throws(BusError) -> [UInt8] {
        let call = try bus.newMethodCall(
            destination: Self.service, path: path, interface: BlueZObjects.characteristicInterface, member: "ReadValue")
        try call.openContainer("a", contents: "{sv}")
        try call.closeContainer()
        return try bus.call(call, timeout: timeout).readByteArray()
    }

    /// A failed call, in a sentence: no BlueZ on the system bus is Bluetooth not being available.
    static func failure(_ error: BusError) -> SensorError {
        if error.name == BusErrorName.serviceUnknown || error.name == BusErrorName.nameHasNoOwner {
            return .unavailable(tr("Bluetooth is not available: BlueZ (org.bluez) does not run on the system bus."))
        }
        return .failed(
            tr("BlueZ did not answer as expected ({detail}).", ["detail": error.message ?? error.description]))
    }
}

/// What went wrong with Bluetooth, in a sentence for the person.
public enum SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No BlueZ, no adapter, or the adapter off: the timer works as it does without sensors.
    case unavailable(String)
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable(let sentence), .failed(let sentence): sentence
        }
    }
}

/// Bluetooth LE sensors and machines as BlueZ's D-Bus API lists them (docs/sensors.md): what `intervalctl sensors`
/// shows and chooses from. Pure: the adapter in IntervalBus reads BlueZ's objects into ``BlueZObjects``.

/// What a device is to intervald, by the Bluetooth services it offers.
public enum SensorKind: String, Sendable, Equatable, CaseIterable, Codable {
    /// Heart Rate service 0x180D.
    case heartRate = "heart-rate"
    /// Fitness Machine service 0x1826 with treadmill data 0x2ACD.
    case treadmill
    /// Fitness Machine service 0x1826 with indoor bike data 0x2AD2.
    case bike

    /// In words, as the list says it: "heart-rate strap".
    public var words: String {
        switch self {
        case .heartRate: tr("heart-rate strap")
        case .treadmill: tr("treadmill")
        case .bike: tr("bike")
        }
    }
}

/// Bluetooth's 16-bit assigned numbers in the 128-bit form BlueZ's `UUID` properties use.
public enum BluetoothUUID {
    public static let heartRateService = full(0x180D)
    public static let heartRateMeasurement = full(0x2A37)
    public static let fitnessMachineService = full(0x1826)
    public static let treadmillData = full(0x2ACD)
    public static let indoorBikeData = full(0x2AD2)
    public static let supportedSpeedRange = full(0x2AD4)
    public static let supportedPowerRange = full(0x2AD8)
    public static let fitnessMachineControlPoint = full(0x2AD9)
    public static let fitnessMachineStatus = full(0x2ADA)

    /// `0x180D` → `0000180d-0000-1000-8000-00805f9b34fb`.
    public static func full(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }
}

/// A D-Bus property value as BlueZ's objects hold the ones intervald reads; any other type is `other`.
public enum BlueZValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case number(Int64)
    case bytes([UInt8])
    case strings([String])
    case other

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var number: Int64? { if case .number(let value) = self { value } else { nil } }
    public var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    public var strings: [String]? { if case .strings(let value) = self { value } else { nil } }
}

/// A device that offers a service intervald reads or drives.
public struct SensorDevice: Sendable, Equatable {
    /// Its object path (`/org/bluez/hci0/dev_C0_FF_EE_12_34_56`).
    public var path: String
    public var name: String
    /// `C0:FF:EE:12:34:56`: what the settings keep.
    public var address: String
    public var kind: SensorKind
    public var connected: Bool
    /// Percent, where the device reports it (`Battery1`).
    public var battery: Int?

    /// Whether `nameOrAddress` names it: its address in any case, or its name exactly.
    public func isNamed(_ nameOrAddress: String) -> Bool {
        address.sameIgnoringCase(nameOrAddress) || name == nameOrAddress
    }
}

/// Everything BlueZ's ObjectManager lists (`GetManagedObjects`): object path → interface → property → value.
public struct BlueZObjects: Sendable, Equatable {
    public typealias Properties = [String: BlueZValue]
    public var objects: [String: [String: Properties]]

    public init(_ objects: [String: [String: Properties]]) {
        self.objects = objects
    }

    static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    static let batteryInterface = "org.bluez.Battery1"
    public static let characteristicInterface = "org.bluez.GattCharacteristic1"

    /// The adapters, by path, and whether each is powered.
    public var adapters: [(path: String, powered: Bool)] {
        objects.keys.sorted().compactMap { path in
            objects[path]?[Self.adapterInterface].map { (path, $0["Powered"]?.bool ?? false) }
        }
    }

    /// Whether intervald can use Bluetooth, and if not, why, in a sentence.
    public var unavailability: String? {
        let adapters = self.adapters
        if adapters.isEmpty { return tr("Bluetooth is not available: this computer has no Bluetooth adapter.") }
        if !adapters.contains(where: \.powered) { return tr("Bluetooth is off: turn it on to use a sensor.") }
        return nil
    }

    /// The devices that offer the Heart Rate or the Fitness Machine service, by name then address.
    public var sensors: [SensorDevice] {
        objects.compactMap { path, interfaces -> SensorDevice? in
            guard let device = interfaces[Self.deviceInterface], let kind = kind(of: path, device) else { return nil }
            let address = device["Address"]?.string ?? ""
            return SensorDevice(
                path: path, name: device["Alias"]?.string ?? device["Name"]?.string ?? address, address: address,
                kind: kind, connected: device["Connected"]?.bool ?? false,
                battery: (interfaces[Self.batteryInterface]?["Percentage"]?.number).map { Int(clamping: $0) })
        }.sorted { ($0.name, $0.address) < ($1.name, $1.address) }
    }

    /// The characteristic `uuid` of the device at `device`, once its services are resolved.
    public func characteristic(_ uuid: String, of device: String) -> String? {
        objects.keys.sorted().first { path in
            path.hasPrefix(device + "/")
                && objects[path]?[Self.characteristicInterface]?["UUID"]?.string?.lowercased() == uuid
        }
    }

    /// A strap by its Heart Rate service; a machine by the data it notifies (treadmill or bike), or, before its
    /// services are resolved, a treadmill unless its name says bike (FTMS's advertisement says which, not its UUID).
    private func kind(of path: String, _ device: Properties) -> SensorKind? {
        let services = Set((device["UUIDs"]?.strings ?? []).map { $0.lowercased() })
        if services.contains(BluetoothUUID.heartRateService) { return .heartRate }
        guard services.contains(BluetoothUUID.fitnessMachineService) else { return nil }
        if characteristic(BluetoothUUID.indoorBikeData, of: path) != nil { return .bike }
        if characteristic(BluetoothUUID.treadmillData, of: path) != nil { return .treadmill }
        let name = (device["Name"]?.string ?? "").lowercased()
        return ["bike", "kickr", "trainer", "cycle"].contains(where: name.contains) ? .bike : .treadmill
    }
}

extension String {
    /// Equal ignoring ASCII case (a Bluetooth address written in lower case is the same address).
    func sameIgnoringCase(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}

import Testing

@testable import IntervalCore

/// BlueZ's objects read as the sensors `intervalctl sensors` lists (docs/sensors.md).
@Suite struct SensorsTests {
    static let adapter = "/org/bluez/hci0"

    static func device(_ name: String, _ address: String, services: [UInt16], connected: Bool = false)
        -> [String: BlueZObjects.Properties]
    {
        [
            "org.bluez.Device1": [
                "Name": .string(name), "Alias": .string(name), "Address": .string(address),
                "UUIDs": .strings(services.map(BluetoothUUID.full)), "Connected": .bool(connected),
            ]
        ]
    }

    static func objects(powered: Bool = true) -> BlueZObjects {
        var objects: [String: [String: BlueZObjects.Properties]] = [
            adapter: ["org.bluez.Adapter1": ["Powered": .bool(powered), "Address": .string("00:11:22:33:44:55")]],
            "\(adapter)/dev_C0_FF_EE_12_34_56": device(
                "Polar H10 1A2B3C4D", "C0:FF:EE:12:34:56", services: [0x180D, 0x180F]),
            "\(adapter)/dev_F1_E2_D3_C4_B5_A6": device("KICKR CORE 5A1B", "F1:E2:D3:C4:B5:A6", services: [0x1826]),
            "\(adapter)/dev_AA_BB_CC_DD_EE_FF": device("Treadmill T1", "AA:BB:CC:DD:EE:FF", services: [0x1826]),
            // A keyboard offers neither service: not a sensor.
            "\(adapter)/dev_11_22_33_44_55_66": device("Keyboard", "11:22:33:44:55:66", services: [0x1812]),
        ]
        objects["\(adapter)/dev_C0_FF_EE_12_34_56"]?["org.bluez.Battery1"] = ["Percentage": .number(85)]
        objects["\(adapter)/dev_AA_BB_CC_DD_EE_FF"]?["org.bluez.Device1"]?["Connected"] = .bool(true)
        // Its services resolved, the treadmill says what it is by the data it notifies.
        objects["\(adapter)/dev_AA_BB_CC_DD_EE_FF/service0010/char0011"] = [
            "org.bluez.GattCharacteristic1": ["UUID": .string(BluetoothUUID.treadmillData)]
        ]
        return BlueZObjects(objects)
    }

    @Test func strapsTreadmillsAndBikesAreListedByKindWithTheirState() {
        let sensors = Self.objects().sensors
        #expect(sensors.map(\.name) == ["KICKR CORE 5A1B", "Polar H10 1A2B3C4D", "Treadmill T1"])
        #expect(sensors.map(\.kind) == [.bike, .heartRate, .treadmill])
        #expect(sensors.map(\.connected) == [false, false, true])
        #expect(sensors.map(\.battery) == [nil, 85, nil])
        #expect(sensors[1].isNamed("c0:ff:ee:12:34:56") && sensors[1].isNamed("Polar H10 1A2B3C4D"))
        #expect(!sensors[1].isNamed("Polar"))
    }

    @Test func withoutAnAdapterOrWithItOffBluetoothIsSaidUnavailable() {
        #expect(Self.objects().unavailability == nil)
        #expect(Self.objects(powered: false).unavailability == "Bluetooth is off: turn it on to use a sensor.")
        #expect(
            BlueZObjects([:]).unavailability == "Bluetooth is not available: this computer has no Bluetooth adapter.")
    }

    @Test func aCharacteristicIsFoundUnderItsDeviceByUUID() {
        let treadmill = "\(Self.adapter)/dev_AA_BB_CC_DD_EE_FF"
        #expect(
            Self.objects().characteristic(BluetoothUUID.treadmillData, of: treadmill)
                == "\(treadmill)/service0010/char0011")
        #expect(Self.objects().characteristic(BluetoothUUID.heartRateMeasurement, of: treadmill) == nil)
    }

    @Test func onlyABluetoothAddressIsAnAddress() {
        #expect(Settings.Sensors.isAddress("C0:FF:EE:12:34:56") && Settings.Sensors.isAddress("c0:ff:ee:12:34:56"))
        for text in ["", "C0:FF:EE:12:34", "C0:FF:EE:12:34:5G", "C0-FF-EE-12-34-56", "C0:FF:EE:12:34:567"] {
            #expect(!Settings.Sensors.isAddress(text), "\(text)")
        }
        #expect(BluetoothUUID.full(0x180D) == "0000180d-0000-1000-8000-00805f9b34fb")
    }
}

import Testing

@testable import IntervalCore

/// A machine's reading as the properties carry it (docs/dbus-interfaces.md): what it reports named in
/// `MachineReadings`, each value in its own property, 0 where it reports none, and read back as it was.
@Suite struct TimerPropertyTests {
    @Test func aMachinesReadingRoundTripsThroughItsProperties() {
        let readings = [
            MachineReading(speed: 12.5, distance: 350, incline: -1.5),
            MachineReading(speed: 0, power: 0, cadence: 0),
            MachineReading(speed: 31.2, distance: 4200, power: 210, cadence: 89.5),
        ]
        for reading in readings {
            var sent = TimerStatus.idle
            sent.machineReading = reading
            var read = TimerStatus.idle
            for property in TimerProperty.machineProperties {
                #expect(property.assign(property.value(of: sent), to: &read), "\(property)")
            }
            #expect(read.machineReading == reading)
        }
    }

    @Test func noReadingIsNoneAndZeroOnTheBus() {
        var status = TimerStatus.idle
        status.machineReading = MachineReading(speed: 10, distance: 20, incline: 1, power: 30, cadence: 40)
        status.machineReading = nil
        #expect(status == .idle)
        #expect(TimerProperty.machineReadings.value(of: status) == .string(""))
        #expect(
            TimerProperty.speed.value(of: status) == .double(0) && TimerProperty.power.value(of: status) == .uint16(0))
    }

    /// A bike that pushes back (negative power) reads 0 W; the machine's list of what it reports still has `power`.
    @Test func negativePowerIsZero() {
        var status = TimerStatus.idle
        status.machineReading = MachineReading(power: -20)
        #expect(status.power == 0 && status.machineReadings == "power")
    }

    @Test func theMachinesPropertiesAreOnTheInterfaceAndAnnounced() {
        let names = Set(TimerProperty.all.map(\.name))
        for property in TimerProperty.machineProperties {
            #expect(names.contains(property.name) && property.emitsChangedSignal, "\(property)")
        }
        #expect(TimerProperty.speed.signature == .double && TimerProperty.power.signature == .uint16)
        #expect(TimerProperty.machineDistance.signature == .uint32)
    }
}

import Testing

@testable import IntervalCore

/// The Fitness Machine service's bytes (FTMS 1.0): control point requests and answers, machine status, treadmill and
/// indoor bike data, and the targets a plan's steps set.
@Suite struct FitnessMachineTests {
    @Test func requestsAreWrittenAsTheServiceSays() {
        #expect(FitnessMachineRequest.requestControl.bytes == [0x00])
        #expect(FitnessMachineRequest.targetSpeed(hundredthsOfKilometresPerHour: 1200).bytes == [0x02, 0xB0, 0x04])
        #expect(FitnessMachineRequest.targetPower(watts: 300).bytes == [0x05, 0x2C, 0x01])
        #expect(FitnessMachineRequest.start.bytes == [0x07])
        #expect(FitnessMachineRequest.stop.bytes == [0x08, 0x01])
        #expect(FitnessMachineRequest.pause.bytes == [0x08, 0x02])
        #expect(FitnessMachineRequest.targetSpeed(hundredthsOfKilometresPerHour: 70_000).bytes == [0x02, 0xFF, 0xFF])
    }

    @Test func answersAreReadAndAnythingElseIsNot() {
        #expect(FitnessMachineResponse([0x80, 0x02, 0x01]) == FitnessMachineResponse([0x80, 0x02, 0x01, 0x00]))
        #expect(FitnessMachineResponse([0x80, 0x02, 0x01])?.result == .success)
        #expect(FitnessMachineResponse([0x80, 0x00, 0x05])?.result == .controlNotPermitted)
        #expect(FitnessMachineResponse([0x80, 0x05, 0x09])?.result == .other(9))
        #expect(FitnessMachineResponse([0x80, 0x02]) == nil)
        #expect(FitnessMachineResponse([0x02, 0x02, 0x01]) == nil)
        #expect(FitnessMachineResponse([]) == nil)
        #expect(FitnessMachineStatus([0xFF]) == .controlLost)
        #expect(FitnessMachineStatus([0x02, 0x01]) == .stoppedOnMachine)
        #expect(FitnessMachineStatus([0x04]) == .other)
        #expect(FitnessMachineStatus([]) == nil)
    }

    @Test func treadmillDataGivesSpeedDistanceAndIncline() {
        // Flags 0x000C: speed (bit 0 clear), total distance, inclination and ramp angle.
        let reading = MachineReading(treadmillData: [0x0C, 0x00, 0xB0, 0x04, 0x5E, 0x01, 0x00, 0x0F, 0x00, 0x09, 0x00])
        #expect(reading == MachineReading(speed: 12, distance: 350, incline: 1.5))
        // Flags 0x0001: no speed; an average speed (bit 1) is skipped before the distance.
        #expect(
            MachineReading(treadmillData: [0x07, 0x00, 0x10, 0x00, 0x01, 0x02, 0x03])
                == MachineReading(distance: 0x030201))
        // Every flag set: the fields after the inclination are not read.
        #expect(MachineReading(treadmillData: [0xFE, 0xFF] + Array(repeating: 0x01, count: 11))?.incline == 25.7)
        #expect(MachineReading(treadmillData: [0x0C, 0x00, 0xB0, 0x04, 0x5E]) == nil, "cut short")
        #expect(MachineReading(treadmillData: [0x00]) == nil)
        // A downhill incline is negative.
        #expect(MachineReading(treadmillData: [0x09, 0x00, 0xEC, 0xFF, 0x00, 0x00])?.incline == -2)
    }

    @Test func indoorBikeDataGivesSpeedCadenceDistanceAndPower() {
        // Flags 0x0054: speed, cadence, total distance, power.
        let bytes: [UInt8] = [0x54, 0x00, 0xD0, 0x07, 0xB4, 0x00, 0x10, 0x27, 0x00, 0x2C, 0x01]
        #expect(
            MachineReading(indoorBikeData: bytes)
                == MachineReading(speed: 20, distance: 10_000, power: 300, cadence: 90))
        #expect(MachineReading(indoorBikeData: Array(bytes.dropLast())) == nil, "cut short")
        // Resistance (bit 5) is skipped before the power; a negative power is as the machine says.
        #expect(MachineReading(indoorBikeData: [0x61, 0x00, 0x05, 0x00, 0xF6, 0xFF])?.power == -10)
    }

    @Test func aTreadmillGetsTheStepsPaceAsASpeedAtMostTheCeiling() throws {
        let segments = Array(try plan("1m run @ 5:00/km, 1m run @ 3:00/km, 1m walk, 1m ride @ 10 km/h").segments)
        let ceilings = MachineCeilings.standard
        #expect(
            ceilings.request(for: segments[0], on: .treadmill)?.request
                == .targetSpeed(hundredthsOfKilometresPerHour: 1200))
        #expect(ceilings.request(for: segments[0], on: .treadmill)?.capped == false)
        let fast = try #require(ceilings.request(for: segments[1], on: .treadmill))
        #expect(fast.request == .targetSpeed(hundredthsOfKilometresPerHour: 1600) && fast.capped)
        #expect(ceilings.request(for: segments[2], on: .treadmill) == nil, "no pace: the belt stays as it is")
        #expect(ceilings.request(for: segments[0], on: .bike) == nil)
        #expect(
            MachineCeilings(speed: 8.5, power: 400).request(for: segments[3], on: .treadmill)?.request
                == .targetSpeed(hundredthsOfKilometresPerHour: 850))
    }

    @Test func aTargetIsBroughtInsideTheMachinesRange() throws {
        // 1.00 to 20.00 km/h in steps of 0.10.
        let speeds = try #require(FitnessMachineRange(speedRange: [0x64, 0x00, 0xD0, 0x07, 0x0A, 0x00]))
        #expect(speeds == FitnessMachineRange(minimum: 100, maximum: 2000, increment: 10))
        #expect(
            speeds.fitting(.targetSpeed(hundredthsOfKilometresPerHour: 80))
                == .targetSpeed(hundredthsOfKilometresPerHour: 100))
        #expect(
            speeds.fitting(.targetSpeed(hundredthsOfKilometresPerHour: 1234))
                == .targetSpeed(hundredthsOfKilometresPerHour: 1230))
        #expect(
            speeds.fitting(.targetSpeed(hundredthsOfKilometresPerHour: 1236))
                == .targetSpeed(hundredthsOfKilometresPerHour: 1240))
        #expect(
            speeds.fitting(.targetSpeed(hundredthsOfKilometresPerHour: 2500))
                == .targetSpeed(hundredthsOfKilometresPerHour: 2000))
        #expect(speeds.fitting(.start) == .start)
        // 0 to 1500 W in steps of 1; a negative minimum is signed.
        let watts = try #require(FitnessMachineRange(powerRange: [0xF6, 0xFF, 0xDC, 0x05, 0x01, 0x00]))
        #expect(watts.minimum == -10 && watts.maximum == 1500)
        #expect(watts.fitting(.targetPower(watts: 1600)) == .targetPower(watts: 1500))
        #expect(FitnessMachineRange(speedRange: [0x64, 0x00, 0xD0]) == nil)
        #expect(FitnessMachineRange(speedRange: [0xD0, 0x07, 0x64, 0x00, 0x0A, 0x00]) == nil, "minimum above maximum")
        #expect(FitnessMachineRange(speedRange: [0x64, 0x00, 0xD0, 0x07, 0x00, 0x00])?.increment == 1)
    }

    @Test func aBikeGetsTheStepsPowerAtMostTheCeiling() throws {
        let segments = Array(
            try plan("20s work @ 300W, 10s rest @ 100-110W, 20s work @ 450W, 1m ride @ 30 km/h").segments)
        let ceilings = MachineCeilings.standard
        #expect(ceilings.request(for: segments[0], on: .bike)?.request == .targetPower(watts: 300))
        #expect(ceilings.request(for: segments[1], on: .bike)?.request == .targetPower(watts: 105))
        let hard = try #require(ceilings.request(for: segments[2], on: .bike))
        #expect(hard.request == .targetPower(watts: 400) && hard.capped)
        #expect(ceilings.request(for: segments[3], on: .bike) == nil, "a pace sets no power")
        #expect(ceilings.request(for: segments[0], on: .treadmill) == nil, "a power sets no speed")
    }

    @Test func samplesAreKeptOneASecond() {
        var samples = [MachineSample]()
        samples.appendOnePerSecond(MachineSample(wall: 1_000_000, reading: MachineReading(speed: 1)))
        samples.appendOnePerSecond(MachineSample(wall: 1_900_000, reading: MachineReading(speed: 2)))
        samples.appendOnePerSecond(MachineSample(wall: 2_000_000, reading: MachineReading(speed: 3)))
        #expect(samples.map(\.reading.speed) == [2, 3])
    }

    @Test func theFirstSampleMakesRoomForThoseExpected() {
        var samples = [MachineSample]()
        samples.appendOnePerSecond(MachineSample(wall: 1_000_000, reading: MachineReading(speed: 1)), expected: 900)
        #expect(samples.capacity >= 900)
        let room = samples.capacity
        for second in 2...900 {
            samples.appendOnePerSecond(
                MachineSample(wall: Int64(second) * 1_000_000, reading: MachineReading(speed: 1)), expected: 900)
        }
        #expect(samples.count == 900 && samples.capacity == room, "no buffer grown and left behind")
    }
}

import Foundation
import Testing

@testable import IntervalCore

/// A fitness machine's readings in the training log (docs/fit.md, docs/reference.md §5): kept a second at a time in the
/// history with what they measured over the workout and each segment, and in a FIT activity as `record` fields with
/// each lap's and the session's averages; in the CSV; and in the history's line.
@Suite struct MachineLogTests {
    static let second: Int64 = 1_000_000
    static let wall: Int64 = 1_700_000_000 * second

    /// Galloway skipped and paused (WorkoutTrackTests): a lap of 0.2 s, then the walk to 6.2 s with a pause from 2.2 s
    /// to 5.2 s, on a treadmill whose counter stood at 500 m, a strap heard at 1 s and 3 s.
    static func treadmillRecord() throws -> (HistoryRecord, Plan) {
        let scheduler = try WorkoutTrackTests.skippedAndPaused()
        let readings: [(Int64, MachineReading)] = [
            (100_000, MachineReading(speed: 6, distance: 500)),
            (second, MachineReading(speed: 12, distance: 503)),
            (2 * second, MachineReading(speed: 12.5, distance: 506, incline: 1.5)),
            (4 * second, MachineReading(speed: 0, distance: 506)),
            (6 * second, MachineReading(speed: 12, distance: 510)),
        ]
        let record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "g.plan", startedWall: wall), plan: scheduler.plan,
            elapsed: scheduler.place, start: "s", end: "e", result: .stopped, reason: .user,
            skipped: scheduler.skipped, track: scheduler.track.shifted(by: wall - 100 * second),
            heartRates: [
                HeartRateSample(wall: wall + second, bpm: 120), HeartRateSample(wall: wall + 3 * second, bpm: 140),
            ],
            machineSamples: readings.map { MachineSample(wall: wall + $0.0, reading: $0.1) })
        return (record, scheduler.plan)
    }

    @Test func theDistanceIsCountedFromTheFirstReadingAndACountStartedOverIsAdded() {
        let samples = [500, nil, 503, 2, 5].enumerated().map {
            MachineSample(
                wall: Int64($0.offset) * Self.second, reading: MachineReading(speed: 10, distance: $0.element))
        }
        let counted = MachineSample.countingDistanceFromTheFirst(samples)
        #expect(counted.map(\.reading.distance) == [0, nil, 3, 5, 8])
        #expect(counted.map(\.reading.speed) == samples.map(\.reading.speed))
        #expect(MachineSample.summary(of: counted, from: 2 * Self.second)?.distance == 8, "nothing before 3 m counted")
        #expect(MachineSample.summary(of: counted, from: 3 * Self.second, to: 4 * Self.second)?.distance == 2)
        #expect(MachineSample.summary(of: counted, from: 9 * Self.second) == nil, "no sample then")
        #expect(MachineSample.summary(of: [MachineSample(wall: 0, reading: MachineReading(incline: 2))]) == nil)
    }

    @Test func theHistoryKeepsTheReadingsAndWhatTheyMeasuredOverTheWorkoutAndEachSegment() throws {
        let (record, _) = try Self.treadmillRecord()
        #expect(record.machine?.map(\.milliseconds) == [100, 1_000, 2_000, 4_000, 6_000])
        #expect(record.machine?.map(\.reading.distance) == [0, 3, 6, 6, 10])
        #expect(record.machine?[2].reading == MachineReading(speed: 12.5, distance: 6, incline: 1.5))
        #expect(record.machineSummary == MachineSummary(distance: 10, averageSpeed: 8.5, maximumSpeed: 12.5))
        #expect(
            record.segments?.map(\.machineSummary) == [
                MachineSummary(distance: 0, averageSpeed: 6, maximumSpeed: 6),
                MachineSummary(distance: 10, averageSpeed: 9.13, maximumSpeed: 12.5),
            ])
        #expect(record.machineText == "8.5 km/h avg · 0.01 km")
        #expect(
            record.machineSamples.map(\.wall)
                == [100_000, 1_000_000, 2_000_000, 4_000_000, 6_000_000].map { Self.wall + $0 })

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        #expect(
            json.contains(#""machine":[{"distance":0,"ms":100,"speed":6},{"distance":3,"ms":1000,"speed":12},"#),
            "\(json)")
        #expect(json.contains(#"{"distance":6,"incline":1.5,"ms":2000,"speed":12.5}"#), "\(json)")
        #expect(json.contains(#""machine_summary":{"avg_speed":8.5,"distance":10,"max_speed":12.5}"#), "\(json)")
        #expect(json.contains(#""machine_summary":{"avg_speed":9.13,"distance":10,"max_speed":12.5}"#), "\(json)")
        #expect(try JSONDecoder().decode(HistoryRecord.self, from: Data(json.utf8)) == record)
    }

    /// A line written before machines were kept, and one of a workout without a machine, which leaves the keys out.
    @Test func aRecordWithoutAMachineReadsAndWritesNone() throws {
        let old = #"""
            {"id":"1-a","plan":"P","origin":"","start":"2026-11-23T07:30:00+01:00","end":"2026-11-23T07:31:00+01:00",\#
            "start_wall_us":1,"planned_us":60000000,"done_us":60000000,"segments_done":1,\#
            "time_per_kind_us":{"run":60000000},"result":"finished","reason":null,"heart_rate":[[0,120]],\#
            "avg_heart_rate":120,"max_heart_rate":120,"segments":[{"index":0,"kind":"run","label":"Run",\#
            "start_wall_us":1,"end_wall_us":60000001,"paused_us":0,"avg_heart_rate":120,"max_heart_rate":120}]}
            """#
        let record = try JSONDecoder().decode(HistoryRecord.self, from: Data(old.utf8))
        #expect(record.machine == nil && record.machineSummary == nil && record.machineText == nil)
        #expect(record.segments?.first?.machineSummary == nil && record.averageHeartRate == 120)
        #expect(record.machineSamples.isEmpty)
        let written = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(!written.contains("machine"), "\(written)")
        let messages = try FIT.decode(HistoryExport.fitActivity(record, plan: nil))
        #expect(messages.allSatisfy { $0[FIT.Record.speed] == nil && $0[FIT.Lap.totalDistance] == nil })
        let recordFields = messages.filter { $0.global == FIT.Record.global }.map { $0.fields.map(\.number) }
        #expect(recordFields.contains([FIT.Record.timestamp.rawValue, FIT.Record.heartRate.rawValue]))
    }

    /// The samples of one second in one `record`, the strap's and the machine's; FIT's units (speed in mm/s, distance
    /// in cm); each lap and the session with the distance and the speeds, a treadmill's power and cadence left empty.
    @Test func theActivityHasTheReadingsAsRecordFieldsAndEachLapsAndTheSessionsAverages() throws {
        let (record, plan) = try Self.treadmillRecord()
        let messages = try FIT.decode(HistoryExport.fitActivity(record, plan: plan))
        func integers<Fields: FITProfileMessage>(_ field: Fields) -> [Int64] {
            messages.compactMap { $0[field]?.integer }
        }
        let start = Self.wall / Self.second - FIT.epochOffset
        let sampled = messages.filter { $0[FIT.Record.speed] != nil || $0[FIT.Record.heartRate] != nil }
        #expect(sampled.compactMap { $0[FIT.Record.timestamp]?.integer } == [0, 1, 2, 3, 4, 6].map { start + $0 })
        #expect(sampled.map { $0[FIT.Record.heartRate]?.integer } == [nil, 120, nil, 140, nil, nil])
        #expect(integers(FIT.Record.speed) == [1_667, 3_333, 3_472, 0, 3_333])
        #expect(integers(FIT.Record.distance) == [0, 300, 600, 600, 1_000])
        #expect(integers(FIT.Record.power).isEmpty && integers(FIT.Record.cadence).isEmpty)
        #expect(integers(FIT.Lap.totalDistance) == [0, 1_000])
        #expect(integers(FIT.Lap.avgSpeed) == [1_667, 2_536] && integers(FIT.Lap.maxSpeed) == [1_667, 3_472])
        #expect(integers(FIT.Session.totalDistance) == [1_000])
        #expect(integers(FIT.Session.avgSpeed) == [2_361] && integers(FIT.Session.maxSpeed) == [3_472])
        #expect(integers(FIT.Lap.avgPower).isEmpty && integers(FIT.Session.avgCadence).isEmpty)
        #expect(integers(FIT.Lap.avgHeartRate) == [130] && integers(FIT.Session.avgHeartRate) == [130])
    }

    /// A bike: power and cadence in the records, each lap and the session, the CSV and the history's line.
    @Test func aBikesPowerAndCadenceAreInTheActivityTheCSVAndTheLine() throws {
        let tenSeconds = try plan("10s work")
        var record = HistoryRecord(
            workout: WorkoutIdentity(id: "b", text: "", origin: "b.plan", startedWall: Self.wall), plan: tenSeconds,
            elapsed: 10 * Self.second, start: "s", end: "e", result: .finished, reason: nil,
            machineSamples: [(200, 90.5, 1_000), (250, 93, 1_300)].enumerated().map {
                MachineSample(
                    wall: Self.wall + Int64($0.offset + 1) * Self.second,
                    reading: MachineReading(
                        speed: 30, distance: $0.element.2, power: $0.element.0, cadence: $0.element.1))
            })
        #expect(
            record.machineSummary
                == MachineSummary(
                    distance: 300, averageSpeed: 30, maximumSpeed: 30, averagePower: 225, maximumPower: 250,
                    averageCadence: 92,
                    maximumCadence: 93))
        #expect(record.machineText == "225 W avg · 0.30 km")
        let messages = try FIT.decode(HistoryExport.fitActivity(record, plan: tenSeconds))
        func integers<Fields: FITProfileMessage>(_ field: Fields) -> [Int64] {
            messages.compactMap { $0[field]?.integer }
        }
        #expect(integers(FIT.Record.power) == [200, 250] && integers(FIT.Record.cadence) == [91, 93])
        #expect(integers(FIT.Record.speed) == [8_333, 8_333] && integers(FIT.Record.heartRate).isEmpty)
        #expect(integers(FIT.Lap.avgPower) == [225] && integers(FIT.Lap.maxPower) == [250])
        #expect(integers(FIT.Lap.avgCadence) == [92] && integers(FIT.Lap.maxCadence) == [93])
        #expect(integers(FIT.Session.avgPower) == [225] && integers(FIT.Session.maxPower) == [250])
        #expect(integers(FIT.Session.avgCadence) == [92] && integers(FIT.Session.maxCadence) == [93])
        #expect(integers(FIT.Session.totalDistance) == [30_000])

        #expect(
            HistoryExport.csvColumns.suffix(7) == [
                "distance", "avg_speed", "max_speed", "avg_power", "max_power", "avg_cadence", "max_cadence",
            ])
        let rows = HistoryExport.csv([record]).split(separator: "\r\n")
        #expect(rows[1].hasSuffix(",,,300,30.00,30.00,225,250,92,93"), "\(rows[1])")
        record.machineSummary = nil
        #expect(HistoryExport.csv([record]).split(separator: "\r\n")[1].hasSuffix(",,,,,,,"))
    }
}

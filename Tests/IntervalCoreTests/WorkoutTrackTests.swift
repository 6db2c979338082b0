import Foundation
import IntervalTestSupport
import Testing

@testable import IntervalCore

/// What happened in a workout, kept as it happened: the segments' real instants and the pauses, and from them the
/// history's record and a training log's laps (docs/fit.md). Galloway skipped twice and stopped after seconds was an
/// activity of 332 s, laps of 300, 30 and 2 s: the history kept the plan's offsets, not what happened.
@Suite struct WorkoutTrackTests {
    static let galloway = "5m walk \"Warm-up\", 6x(4x(30s run, 30s walk), 60s walk), 5m walk"
    static let second: Int64 = 1_000_000

    /// Galloway from 100 s on the virtual clock: skipped twice at once, 2 s walked, paused 3 s, 1 s more, stopped.
    static func skippedAndPaused() throws -> Scheduler {
        let clock = ManualTimerSource(now: 100 * second)
        let scheduler = try makeScheduler(galloway, clock: clock, log: EventLog())
        scheduler.start()
        clock.advance(by: 200_000)
        try scheduler.skip()
        try scheduler.skip()
        clock.advance(by: 2 * second)
        try scheduler.pause()
        clock.advance(by: 3 * second)
        try scheduler.resume()
        clock.advance(by: second)
        scheduler.stop(.user)
        return scheduler
    }

    @Test func eachSegmentIsWhenItReallyWasWithItsPauseAndTheSkipsLeaveNoTime() throws {
        let scheduler = try Self.skippedAndPaused()
        let track = scheduler.track
        let played = track.segments(of: scheduler.plan)
        // The run, skipped the instant it began, was not played: it has no entry.
        #expect(played.map(\.segment.index) == [0, 2])
        #expect(played.map(\.start) == [100 * Self.second, 100_200_000])
        #expect(played.map(\.end) == [100_200_000, 106_200_000])
        #expect(played.map(\.paused) == [0, 3 * Self.second])
        #expect(played.map(\.played) == [200_000, 3 * Self.second])
        #expect(track.pauses.map(\.start) == [102_200_000] && track.pauses.map(\.end) == [105_200_000])
        #expect(track.elapsed == 6_200_000)
    }

    @Test func aRestartedIntervalIsOneSegmentThatLastedAsLongAsItWasPlayed() throws {
        let clock = ManualTimerSource(now: 0)
        let scheduler = try makeScheduler("10s run, 10s walk", clock: clock, log: EventLog())
        scheduler.start()
        clock.advance(by: 4 * Self.second)
        try scheduler.restartSegment()
        clock.advance(by: 10 * Self.second)  // the run again, whole, and its cue to walk
        clock.advance(by: 10 * Self.second)
        #expect(scheduler.state == .idle)
        let played = scheduler.track.segments(of: scheduler.plan)
        #expect(played.map(\.segment.kind) == ["run", "walk"])
        #expect(played.map(\.played) == [14 * Self.second, 10 * Self.second])
        #expect(scheduler.track.ended == 24 * Self.second)
    }

    @Test func aFinishBroughtLateByASleepEndsWhenThePlanRanOut() throws {
        let clock = ManualTimerSource(now: 0)
        let scheduler = try makeScheduler("10s run", clock: clock, log: EventLog())
        scheduler.start()
        clock.sleep(for: 60 * Self.second)
        clock.advance(by: 0)
        #expect(scheduler.state == .idle)
        #expect(scheduler.track.ended == 10 * Self.second)
    }

    @Test func aResumedWorkoutGoesOnInTheRunItWasInAndAPausedOneStaysPaused() throws {
        let recorded = try Self.skippedAndPaused().track
        var running = WorkoutTrack()
        running.begin(at: 0, from: 0)
        let clock = ManualTimerSource(now: 50 * Self.second)
        let scheduler = try makeScheduler("10s run, 60s walk", clock: clock, log: EventLog())
        // Started at 0, the daemon killed and started again at 50 s: the run that began at 0 goes on.
        scheduler.restore(anchor: 0, pausedElapsed: nil, track: running)
        clock.advance(by: 5 * Self.second)
        scheduler.stop(.user)
        #expect(scheduler.track.runs.count == 1)
        #expect(scheduler.track.segments(of: scheduler.plan).map(\.played) == [10 * Self.second, 45 * Self.second])
        #expect(recorded.runs.allSatisfy { $0.end != nil }, "a stopped workout's runs all ended")
    }

    @Test func theRecordCountsWhatWasPlayedAndListsItOnTheWallClock() throws {
        let scheduler = try Self.skippedAndPaused()
        let wall: Int64 = 1_700_000_000 * Self.second
        let track = scheduler.track.shifted(by: wall - 100 * Self.second)
        let record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "g.plan", startedWall: wall), plan: scheduler.plan,
            elapsed: scheduler.place, start: "s", end: "e", result: .stopped, reason: .user,
            skipped: scheduler.skipped, track: track)
        #expect(record.doneDuration == 3_200_000)
        #expect(record.timePerKind == ["walk": 3_200_000])
        #expect(record.endWall == wall + 6_200_000)
        #expect(record.segments?.map(\.startWall) == [wall, wall + 200_000])
        #expect(record.segments?.map(\.played) == [200_000, 3 * Self.second])
        #expect(record.pauses == [HistoryRecord.Pause(startWall: wall + 2_200_000, endWall: wall + 5_200_000)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let line = try encoder.encode(record)
        #expect(String(decoding: line, as: UTF8.self).contains("\"segments\":[{\"end_wall_us\":"))
        #expect(try JSONDecoder().decode(HistoryRecord.self, from: line) == record)
    }

    @Test func aWorkoutOfMoreSegmentsThanARecordListsKeepsAllItsTimeInTheLast() throws {
        let clock = ManualTimerSource(now: 0)
        let scheduler = try makeScheduler("100x(1s run, 1s walk)", clock: clock, log: EventLog())
        scheduler.start()
        clock.advance(by: 200 * Self.second)
        let played = scheduler.track.segments(of: scheduler.plan, limit: 10)
        #expect(played.count == 10)
        #expect(played.last?.end == 200 * Self.second)
        #expect(played.reduce(0) { $0 + $1.played } == 200 * Self.second)
    }

    /// The laps, the session and the pauses of the activity, read back by our decoder (the integration tests read it
    /// with an independent one).
    @Test func theActivityHasLapsAsLongAsTheyWereAndASessionThatEndsWhenTheWorkoutDid() throws {
        let scheduler = try Self.skippedAndPaused()
        let wall: Int64 = 1_700_000_000 * Self.second
        let record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "g.plan", startedWall: wall), plan: scheduler.plan,
            elapsed: scheduler.place, start: "s", end: "e", result: .stopped, reason: .user,
            skipped: scheduler.skipped, track: scheduler.track.shifted(by: wall - 100 * Self.second))
        let messages = try FIT.decode(HistoryExport.fitActivity(record, plan: scheduler.plan))
        func integers<Fields: FITProfileMessage>(_ field: Fields) -> [Int64] {
            messages.compactMap { $0[field]?.integer }
        }
        #expect(integers(FIT.Lap.totalElapsedTime) == [200, 6_000], "each lap's elapsed time, ms")
        #expect(integers(FIT.Lap.totalTimerTime) == [200, 3_000], "each lap's timer time, without its pause")
        #expect(integers(FIT.Session.totalElapsedTime) == [6_200] && integers(FIT.Session.totalTimerTime) == [3_200])
        let start = wall / Self.second - FIT.epochOffset
        #expect(integers(FIT.Session.startTime) == [start] && integers(FIT.Session.timestamp) == [start + 6])
        // The timer started, stopped for the pause and started again, and stopped at the end.
        #expect(integers(FIT.Event.eventType) == [0, 4, 0, 4])
        #expect(integers(FIT.Event.timestamp) == [start, start + 2, start + 5, start + 6])
    }

    /// A strap's samples (docs/sensors.md): kept a second at a time with the workout's and each segment's average and
    /// maximum, and in the activity as a record each, with each lap's and the session's average and maximum; and in
    /// the CSV's `avg_heart_rate` and `max_heart_rate` columns.
    @Test func theHeartRateIsKeptPerSecondWithItsAveragesInTheRecordTheActivityAndTheCSV() throws {
        let scheduler = try Self.skippedAndPaused()
        let wall: Int64 = 1_700_000_000 * Self.second
        // 110 at 250 ms is the second segment's (it began at 200 ms), a record of the second lap.
        let samples = [
            (100_000, 100), (250_000, 110), (Self.second, 120), (3 * Self.second, 140), (6 * Self.second, 150),
            (7 * Self.second, 300),
        ]
        .map {
            HeartRateSample(wall: wall + $0.0, bpm: $0.1)
        }
        let record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "g.plan", startedWall: wall), plan: scheduler.plan,
            elapsed: scheduler.place, start: "s", end: "e", result: .stopped, reason: .user,
            skipped: scheduler.skipped, track: scheduler.track.shifted(by: wall - 100 * Self.second),
            heartRates: samples)
        #expect(
            record.heartRate == [[100, 100], [250, 110], [1_000, 120], [3_000, 140], [6_000, 150], [7_000, 300]])
        #expect(record.averageHeartRate == 153 && record.maximumHeartRate == 300)
        // The last sample came after the last segment: the workout's, and the last lap's, not the segment's.
        #expect(record.segments?.map(\.averageHeartRate) == [100, 130])
        #expect(record.segments?.map(\.maximumHeartRate) == [100, 150])
        #expect(record.heartRateText == "♥ 153 avg")
        let messages = try FIT.decode(HistoryExport.fitActivity(record, plan: scheduler.plan))
        func integers<Fields: FITProfileMessage>(_ field: Fields) -> [Int64] {
            messages.compactMap { $0[field]?.integer }
        }
        // 300 bpm (a strap's 16-bit value) is 254 in FIT's byte, where 255 means "no value".
        #expect(integers(FIT.Record.heartRate) == [100, 110, 120, 140, 150, 254])
        #expect(integers(FIT.Lap.avgHeartRate) == [100, 164] && integers(FIT.Lap.maxHeartRate) == [100, 254])
        #expect(integers(FIT.Session.avgHeartRate) == [153] && integers(FIT.Session.maxHeartRate) == [254])
        let row = HistoryExport.csv([record]).split(separator: "\r\n")[1].split(
            separator: ",", omittingEmptySubsequences: false)
        let column = try #require(HistoryExport.csvColumns.firstIndex(of: "avg_heart_rate"))
        #expect(HistoryExport.csvColumns[column + 1] == "max_heart_rate")
        #expect(row[column...].prefix(2) == ["153", "300"], "\(row)")
        #expect(row.count == HistoryExport.csvColumns.count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try JSONDecoder().decode(HistoryRecord.self, from: encoder.encode(record)) == record)
        #expect(record.heartRateSamples == samples)
    }

    @Test func aRecordWrittenBeforeTheInstantsWereKeptStillHasLapsAtThePlansOffsets() throws {
        let plan = try plan("30s run, 30s walk")
        var record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "", startedWall: 0), plan: plan, elapsed: 40_000_000,
            start: "s", end: "e", result: .stopped, reason: .user)
        record.endWall = nil
        #expect(record.segments == nil)
        #expect(HistoryExport.laps(of: record, plan: plan).map(\.timer) == [30 * Self.second, 10 * Self.second])
    }
}

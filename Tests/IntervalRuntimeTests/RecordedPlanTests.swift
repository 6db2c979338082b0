import Foundation
import IntervalCore
import Testing

@testable import IntervalRuntime

/// The plan a history record ran, for the window's finish page (Start Again, the distance run).
@Suite struct RecordedPlanTests {
    private static let minute: Int64 = 60_000_000

    private static func record(
        plan: String, origin: String, text: String? = nil, done: Int64 = 0, result: HistoryRecord.Result = .finished
    ) -> HistoryRecord {
        var record = HistoryRecord(
            id: "1", plan: plan, origin: origin, start: "2026-11-23T07:30:00+01:00", end: "2026-11-23T07:42:00+01:00",
            startWall: 1, plannedDuration: 15 * minute, doneDuration: done, segmentsDone: 1, timePerKind: [:],
            result: result, reason: nil)
        record.text = text
        return record
    }

    @Test func aPlanFileIsReadAgainAndOnlyIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "recorded-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/easy.plan"
        let text = "name \"Easy\"\n2x(30s run, 30s walk)\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let known = try #require(RecordedPlan(of: Self.record(plan: "Easy", origin: path), lastStarted: nil))
        #expect(known.text == text && known.origin == path && known.plan.segmentCount == 4)
        // A file gone is no plan, though the text last started came from it.
        try FileManager.default.removeItem(atPath: path)
        #expect(RecordedPlan(of: Self.record(plan: "Easy", origin: path), lastStarted: (text, path)) == nil)
    }

    @Test func aOneLinePlanIsTheTextItsRecordKeeps() throws {
        let text = "3x(1km run @ 5:00/km)"
        let name = PlanLocator.inlineName(for: text)
        let known = try #require(
            RecordedPlan(of: Self.record(plan: name, origin: "<inline>", text: text), lastStarted: nil))
        #expect(known.text == text && known.origin == "" && known.plan.name == name)
        // A text whose plan has another name is not the record's.
        #expect(RecordedPlan(of: Self.record(plan: "Other", origin: "<inline>", text: text), lastStarted: nil) == nil)
    }

    @Test func theTextLastStartedIsTheRecordsPlanWhenItsOriginAndNameAgree() throws {
        let text = "name \"Hills\"\n6x(1:00 run, 2:00 walk)"
        let known = try #require(
            RecordedPlan(of: Self.record(plan: "Hills", origin: "hook"), lastStarted: (text, "hook")))
        #expect(known.text == text && known.origin == "hook" && known.plan.name == "Hills")
        #expect(RecordedPlan(of: Self.record(plan: "Hills", origin: "elsewhere"), lastStarted: (text, "hook")) == nil)
        #expect(RecordedPlan(of: Self.record(plan: "Flats", origin: "hook"), lastStarted: (text, "hook")) == nil)
        #expect(RecordedPlan(of: Self.record(plan: "Hills", origin: "hook"), lastStarted: nil) == nil)
    }

    @Test func theDistanceDoneFollowsTheTimeDoneThroughTimedSteps() throws {
        let text = "1km run @ 5:00/km, 1km walk @ 10:00/km"
        let name = PlanLocator.inlineName(for: text)
        let stopped = Self.record(plan: name, origin: "", text: text, done: 15 * Self.minute / 2, result: .stopped)
        let known = try #require(RecordedPlan(of: stopped, lastStarted: nil))
        // The run's kilometre, and a quarter of the walk's.
        #expect(known.distanceDone(by: stopped) == 1250)
    }

    @Test func withAStepThePersonEndsTheDistanceIsKnownOnlyForAFinishedWorkout() throws {
        let text = "0.4km run, 1km run @ 5:00/km"
        let name = PlanLocator.inlineName(for: text)
        let finished = Self.record(plan: name, origin: "", text: text, done: 7 * Self.minute, result: .finished)
        let known = try #require(RecordedPlan(of: finished, lastStarted: nil))
        #expect(known.distanceDone(by: finished) == 1400)
        var stopped = finished
        stopped.result = .stopped
        #expect(known.distanceDone(by: stopped) == nil)
    }
}

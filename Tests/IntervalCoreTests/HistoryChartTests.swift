import IntervalCore
import Testing

@Suite struct HistoryChartTests {
    private static let minute: Int64 = 60_000_000
    private static let hour: Int64 = 3_600_000_000
    private static let day: Int64 = 86_400_000_000
    /// Wednesday 2026-11-25 12:00 UTC.
    private static let now: Int64 = 1_795_608_000_000_000
    /// 2026-11-23 00:00 UTC, that week's Monday.
    private static let monday = now - 2 * day - 12 * hour
    private static let rest: Set = ["walk", "rest"]

    private func record(at start: Int64, _ perKind: [String: Int64]) -> HistoryRecord {
        HistoryRecord(
            id: "\(start)", plan: "p", origin: "test", start: "", end: "", startWall: start, plannedDuration: 0,
            doneDuration: perKind.values.reduce(0, +), segmentsDone: 1, timePerKind: perKind, result: .finished,
            reason: nil)
    }

    @Test func bucketsMinutesByLocalWeekFromMondayAndTone() {
        let records = [
            record(at: Self.monday, ["run": 20 * Self.minute, "walk": 10 * Self.minute, "sprint": 2 * Self.minute]),
            record(at: Self.monday - 1, ["run": 5 * Self.minute]),  // Sunday: the week before
            record(at: Self.monday - 3 * HistoryChart.week, ["run": 60 * Self.minute]),  // too old for 3 weeks
        ]
        let chart = HistoryChart(records, now: Self.now, utcOffset: { _ in 0 }, restKinds: Self.rest, count: 3)
        #expect(chart.tones == [.work, .rest])
        #expect(chart.kinds == [.work: ["run", "sprint"], .rest: ["walk"]])
        let monday = Self.monday
        #expect(chart.weeks.map(\.start) == [monday - 2 * HistoryChart.week, monday - HistoryChart.week, monday])
        #expect(chart.weeks.map(\.minutes) == [[0, 0], [5, 0], [22, 10]])
        #expect(chart.weeks.last?.total == 32)
    }

    /// A week of 14 seconds was labelled "0" over a bar drawn 45 px tall.
    @Test func aWeekOfSecondsIsLabelledLessThanAMinuteNotZero() {
        let records = [
            record(at: Self.monday, ["run": 14_000_000]),
            record(at: Self.monday - HistoryChart.week, ["run": 20 * Self.minute, "walk": 40_000_000]),
        ]
        let chart = HistoryChart(records, now: Self.now, utcOffset: { _ in 0 }, restKinds: Self.rest, count: 3)
        #expect(chart.weeks.map(\.label) == [nil, "21", "<1"])
    }

    @Test func noWeeksAskedForIsAnEmptyChart() {
        let chart = HistoryChart(
            [record(at: Self.now, ["run": Self.minute])], now: Self.now, utcOffset: { _ in 0 }, restKinds: [],
            count: 0)
        #expect(chart.tones.isEmpty && chart.weeks.isEmpty)
    }

    @Test func aLocalOffsetMovesTheWeeksBoundary() {
        // Sunday 23:30 UTC is Monday 00:30 at UTC+1: this week there, last week in UTC.
        let late = record(at: Self.monday - 30 * Self.minute, ["run": 10 * Self.minute])
        func minutes(offset: Int64) -> [[Double]] {
            HistoryChart([late], now: Self.now, utcOffset: { _ in offset }, restKinds: [], count: 2).weeks
                .map(\.minutes)
        }
        #expect(minutes(offset: Self.hour) == [[0], [10]])
        #expect(minutes(offset: 0) == [[10], [0]])
    }

    @Test func aDaylightSavingChangeMovesNoWorkoutAcrossAWeek() {
        // Europe/Berlin: UTC+2 until Sunday 2026-10-25 01:00 UTC, UTC+1 after (as on `now`). A workout on Monday
        // 2026-10-19 at 00:30 summer time (Sunday 22:30 UTC) is in the week of the 19th, though today's offset
        // makes it Sunday.
        let changeOver: Int64 = 1_792_890_000 * 1_000_000
        let berlin = { (instant: Int64) in instant < changeOver ? 2 * Self.hour : Self.hour }
        let nineteenth: Int64 = 1_792_368_000 * 1_000_000  // 2026-10-19 00:00 UTC
        let workout = record(at: nineteenth - 2 * Self.hour + 30 * Self.minute, ["run": 10 * Self.minute])
        // Seven weeks: from Monday 12 October to this one.
        let chart = HistoryChart([workout], now: Self.now, utcOffset: berlin, restKinds: [], count: 7)
        #expect(chart.weeks.map(\.minutes).prefix(3) == [[0], [10], [0]])
        // Each week starts at local midnight: 22:00 UTC in summer time, 23:00 UTC after.
        #expect(chart.weeks[1].start == nineteenth - 2 * Self.hour)
        #expect(chart.weeks[6].start == Self.monday - Self.hour)
        let withTodaysOffset = HistoryChart(
            [workout], now: Self.now, utcOffset: { _ in Self.hour }, restKinds: [], count: 7)
        #expect(withTodaysOffset.weeks.map(\.minutes).prefix(2) == [[10], [0]], "the old chart's week before")
    }
}

import IntervalCore
import Testing

@Suite struct HistoryChartTests {
    private static let minute: Int64 = 60_000_000
    private static let day: Int64 = 86_400_000_000
    /// Wednesday 2026-11-25 12:00 UTC.
    private static let now: Int64 = 1_795_608_000_000_000

    private func record(at start: Int64, _ perKind: [String: Int64]) -> HistoryRecord {
        HistoryRecord(
            id: "\(start)", plan: "p", origin: "test", start: "", end: "", startWall: start, plannedDuration: 0,
            doneDuration: perKind.values.reduce(0, +), segmentsDone: 1, timePerKind: perKind, result: .finished,
            reason: nil)
    }

    @Test func bucketsMinutesByLocalWeekFromMondayAndKind() {
        let monday = Self.now - 2 * Self.day - 12 * 3_600_000_000  // 2026-11-23 00:00 UTC
        let records = [
            record(at: monday, ["run": 20 * Self.minute, "walk": 10 * Self.minute]),
            record(at: monday - 1, ["run": 5 * Self.minute]),  // Sunday: the week before
            record(at: monday - 3 * HistoryChart.week, ["run": 60 * Self.minute]),  // too old for 3 weeks
        ]
        let chart = HistoryChart(records, now: Self.now, utcOffset: 0, count: 3)
        #expect(chart.kinds == ["run", "walk"])
        #expect(chart.weeks.map(\.start) == [monday - 2 * HistoryChart.week, monday - HistoryChart.week, monday])
        #expect(chart.weeks.map(\.minutes) == [[0, 0], [5, 0], [20, 10]])
        #expect(chart.weeks.last?.total == 30)
    }

    @Test func noWeeksAskedForIsAnEmptyChart() {
        let chart = HistoryChart([record(at: Self.now, ["run": Self.minute])], now: Self.now, utcOffset: 0, count: 0)
        #expect(chart.kinds.isEmpty && chart.weeks.isEmpty)
    }

    @Test func aLocalOffsetMovesTheWeeksBoundary() {
        // Sunday 23:30 UTC is Monday 00:30 at UTC+1: this week there, last week in UTC.
        let monday = Self.now - 2 * Self.day - 12 * 3_600_000_000
        let late = record(at: monday - 30 * Self.minute, ["run": 10 * Self.minute])
        let hour: Int64 = 3_600_000_000
        #expect(HistoryChart([late], now: Self.now, utcOffset: hour, count: 2).weeks.map(\.minutes) == [[0], [10]])
        #expect(HistoryChart([late], now: Self.now, utcOffset: 0, count: 2).weeks.map(\.minutes) == [[10], [0]])
    }
}

/// The window's history chart (docs/reference.md §10): minutes per week, by kind, over the last weeks.
public struct HistoryChart: Sendable, Equatable {
    public struct Week: Sendable, Equatable {
        /// The week's Monday at local midnight, µs since the Unix epoch.
        public var start: Int64
        /// Minutes per kind, in ``HistoryChart/kinds`` order.
        public var minutes: [Double]

        public var total: Double { minutes.reduce(0, +) }
    }

    /// Every kind done in the charted weeks, most minutes first.
    public var kinds: [String]
    /// Oldest first; the last one is the current week.
    public var weeks: [Week]

    public static let week: Int64 = 7 * 86_400 * 1_000_000

    /// Buckets `records` by the local week they started in (weeks begin on Monday; `utcOffset` is the local time's
    /// offset from UTC in µs), keeping the `count` weeks up to the one of `now`.
    public init(_ records: [HistoryRecord], now: Int64, utcOffset: Int64, count: Int) {
        guard count > 0 else {
            (kinds, weeks) = ([], [])
            return
        }
        let day: Int64 = 86_400 * 1_000_000
        let localNow = now + utcOffset
        // 1970-01-01 was a Thursday: Monday is three days later in the week's count.
        let daysSinceMonday = ((localNow.floorDivided(by: day) + 3) % 7 + 7) % 7
        let currentWeek = localNow.floorDivided(by: day) * day - daysSinceMonday * day - utcOffset
        let first = currentWeek - Int64(count - 1) * Self.week
        var perKind: [String: [Double]] = [:]
        for record in records where record.startWall >= first && record.startWall < currentWeek + Self.week {
            let index = Int((record.startWall - first) / Self.week)
            for (kind, duration) in record.timePerKind {
                perKind[kind, default: Array(repeating: 0, count: count)][index] += Double(duration) / 60_000_000
            }
        }
        kinds = perKind.keys.sorted { left, right in
            let (a, b) = (perKind[left, default: []].reduce(0, +), perKind[right, default: []].reduce(0, +))
            return a == b ? left < right : a > b
        }
        let kinds = kinds
        weeks = (0..<count).map { index in
            Week(start: first + Int64(index) * Self.week, minutes: kinds.map { perKind[$0]?[index] ?? 0 })
        }
    }
}

extension Int64 {
    /// Division rounded towards minus infinity (before 1970 too).
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

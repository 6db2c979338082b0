/// Minutes per local week, work and rest stacked (the history page's chart, in ``ToneColours``).
public struct HistoryChart: Sendable, Equatable {
    public struct Week: Sendable, Equatable {
        /// The week's Monday at local midnight, µs since the Unix epoch.
        public var start: Int64
        /// Minutes per tone, in ``HistoryChart/tones`` order.
        public var minutes: [Double]

        public var total: Double { minutes.reduce(0, +) }

        /// The figure over the week's bar: its whole minutes, "<1" for a week of less than half a minute (a bar is
        /// drawn for any time at all, so "0" over a drawn bar would contradict it), nil for a week of none.
        public var label: String? {
            guard total > 0 else { return nil }
            let rounded = Int(total.rounded())
            return rounded == 0 ? "<1" : "\(rounded)"
        }
    }

    /// The tones done in the charted weeks: work, then rest, each only if any minutes of it were done.
    public var tones: [WorkoutDisplay.Tone]
    /// The kinds done in the charted weeks, per tone, most minutes first (the legend's).
    public var kinds: [WorkoutDisplay.Tone: [String]]
    /// Oldest first; the last one is the current week.
    public var weeks: [Week]

    public static let week: Int64 = 7 * day
    private static let day: Int64 = 86_400 * 1_000_000

    /// Buckets `records` by the local week they started in (weeks begin on Monday), keeping the `count` weeks up to
    /// the one of `now`. `utcOffset(t)` is the local time's offset from UTC at the instant `t` (both µs), so that a
    /// daylight-saving change moves no record across a week's boundary.
    public init(
        _ records: [HistoryRecord], now: Int64, utcOffset: (Int64) -> Int64, restKinds: Set<String>, count: Int
    ) {
        guard count > 0 else {
            (tones, kinds, weeks) = ([], [:], [])
            return
        }
        /// Days since 1970-01-01 in local time.
        func localDay(_ instant: Int64) -> Int64 { (instant + utcOffset(instant)).floorDivided(by: Self.day) }
        // 1970-01-01 was a Thursday: Monday is three days later in the week's count.
        let today = localDay(now)
        let firstMonday = today - ((today + 3) % 7 + 7) % 7 - Int64(count - 1) * 7
        var perTone: [WorkoutDisplay.Tone: [Double]] = [:]
        var perKind: [String: Int64] = [:]
        for record in records {
            let index = (localDay(record.startWall) - firstMonday).floorDivided(by: 7)
            guard index >= 0, index < count else { continue }
            for (kind, duration) in record.timePerKind {
                let tone = ToneColours.tone(ofKind: kind, restKinds: restKinds)
                perTone[tone, default: Array(repeating: 0, count: count)][Int(index)] += Double(duration) / 60_000_000
                perKind[kind, default: 0] += duration
            }
        }
        let tones = [WorkoutDisplay.Tone.work, .rest].filter { perTone[$0] != nil }
        self.tones = tones
        kinds = Dictionary(grouping: perKind.keys) { ToneColours.tone(ofKind: $0, restKinds: restKinds) }
            .mapValues { kinds in
                kinds.sorted { left, right in
                    let (a, b) = (perKind[left, default: 0], perKind[right, default: 0])
                    return a == b ? left < right : a > b
                }
            }
        weeks = (0..<count).map { index in
            // Local midnight as an instant: the offset at midnight UTC of that date, then at the instant it gives.
            let midnight = (firstMonday + Int64(index) * 7) * Self.day
            let start = midnight - utcOffset(midnight - utcOffset(midnight))
            return Week(start: start, minutes: tones.map { perTone[$0]?[index] ?? 0 })
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

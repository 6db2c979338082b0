/// What `intervalctl history` sums up under its list: how many workouts, how much time, and time per kind.
public struct HistoryTotals: Sendable, Equatable, Codable {
    public var count: Int
    /// µs done, over all the workouts.
    public var doneDuration: Int64
    /// µs per kind, over all the workouts.
    public var timePerKind: [String: Int64]

    enum CodingKeys: String, CodingKey {
        case count
        case doneDuration = "done_us"
        case timePerKind = "time_per_kind_us"
    }

    public init(_ records: [HistoryRecord]) {
        count = records.count
        doneDuration = records.reduce(0) { $0 + $1.doneDuration }
        timePerKind = records.reduce(into: [:]) { totals, record in
            totals.merge(record.timePerKind, uniquingKeysWith: +)
        }
    }
}

extension HistoryTotals {
    /// Time per kind as a person reads it in a history (`intervalctl history`'s totals, the window's rows): each kind by
    /// its display name, most time first, "Laufen 0:13, Gehen 0:01" in German; empty for no kinds.
    public static func text(ofTimePerKind timePerKind: [String: Int64]) -> String {
        // Ties by kind, so that the same history reads the same every time.
        timePerKind.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { "\(Localization.kindName($0.key)) \(TimeText.clockToTheSecond(microseconds: $0.value))" }
            .joined(separator: ", ")
    }
}

/// The records `intervalctl history` shows: those started at or after `since` (µs since the Unix epoch), the
/// latest `limit` of them, oldest first.
public func selectHistory(_ records: [HistoryRecord], since: Int64?, limit: Int?) -> [HistoryRecord] {
    let recent = records.filter { record in since.map { record.startWall >= $0 } ?? true }
        .sorted { $0.startWall < $1.startWall }
    guard let limit else { return recent }
    return Array(recent.suffix(max(limit, 0)))
}

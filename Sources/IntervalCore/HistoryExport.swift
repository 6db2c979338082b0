/// The history for a training log (docs/fit.md): a workout as a FIT activity file (file type 4) that Garmin Connect,
/// Strava, Runalyze and intervals.icu take as an upload, and the history as one CSV file.
public enum HistoryExport {
    // MARK: FIT activities

    /// `record` as a FIT activity: its segments as laps (from `plan`, the plan it ran, when it can still be read; one
    /// lap otherwise), indoors, without positions. A stopped or interrupted workout ends where it ended: its last lap
    /// is cut there. The history keeps no instants of its segments, so a lap starts at its segment's offset in the
    /// plan from the workout's start (a pause is not in the file).
    public static func fitActivity(_ record: HistoryRecord, plan: Plan?) -> [UInt8] {
        let start = record.startWall / Micros.second - FIT.epochOffset
        let done = record.doneDuration + (record.skipped ?? 0)
        var laps: [(start: Int64, duration: Int64, kind: String)] = []
        if let plan, plan.duration > 0 {
            for segment in plan.segments {
                guard segment.start < done || laps.isEmpty else { break }
                laps.append((segment.start, min(segment.end, max(done, segment.start)) - segment.start, segment.kind))
            }
        } else {
            laps = [(0, done, record.timePerKind.max { $0.value < $1.value }?.key ?? "")]
        }
        let (sport, subSport) = FIT.sport(of: record.timePerKind.keys)
        let end = start + (done + Micros.second - 1) / Micros.second
        func milliseconds(_ micros: Int64) -> Int64 { micros / Micros.millisecond }
        var messages = [FIT.fileID(type: 4, created: record.startWall / Micros.second), event(at: start, type: 0)]
        for (index, lap) in laps.enumerated() {
            let lapStart = start + lap.start / Micros.second
            messages.append(FITMessage(FIT.Message.record, [.integer(253, .uint32, lapStart)]))
            messages.append(
                FITMessage(
                    FIT.Message.lap,
                    [
                        .integer(254, .uint16, Int64(index)),
                        .integer(253, .uint32, start + (lap.start + lap.duration) / Micros.second),
                        .integer(2, .uint32, lapStart), .integer(7, .uint32, milliseconds(lap.duration)),
                        .integer(8, .uint32, milliseconds(lap.duration)), .integer(0, .enumeration, 9),
                        .integer(1, .enumeration, 1), .integer(24, .enumeration, 0), .integer(25, .enumeration, sport),
                        .integer(39, .enumeration, subSport),
                    ]))
        }
        messages.append(FITMessage(FIT.Message.record, [.integer(253, .uint32, end)]))
        messages.append(event(at: end, type: 4))
        messages.append(
            FITMessage(
                FIT.Message.session,
                [
                    .integer(254, .uint16, 0), .integer(253, .uint32, end), .integer(2, .uint32, start),
                    .integer(7, .uint32, milliseconds(done)), .integer(8, .uint32, milliseconds(done)),
                    .integer(5, .enumeration, sport), .integer(6, .enumeration, subSport),
                    .integer(25, .uint16, 0), .integer(26, .uint16, Int64(laps.count)), .integer(0, .enumeration, 8),
                    .integer(1, .enumeration, 1), .integer(28, .enumeration, 0),
                ]))
        messages.append(
            FITMessage(
                FIT.Message.activity,
                [
                    .integer(253, .uint32, end), .integer(0, .uint32, milliseconds(done)), .integer(1, .uint16, 1),
                    .integer(2, .enumeration, 0), .integer(3, .enumeration, 26), .integer(4, .enumeration, 1),
                ]))
        return FIT.encode(messages)
    }

    /// An `event` of the timer: `type` 0 start, 4 stop all.
    private static func event(at time: Int64, type: Int64) -> FITMessage {
        FITMessage(
            FIT.Message.event,
            [.integer(253, .uint32, time), .integer(0, .enumeration, 0), .integer(1, .enumeration, type)])
    }

    /// A file name for `record`'s activity: its start and its plan, "2026-11-23 07-30 Galloway 30-30.fit".
    public static func fileName(of record: HistoryRecord) -> String {
        let when = record.start.prefix(16).replacing("T", with: " ").replacing(":", with: "-")
        return FIT.fileName(for: "\(when) \(record.plan)", extension: "fit")
    }

    // MARK: CSV

    /// The CSV columns: the history's fields by their names in history.jsonl (docs/reference.md §5).
    public static let csvColumns = [
        "id", "plan", "origin", "start", "end", "start_wall_us", "planned_us", "done_us", "skipped_us", "segments_done",
        "result", "reason", "program", "day", "slept_us", "time_per_kind_us",
    ]

    /// The records as CSV (RFC 4180: a header row, then a row per workout, CRLF line ends, fields with a comma, a
    /// quote or a line end quoted): numbers as integers, times as ISO 8601, whatever the locale; time per kind as
    /// `kind=µs` pairs joined by `;`, in order of kind.
    public static func csv(_ records: [HistoryRecord]) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        for record in records {
            let fields: [String] = [
                record.id, record.plan, record.origin, record.start, record.end, "\(record.startWall)",
                "\(record.plannedDuration)", "\(record.doneDuration)", record.skipped.map { "\($0)" } ?? "",
                "\(record.segmentsDone)", record.result.rawValue, record.reason ?? "", record.program ?? "",
                record.day ?? "", record.slept.map { "\($0)" } ?? "",
                record.timePerKind.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";"),
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}

/// The history for a training log (docs/fit.md): a workout as a FIT activity file (file type 4) that Garmin Connect,
/// Strava, Runalyze and intervals.icu take as an upload, and the history as one CSV file.
public enum HistoryExport {
    // MARK: FIT activities

    /// `record` as a FIT activity: its segments as laps, indoors, without positions. A lap is a segment as it was
    /// played, from its real start to its real end, its timer time without the pauses in it; the session ends when the
    /// workout did, its elapsed time with the pauses and its timer time without; each pause is a stop and a start of
    /// the timer. A record written before the history kept its segments' instants has laps at its segments' offsets
    /// in `plan`, the plan it ran (when that can still be read; one lap otherwise), cut at the time done.
    public static func fitActivity(_ record: HistoryRecord, plan: Plan?) -> [UInt8] {
        let laps = self.laps(of: record, plan: plan)
        let start = record.startWall
        let end = record.endWall ?? laps.last.map { $0.start + $0.elapsed } ?? start
        let timer = laps.reduce(0) { $0 + $1.timer }
        let (sport, subSport) = FIT.sport(of: record.timePerKind.keys)
        func time(_ wall: Int64) -> Int64 { wall / Micros.second - FIT.epochOffset }
        func milliseconds(_ micros: Int64) -> Int64 { micros / Micros.millisecond }
        var messages = [FIT.fileID(type: 4, created: start / Micros.second), event(at: time(start), type: 0)]
        var pauses = (record.pauses ?? [])[...]
        let heartRates = record.heartRateSamples
        let machine = record.machineSamples
        /// The average and maximum heart rate of `samples`; none (the fields' invalid values) without one.
        func heartRate(_ samples: [HeartRateSample]) -> (average: FITValue?, maximum: FITValue?) {
            guard let summary = HeartRateSample.summary(of: samples) else { return (nil, nil) }
            return (fitHeartRate(summary.average), fitHeartRate(summary.maximum))
        }
        for (index, lap) in laps.enumerated() {
            messages.append(FIT.Record.message([.timestamp: .integer(time(lap.start))]))
            // The sensors' samples of the lap: those from its start to the next lap's, and for the first and the last
            // lap those before and after (the history keeps milliseconds from the workout's start).
            let from = index == 0 ? Int64.min : lap.start
            let to = index == laps.count - 1 ? Int64.max : laps[index + 1].start
            let lapSamples = heartRates.filter { $0.wall >= from && $0.wall < to }
            messages += records(
                heartRates: lapSamples, machine: machine.filter { $0.wall >= from && $0.wall < to },
                withHeartRate: !heartRates.isEmpty, withMachine: !machine.isEmpty, time: time)
            // The pauses in the lap, in order of time: before the lap's message, which is written at its end.
            while let pause = pauses.first, pause.startWall < lap.start + lap.elapsed {
                messages += [event(at: time(pause.startWall), type: 4), event(at: time(pause.endWall), type: 0)]
                pauses.removeFirst()
            }
            let lapHeartRate = heartRate(lapSamples)
            let lapMachine = MachineFields(MachineSample.summary(of: machine, from: from, to: to))
            messages.append(
                FIT.Lap.message([
                    .messageIndex: .integer(Int64(index)), .timestamp: .integer(time(lap.start + lap.elapsed)),
                    .startTime: .integer(time(lap.start)), .totalElapsedTime: .integer(milliseconds(lap.elapsed)),
                    .totalTimerTime: .integer(milliseconds(lap.timer)), .event: .integer(9), .eventType: .integer(1),
                    .lapTrigger: .integer(0), .sport: .integer(sport), .subSport: .integer(subSport),
                    .avgHeartRate: lapHeartRate.average, .maxHeartRate: lapHeartRate.maximum,
                    .totalDistance: lapMachine.distance, .avgSpeed: lapMachine.averageSpeed,
                    .maxSpeed: lapMachine.maximumSpeed, .avgPower: lapMachine.averagePower,
                    .maxPower: lapMachine.maximumPower, .avgCadence: lapMachine.averageCadence,
                    .maxCadence: lapMachine.maximumCadence,
                ]))
        }
        for pause in pauses {
            messages += [event(at: time(pause.startWall), type: 4), event(at: time(pause.endWall), type: 0)]
        }
        messages.append(FIT.Record.message([.timestamp: .integer(time(end))]))
        let sessionHeartRate = heartRate(heartRates)
        let sessionMachine = MachineFields(MachineSample.summary(of: machine))
        messages.append(event(at: time(end), type: 4))
        messages.append(
            FIT.Session.message([
                .messageIndex: .integer(0), .timestamp: .integer(time(end)), .startTime: .integer(time(start)),
                .totalElapsedTime: .integer(milliseconds(end - start)), .totalTimerTime: .integer(milliseconds(timer)),
                .sport: .integer(sport), .subSport: .integer(subSport), .firstLapIndex: .integer(0),
                .numLaps: .integer(Int64(laps.count)), .event: .integer(8), .eventType: .integer(1),
                .trigger: .integer(0), .avgHeartRate: sessionHeartRate.average, .maxHeartRate: sessionHeartRate.maximum,
                .totalDistance: sessionMachine.distance, .avgSpeed: sessionMachine.averageSpeed,
                .maxSpeed: sessionMachine.maximumSpeed, .avgPower: sessionMachine.averagePower,
                .maxPower: sessionMachine.maximumPower, .avgCadence: sessionMachine.averageCadence,
                .maxCadence: sessionMachine.maximumCadence,
            ]))
        messages.append(
            FIT.Activity.message([
                .timestamp: .integer(time(end)), .totalTimerTime: .integer(milliseconds(timer)),
                .numSessions: .integer(1), .type: .integer(0), .event: .integer(26), .eventType: .integer(1),
            ]))
        return FIT.encode(messages)
    }

    /// A `record` a second of the sensors' samples, the strap's and the machine's of one second together. The heart
    /// rate only in an activity with a strap, the machine's fields only in one with a machine: the records then share
    /// one definition, and a strap's activity keeps its records' size.
    private static func records(
        heartRates: [HeartRateSample], machine: [MachineSample], withHeartRate: Bool, withMachine: Bool,
        time: (Int64) -> Int64
    ) -> [FITMessage] {
        var seconds: [Int64: (bpm: Int?, reading: MachineReading?)] = [:]
        for sample in heartRates { seconds[time(sample.wall), default: (nil, nil)].bpm = sample.bpm }
        for sample in machine { seconds[time(sample.wall), default: (nil, nil)].reading = sample.reading }
        return seconds.sorted { $0.key < $1.key }.map { second, sample in
            var values: [(field: FIT.Record, value: FITValue?)] = [(.timestamp, .integer(second))]
            if withHeartRate { values.append((.heartRate, sample.bpm.map(fitHeartRate))) }
            if withMachine {
                let reading = sample.reading
                values += [
                    (.cadence, fitValue(reading?.cadence, scale: 1, as: .uint8)),
                    (.distance, fitValue(reading?.distance.map(Double.init), scale: 100, as: .uint32)),
                    (.speed, fitValue(reading?.speed, scale: 1000 / 3.6, as: .uint16)),
                    (.power, fitValue(reading?.power.map(Double.init), scale: 1, as: .uint16)),
                ]
            }
            return FIT.Record.message(values)
        }
    }

    /// A machine's summary as a lap's or the session's fields, in FIT's units (docs/fit.md): none (the fields'
    /// invalid values) for what it did not measure.
    private struct MachineFields {
        var distance, averageSpeed, maximumSpeed, averagePower, maximumPower, averageCadence, maximumCadence: FITValue?

        init(_ summary: MachineSummary?) {
            distance = fitValue(summary?.distance.map(Double.init), scale: 100, as: .uint32)
            averageSpeed = fitValue(summary?.averageSpeed, scale: 1000 / 3.6, as: .uint16)
            maximumSpeed = fitValue(summary?.maximumSpeed, scale: 1000 / 3.6, as: .uint16)
            averagePower = fitValue(summary?.averagePower.map(Double.init), scale: 1, as: .uint16)
            maximumPower = fitValue(summary?.maximumPower.map(Double.init), scale: 1, as: .uint16)
            averageCadence = fitValue(summary?.averageCadence.map(Double.init), scale: 1, as: .uint8)
            maximumCadence = fitValue(summary?.maximumCadence.map(Double.init), scale: 1, as: .uint8)
        }
    }

    /// `value` times `scale`, rounded, as an unsigned field of `type` holds it: from 0 to one below its invalid value
    /// (km/h times 1000 / 3.6 is FIT's speed in mm/s, metres times 100 its distance in cm).
    private static func fitValue(_ value: Double?, scale: Double, as type: FIT.BaseType) -> FITValue? {
        guard let value, value.isFinite else { return nil }
        return .integer(Int64(min(max((value * scale).rounded(), 0), Double(type.invalid - 1))))
    }

    /// A lap of an activity: its start (µs since the Unix epoch), its length with pauses, and its time without.
    struct Lap: Equatable {
        var start: Int64
        var elapsed: Int64
        var timer: Int64
    }

    /// `record`'s laps: its segments as played, or, in a record without them, the plan's segments at their offsets
    /// up to the time done (one lap when the plan is gone).
    static func laps(of record: HistoryRecord, plan: Plan?) -> [Lap] {
        if let segments = record.segments, !segments.isEmpty {
            return segments.map { Lap(start: $0.startWall, elapsed: $0.endWall - $0.startWall, timer: $0.played) }
        }
        let done = record.doneDuration + (record.skipped ?? 0)
        guard let plan, plan.duration > 0 else { return [Lap(start: record.startWall, elapsed: done, timer: done)] }
        var laps: [Lap] = []
        for segment in plan.segments {
            guard segment.start < done || laps.isEmpty else { break }
            let length = min(segment.end, max(done, segment.start)) - segment.start
            laps.append(Lap(start: record.startWall + segment.start, elapsed: length, timer: length))
        }
        return laps
    }

    /// An `event` of the timer: `type` 0 start, 4 stop all.
    private static func event(at time: Int64, type: Int64) -> FITMessage {
        FIT.Event.message([.timestamp: .integer(time), .event: .integer(0), .eventType: .integer(type)])
    }

    /// A file name for `record`'s activity: its start and its plan, "2026-11-23 07-30 Galloway 30-30.fit".
    public static func fileName(of record: HistoryRecord) -> String {
        let when = record.start.prefix(16).replacing("T", with: " ").replacing(":", with: "-")
        return FIT.fileName(for: "\(when) \(record.plan)", extension: "fit")
    }

    // MARK: CSV

    /// The CSV columns: the history's fields by their names in history.jsonl (docs/reference.md §5).
    public static let csvColumns =
        [
            "id", "plan", "origin", "start", "end", "start_wall_us", "planned_us", "done_us", "skipped_us",
            "segments_done",
            "result", "reason", "program", "day", "slept_us", "time_per_kind_us", "end_wall_us", "paused_us",
            "segments_us", "avg_heart_rate", "max_heart_rate",
        ] + MachineSummary.CodingKeys.allCases.map(\.stringValue)

    /// The records as CSV (RFC 4180: a header row, then a row per workout, CRLF line ends, fields with a comma, a
    /// quote or a line end quoted): numbers as integers, times as ISO 8601, whatever the locale; time per kind as
    /// `kind=µs` pairs joined by `;`, in order of kind; the segments as played as `kind=µs` pairs (their time without
    /// pauses) joined by `;`, in the order they were played (empty in a record written before they were kept); the
    /// strap's average and maximum heart rate in bpm (empty without one); what the machine measured, as its
    /// `machine_summary` says it (a speed in km/h with two decimals; each empty when it did not say it).
    public static func csv(_ records: [HistoryRecord]) -> String {
        var lines = [csvColumns.joined(separator: ",")]
        for record in records {
            let fields: [String] =
                [
                    record.id, record.plan, record.origin, record.start, record.end, "\(record.startWall)",
                    "\(record.plannedDuration)", "\(record.doneDuration)", record.skipped.map { "\($0)" } ?? "",
                    "\(record.segmentsDone)", record.result.rawValue, record.reason ?? "", record.program ?? "",
                    record.day ?? "", record.slept.map { "\($0)" } ?? "",
                    record.timePerKind.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                        separator: ";"),
                    record.endWall.map { "\($0)" } ?? "",
                    record.pauses.map { "\($0.reduce(0) { $0 + $1.endWall - $1.startWall })" } ?? "",
                    (record.segments ?? []).map { "\($0.kind)=\($0.played)" }.joined(separator: ";"),
                    record.averageHeartRate.map { "\($0)" } ?? "", record.maximumHeartRate.map { "\($0)" } ?? "",
                ] + MachineSummary.CodingKeys.allCases.map { record.machineSummary?.csvText($0) ?? "" }
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}

extension MachineSummary {
    /// The value under `key` as the CSV writes it, "" when there is none.
    fileprivate func csvText(_ key: CodingKeys) -> String {
        func text(_ value: Int?) -> String { value.map { "\($0)" } ?? "" }
        func text(_ value: Double?) -> String { value.map { PlanReport.fixed($0, digits: 2) } ?? "" }
        switch key {
        case .distance: return text(distance)
        case .averageSpeed: return text(averageSpeed)
        case .maximumSpeed: return text(maximumSpeed)
        case .averagePower: return text(averagePower)
        case .maximumPower: return text(maximumPower)
        case .averageCadence: return text(averageCadence)
        case .maximumCadence: return text(maximumCadence)
        }
    }
}

/// A heart rate as FIT's one-byte field holds it: 255 is the field's "no value", so a higher one is 254.
private func fitHeartRate(_ bpm: Int) -> FITValue {
    .integer(Int64(min(bpm, 254)))
}

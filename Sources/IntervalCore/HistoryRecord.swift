/// One finished, stopped or interrupted workout: a line of `$XDG_STATE_HOME/intervald/history.jsonl` (docs/reference.md
/// §5).
public struct HistoryRecord: Sendable, Equatable, Codable {
    public enum Result: String, Sendable, Equatable, Codable {
        case finished, stopped, interrupted
    }

    public var id: String
    public var plan: String
    public var origin: String
    /// ISO 8601 with the local offset: `2026-11-23T07:30:00+01:00`.
    public var start: String
    public var end: String
    /// µs since the Unix epoch, for filtering without parsing dates.
    public var startWall: Int64
    public var plannedDuration: Int64
    /// µs of the plan done: played, never skipped.
    public var doneDuration: Int64
    public var segmentsDone: Int64
    /// µs per segment kind, of what was done.
    public var timePerKind: [String: Int64]
    /// µs of the plan passed over by skips (docs/reference.md §5); null in records written before it was kept.
    @NullWhenAbsent public var skipped: Int64?
    /// The plan's steps the person ends, not in ``plannedDuration``; null in records written before it was kept.
    @NullWhenAbsent public var openSteps: Int64?
    public var result: Result
    /// The stop reason, for `stopped`; written as null otherwise, so that every record has the same keys.
    @NullWhenAbsent public var reason: String?
    /// The training program and its day (`3.2`) the workout was, or null (docs/programs.md); absent in older records.
    @NullWhenAbsent public var program: String?
    @NullWhenAbsent public var day: String?
    /// The text of a one-line plan (one started from text, with no file: `intervalctl start -e`, the overview search),
    /// so that it can be started again; null for a plan with a file, which is read again from it.
    @NullWhenAbsent public var text: String?
    /// How long the computer slept during the workout (µs), or null when it did not (docs/reference.md §6); absent in
    /// older records.
    @NullWhenAbsent public var slept: Int64?
    /// When it ended, µs since the Unix epoch; absent in records written before the segments' instants were kept.
    @NullWhenAbsent public var endWall: Int64?
    /// Each segment as it was played, in order (at most ``maximumSegments``); absent in older records.
    @NullWhenAbsent public var segments: [PlayedSegment]?
    /// The pauses, in order; absent in older records.
    @NullWhenAbsent public var pauses: [Pause]?
    /// The strap's heart rate, a sample a second: `[milliseconds from the start, bpm]`; absent without a strap.
    public var heartRate: [[Int64]]?
    /// The average and the maximum of ``heartRate``, in bpm.
    public var averageHeartRate: Int?
    public var maximumHeartRate: Int?
    /// The machine's readings (docs/machines.md), a sample a second, its distance counted from the workout's first
    /// reading of one; absent without a machine.
    public var machine: [MachinePoint]?
    /// What the machine measured over the workout; absent without a machine.
    public var machineSummary: MachineSummary?

    /// A segment as it was played: its real start and end, µs since the Unix epoch, and the time paused in between.
    public struct PlayedSegment: Sendable, Equatable, Codable {
        public var index: Int64
        public var kind: String
        public var label: String
        public var startWall: Int64
        public var endWall: Int64
        public var paused: Int64
        /// The heart rate's average and maximum while it was played, in bpm; absent without a strap.
        public var averageHeartRate: Int?
        public var maximumHeartRate: Int?
        /// What the machine measured while it was played; absent without a machine.
        public var machineSummary: MachineSummary?

        /// The time it was played: its length less its pauses.
        public var played: Int64 { endWall - startWall - paused }

        enum CodingKeys: String, CodingKey {
            case index, kind, label
            case startWall = "start_wall_us", endWall = "end_wall_us", paused = "paused_us"
            case averageHeartRate = "avg_heart_rate", maximumHeartRate = "max_heart_rate"
            case machineSummary = "machine_summary"
        }
    }

    /// A machine's reading in the history: its time from the workout's start, in ms, and what it said, each field
    /// left out when it said nothing of it: `{"ms": 1000, "speed": 12.0, "distance": 3, "incline": 1.0}`.
    public struct MachinePoint: Sendable, Equatable, Codable {
        public var milliseconds: Int64
        public var reading: MachineReading

        public init(milliseconds: Int64, reading: MachineReading) {
            (self.milliseconds, self.reading) = (milliseconds, reading)
        }

        enum CodingKeys: String, CodingKey {
            case milliseconds = "ms"
        }

        // The reading's fields beside the time, in one object.
        public init(from decoder: any Decoder) throws {
            milliseconds = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .milliseconds)
            reading = try MachineReading(from: decoder)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(milliseconds, forKey: .milliseconds)
            try reading.encode(to: encoder)
        }
    }

    /// A pause, µs since the Unix epoch.
    public struct Pause: Sendable, Equatable, Codable {
        public var startWall: Int64
        public var endWall: Int64

        enum CodingKeys: String, CodingKey {
            case startWall = "start_wall_us", endWall = "end_wall_us"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, plan, origin, start, end, result, reason, program, day
        case text, segments, pauses
        case slept = "slept_us", skipped = "skipped_us", endWall = "end_wall_us", openSteps = "open_steps"
        case startWall = "start_wall_us", plannedDuration = "planned_us", doneDuration = "done_us"
        case segmentsDone = "segments_done", timePerKind = "time_per_kind_us"
        case heartRate = "heart_rate", averageHeartRate = "avg_heart_rate", maximumHeartRate = "max_heart_rate"
        case machine, machineSummary = "machine_summary"
    }

    public init(
        id: String, plan: String, origin: String, start: String, end: String, startWall: Int64,
        plannedDuration: Int64, doneDuration: Int64, segmentsDone: Int64, timePerKind: [String: Int64],
        result: Result, reason: String?, program: ProgramDayReference? = nil
    ) {
        self.id = id
        self.plan = plan
        self.origin = origin
        self.start = start
        self.end = end
        self.startWall = startWall
        self.plannedDuration = plannedDuration
        self.doneDuration = doneDuration
        self.segmentsDone = segmentsDone
        self.timePerKind = timePerKind
        self.result = result
        self.reason = reason
        self.program = program?.program
        day = program?.day.description
    }

    /// The record of `plan` played for its first `elapsed` microseconds; the times as the caller words them. `track`
    /// is what happened, on the wall clock (µs since the Unix epoch): the time done, per kind and per segment, is what
    /// its runs played; without one, the plan's first `elapsed` microseconds less what was skipped.
    public init(
        workout: WorkoutIdentity, plan: Plan, elapsed: Int64, start: String, end: String, result: Result,
        reason: StopReason?, skipped: [String: Int64] = [:], slept: Int64 = 0, track: WorkoutTrack? = nil,
        heartRates: [HeartRateSample] = [], machineSamples: [MachineSample] = []
    ) {
        let played = plan.summary(playedFor: elapsed)
        let skippedDuration = min(skipped.values.reduce(0, +), played.duration)
        var timePerKind: [String: Int64] = [:]
        let done: Int64
        if let track, !track.runs.isEmpty {
            for run in track.runs {
                guard let to = run.to else { continue }
                if run.held == true {
                    // An open step: the plan stood still, and the step lasted as long as the run.
                    if let end = run.end, let kind = plan.segment(at: run.from)?.kind {
                        timePerKind[kind, default: 0] += end - run.start
                    }
                    continue
                }
                for (kind, time) in plan.kindDurations(from: run.from, to: to) { timePerKind[kind, default: 0] += time }
            }
            done = timePerKind.values.reduce(0, +)
        } else {
            timePerKind = Dictionary(played.kindDurations.map { ($0.kind, $0.duration) }, uniquingKeysWith: +)
            for (kind, time) in skipped {
                timePerKind[kind] = max((timePerKind[kind] ?? 0) - time, 0)
            }
            done = played.duration - skippedDuration
        }
        self.init(
            id: workout.id, plan: plan.name, origin: workout.origin, start: start, end: end,
            startWall: workout.startedWall, plannedDuration: plan.duration, doneDuration: done,
            segmentsDone: played.segmentCount, timePerKind: timePerKind.filter { $0.value > 0 }, result: result,
            reason: reason?.rawValue, program: workout.program)
        self.skipped = skippedDuration
        openSteps = plan.openStepCount
        self.slept = slept > 0 ? slept : nil
        if let track, !track.runs.isEmpty {
            endWall = track.ended ?? track.runs.last?.end
            segments = track.segments(of: plan, limit: Self.maximumSegments).map {
                PlayedSegment(
                    index: $0.segment.index, kind: $0.segment.kind, label: $0.segment.label, startWall: $0.start,
                    endWall: $0.end, paused: $0.paused)
            }
            pauses = track.pauses.map { Pause(startWall: $0.start, endWall: $0.end) }
        }
        text =
            workout.origin.isEmpty && !workout.text.isEmpty && workout.text.utf8.count <= Self.maximumText
            ? workout.text : nil
        keep(heartRates)
        keep(machineSamples)
    }

    /// Keeps the strap's samples, and their average and maximum for the workout and each segment.
    private mutating func keep(_ samples: [HeartRateSample]) {
        guard let whole = HeartRateSample.summary(of: samples) else { return }
        heartRate = samples.map { [($0.wall - startWall) / 1_000, Int64($0.bpm)] }
        (averageHeartRate, maximumHeartRate) = (whole.average, whole.maximum)
        segments = segments?.map { segment in
            var segment = segment
            let part = HeartRateSample.summary(of: samples, from: segment.startWall, to: segment.endWall)
            (segment.averageHeartRate, segment.maximumHeartRate) = (part?.average, part?.maximum)
            return segment
        }
    }

    /// Keeps the machine's samples, their distance counted from the first, and what they measured over the workout and
    /// each segment.
    private mutating func keep(_ samples: [MachineSample]) {
        let counted = MachineSample.countingDistanceFromTheFirst(samples)
        guard !counted.isEmpty else { return }
        machine = counted.map { MachinePoint(milliseconds: ($0.wall - startWall) / 1_000, reading: $0.reading) }
        machineSummary = MachineSample.summary(of: counted)
        segments = segments?.map { segment in
            var segment = segment
            segment.machineSummary = MachineSample.summary(of: counted, from: segment.startWall, to: segment.endWall)
            return segment
        }
    }

    /// ``machine`` as samples on the wall clock.
    public var machineSamples: [MachineSample] {
        (machine ?? []).map { MachineSample(wall: startWall + $0.milliseconds * 1_000, reading: $0.reading) }
    }

    /// ``heartRate`` as samples on the wall clock.
    public var heartRateSamples: [HeartRateSample] {
        (heartRate ?? []).compactMap { pair in
            guard pair.count == 2 else { return nil }
            return HeartRateSample(wall: startWall + pair[0] * 1_000, bpm: Int(clamping: pair[1]))
        }
    }

    /// The most segments a record lists: a workout of more keeps its first ones, the last entry running on to its end
    /// (a FIT activity has at most 65 535 laps, and a line of the history stays small).
    public static let maximumSegments = 10_000

    /// The longest one-line plan text a record keeps: a one-line plan is short; a long text sent over the bus is not
    /// copied into every history line.
    public static let maximumText = 4096

    /// "2:02 of 24:00" for a workout of a timed plan; "2:02" alone for one with steps the person ends, whose plan has
    /// no time to set it against. Whole seconds, so that the time done and the time skipped add up to the plan's.
    public var doneText: String {
        let done = TimeText.clockToTheSecond(microseconds: doneDuration)
        guard (openSteps ?? 0) == 0 else { return done }
        return tr("{done} of {planned}", ["done": done, "planned": TimeText.clock(microseconds: plannedDuration)])
    }

    /// The strap's average heart rate, "♥ 128 avg", as the history lists a workout; nil without one.
    public var heartRateText: String? {
        averageHeartRate.map { tr("♥ {bpm} avg", ["bpm": "\($0)"]) }
    }

    /// What the machine measured, as the history lists a workout: its average power on a bike ("210 W avg"), else its
    /// average speed ("10.4 km/h avg"), then the distance ("5.20 km"), joined by " · "; nil without a machine.
    public var machineText: String? {
        guard let summary = machineSummary else { return nil }
        var parts: [String] = []
        if let power = summary.averagePower {
            parts.append(tr("{watts} W avg", ["watts": "\(power)"]))
        } else if let speed = summary.averageSpeed {
            parts.append(tr("{speed} km/h avg", ["speed": PlanReport.format1(speed)]))
        }
        if let distance = summary.distance, distance > 0 {
            parts.append(tr("{distance} km", ["distance": PlanReport.format2(Double(distance) / 1000)]))
        }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The time skipped, in whole seconds as ``doneText`` rounds it: "0:12"; nil when none was.
    public var skippedText: String? {
        guard let skipped, skipped > 0 else { return nil }
        let wholeSeconds = (doneDuration + skipped) / 1_000_000 - doneDuration / 1_000_000
        return TimeText.clock(microseconds: wholeSeconds * 1_000_000)
    }

    /// A program's day counts as done when its workout finished with at least three quarters of its planned time
    /// done, not skipped (docs/programs.md): a skipped warm-up still counts, a day skipped through does not.
    public var countsAsProgramDay: Bool {
        result == .finished && doneDuration * 4 >= plannedDuration * 3
    }
}

extension HistoryRecord {
    /// The workout's name as the reader reads it: a program's day named in the reader's language ("Couch to 5K ·
    /// Woche 1, Tag 1"), since the record keeps the name in the language of the daemon that recorded it; a one-line
    /// plan in words (``PlanReport/readableName(_:)``); any other
    /// plan's name is its author's.
    public var displayName: String {
        guard program != nil, let day = day.flatMap(ProgramDay.init), let separator = plan.ranges(of: " · ").last
        else { return PlanReport.readableName(plan) }
        return Program.dayName(program: String(plan[..<separator.lowerBound]), day: day)
    }

    /// How the workout ended, as `intervalctl history` and the window say it: "finished", "stopped by you". The file
    /// keeps the reason's id (`user`); a person reads a sentence.
    public var resultText: String {
        switch result {
        case .finished: return tr("finished")
        case .interrupted: return tr("interrupted")
        case .stopped: break
        }
        switch reason.flatMap(StopReason.init(rawValue:)) {
        // TRANSLATORS: how a workout ended: the person stopped it (the window, intervalctl, Ctrl+C).
        case .user: return tr("stopped by you")
        // TRANSLATORS: how a workout ended: by the Stop button of its notification.
        case .notification: return tr("stopped from its notification")
        // TRANSLATORS: how a workout ended: another plan was started in its place.
        case .replaced: return tr("replaced by another plan")
        // TRANSLATORS: how a workout ended: the computer or the timer service was shut down.
        case .shutdown: return tr("stopped by a shutdown")
        case nil: return tr("stopped ({reason})", ["reason": reason ?? "?"])
        }
    }

    /// When it started, to the minute, in the recorded local time: "2026-11-25 16:33".
    public var startText: String {
        String(start.prefix(16)).replacing("T", with: " ")
    }
}

/// Who a workout is, beyond its plan: what the state file and the history keep.
public struct WorkoutIdentity: Sendable, Equatable {
    public var id: String
    /// The plan text as started ("" for a plan started from a parsed value, as `intervalctl run` does).
    public var text: String
    public var origin: String
    /// µs since the Unix epoch.
    public var startedWall: Int64
    /// The program's day this workout is, if it is one.
    public var program: ProgramDayReference?

    public init(id: String, text: String, origin: String, startedWall: Int64, program: ProgramDayReference? = nil) {
        self.id = id
        self.text = text
        self.origin = origin
        self.startedWall = startedWall
        self.program = program
    }

    /// A fresh id: the start time and a random suffix, so that ids sort by time and never collide.
    public static func newID(startedWall: Int64) -> String {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return String(startedWall, radix: 10) + "-" + String(repeating: "0", count: 8 - suffix.count) + suffix
    }
}

extension Plan {
    /// Totals of the plan's first `elapsed` microseconds: time, segments begun, time per kind.
    func summary(playedFor elapsed: Int64) -> PlanSummary {
        root.summary(until: min(max(elapsed, 0), duration))
    }

    /// µs per kind of the plan between the offsets `from` and `to`.
    func kindDurations(from: Int64, to: Int64) -> [String: Int64] {
        var durations: [String: Int64] = [:]
        for entry in summary(playedFor: to).kindDurations { durations[entry.kind, default: 0] += entry.duration }
        for entry in summary(playedFor: from).kindDurations { durations[entry.kind, default: 0] -= entry.duration }
        return durations.filter { $0.value > 0 }
    }
}

/// An optional value that JSON gets as `null` when it is absent, instead of leaving its key out.
@propertyWrapper
public struct NullWhenAbsent<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A missing key reads as absent too, so that records written before a field existed still read.
    public func decode<Value>(_ type: NullWhenAbsent<Value>.Type, forKey key: Key) throws -> NullWhenAbsent<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullWhenAbsent(wrappedValue: nil)
    }
}

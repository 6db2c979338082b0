/// What really happened in a workout, on the scheduler's clock: the runs of its schedule (each a stretch of real time
/// in which the plan advanced at real speed from one offset to another) and, between them, the pauses. A start, a
/// resume, a skip and a restarted interval begin a run; a pause, a skip, a restart, a stop and the finish end one. A
/// timer cue changes nothing, so the track grows only with what a person did, and a crash-resumed workout continues
/// the run it was in. While a step the person ends plays, the plan stands still at its offset: that run is *held*,
/// and its real length is the step's.
///
/// From it come each segment's real start and end and the time paused in it (``segments(of:limit:)``): what the
/// history keeps, and what a training log's laps are made of (docs/fit.md), instead of the plan's offsets.
public struct WorkoutTrack: Sendable, Equatable, Codable {
    /// A stretch of real time in which the plan ran from `from` on, or, held, stood at `from` in an open step.
    public struct Run: Sendable, Equatable, Codable {
        public var start: ClockInstant
        /// µs into the plan where it began.
        public var from: Int64
        /// When it ended, and where the plan stood then; nil while it goes on.
        public var end: ClockInstant?
        public var to: Int64?
        /// True while an open step played (the plan stood still at `from`); absent otherwise.
        public var held: Bool?

        enum CodingKeys: String, CodingKey {
            case start = "start_us", from = "from_us", end = "end_us", to = "to_us", held
        }
    }

    /// A segment as it was played: when it began and ended (the first entry into it and the last moment in it) and how
    /// long it was paused in between.
    public struct PlayedSegment: Sendable, Equatable {
        public var segment: Segment
        public var start: ClockInstant
        public var end: ClockInstant
        public var paused: Int64

        /// The time it was played: its length less its pauses.
        public var played: Int64 { end - start - paused }
    }

    public private(set) var runs: [Run] = []
    /// When the workout ended (stopped or finished); nil while it goes on.
    public private(set) var ended: ClockInstant?

    enum CodingKeys: String, CodingKey {
        case runs, ended = "ended_us"
    }

    public init() {}

    /// The plan starts running at `from` at `instant` (after the run going on, if any, was ended); `held`: it stands
    /// there, in an open step.
    mutating func begin(at instant: ClockInstant, from offset: Int64, held: Bool = false) {
        runs.append(Run(start: instant, from: offset, held: held ? true : nil))
    }

    /// Where the plan stands in an open step, and how long that step has played by `now` (its held runs at that
    /// offset, back to the last run that was not one): nil unless the track ends in a held run. What a resumed
    /// workout continues.
    public func holding(at now: ClockInstant) -> (offset: Int64, played: Int64)? {
        guard let last = runs.last, last.held == true else { return nil }
        var played: Int64 = 0
        for run in runs.reversed() {
            guard run.held == true, run.from == last.from else { break }
            played += (run.end ?? max(now, run.start)) - run.start
        }
        return (last.from, played)
    }

    /// The run going on ends at `instant`, with the plan at `offset`; nothing when none goes on. A run that began at
    /// that very instant (a skip, then a restart) never ran: it is dropped.
    mutating func end(at instant: ClockInstant, at offset: Int64) {
        guard let last = runs.indices.last, runs[last].end == nil else { return }
        guard instant > runs[last].start else {
            runs.removeLast()
            return
        }
        runs[last].end = instant
        runs[last].to = max(offset, runs[last].from)
    }

    /// The workout ended at `instant`, the plan at `offset`.
    public mutating func finish(at instant: ClockInstant, at offset: Int64) {
        end(at: instant, at: offset)
        ended = max(instant, runs.last?.end ?? instant)
    }

    /// Every instant and offset in it.
    var times: [Int64] {
        runs.flatMap { [$0.start, $0.from, $0.end ?? 0, $0.to ?? 0] } + [ended ?? 0]
    }

    /// The same track with every instant moved by `offset` (from one clock to another).
    public func shifted(by offset: Int64) -> WorkoutTrack {
        var track = self
        for index in track.runs.indices {
            track.runs[index].start += offset
            track.runs[index].end = track.runs[index].end.map { $0 + offset }
        }
        track.ended = ended.map { $0 + offset }
        return track
    }

    /// The pauses: the real time between one run and the next, and from the last run to the end.
    public var pauses: [(start: ClockInstant, end: ClockInstant)] {
        var pauses: [(start: ClockInstant, end: ClockInstant)] = []
        for (run, next) in zip(runs, runs.dropFirst()) {
            if let end = run.end, next.start > end { pauses.append((end, next.start)) }
        }
        if let end = runs.last?.end, let ended, ended > end { pauses.append((end, ended)) }
        return pauses
    }

    /// How long the steps the person ends have played by `now`: the real length of the held runs.
    public func heldTime(until now: ClockInstant) -> Int64 {
        runs.reduce(0) { total, run in
            run.held == true ? total + max((run.end ?? max(now, run.start)) - run.start, 0) : total
        }
    }

    /// The time from the first run's start to the end (or the last run's end).
    public var elapsed: Int64 {
        guard let first = runs.first else { return 0 }
        return (ended ?? runs.last?.end ?? first.start) - first.start
    }

    /// Each segment of `plan` as it was played, in order, the ones a skip passed over entirely left out; a segment
    /// entered again (a restarted interval, a pause) is one entry, from its first start to its last end. At most
    /// `limit` entries: the last one then runs to the end of the workout's played time, so that no time is lost.
    public func segments(of plan: Plan, limit: Int = .max) -> [PlayedSegment] {
        var played: [PlayedSegment] = []
        func add(_ segment: Segment, from start: ClockInstant, to end: ClockInstant) {
            if let last = played.indices.last, played[last].segment.index == segment.index || played.count >= limit {
                played[last].paused += max(start - played[last].end, 0)
                played[last].end = max(end, played[last].end)
            } else {
                played.append(PlayedSegment(segment: segment, start: start, end: end, paused: 0))
            }
        }
        for run in runs {
            guard let end = run.end, run.from >= 0 else { continue }
            if run.held == true {
                if let segment = plan.segment(at: run.from) { add(segment, from: run.start, to: end) }
                continue
            }
            guard let to = run.to, to > run.from else { continue }
            var segment = plan.segment(at: run.from)
            while let current = segment, current.start < to {
                let start = run.start + max(current.start, run.from) - run.from
                add(current, from: start, to: min(run.start + min(current.end, to) - run.from, end))
                segment = plan.segment(after: current)
            }
        }
        return played
    }
}

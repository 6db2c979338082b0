/// Microseconds per unit, the plan language's one time base.
public enum Micros {
    public static let millisecond: Int64 = 1000
    public static let second: Int64 = 1_000_000
    public static let minute: Int64 = 60 * second
    public static let hour: Int64 = 60 * minute
    public static let day: Int64 = 24 * hour
}

/// The limits of docs/reference.md §1, each with its own diagnostic.
public enum PlanLimits {
    public static let maximumNesting = 32
    public static let maximumRepeatCount = 100_000
    public static let maximumDuration: Int64 = 7 * Micros.day
    /// Steps, `for` bounds and the countdown (docs/reference.md §5).
    public static let minimumStepDuration: Int64 = Micros.millisecond
    /// `SegmentIndex` and `SegmentCount` are `u` on the bus: a plan with more segments is refused, never clamped.
    public static let maximumSegmentCount = Int64(UInt32.max)
}

/// How a step ends (docs/plan-language.md): when its time is up, or when the person ends it.
public enum StepLength: Sendable, Equatable {
    /// `30s run`: microseconds.
    case time(Int64)
    /// `0.4km run`: metres, timed by the step's pace (`@ 5:00/km`, the microseconds it gives), or, without one,
    /// ended by the person once the distance is covered.
    case distance(Double, time: Int64?)
    /// `open run`: the person ends it.
    case open
    /// `hr<120 walk`: the first heart-rate measurement past the bound ends it, or the person, without a strap.
    case heartRate(HeartRateBound)

    /// What a reader of plan text or a FIT file gathered: a time, the person's end, and the distance written.
    init(time: Int64, isOpen: Bool, distance: Double?) {
        self = distance.map { .distance($0, time: isOpen ? nil : time) } ?? (isOpen ? .open : .time(time))
    }

    /// Microseconds for a timed step; nil for one the person ends, which lasts as long as it is played.
    public var time: Int64? {
        switch self {
        case .time(let time): time
        case .distance(_, let time): time
        case .open, .heartRate: nil
        }
    }

    /// Metres, for a step written as a distance.
    public var distance: Double? {
        if case .distance(let metres, _) = self { metres } else { nil }
    }

    /// The heart rate that ends a step written `hr<N` or `hr>N`.
    public var heartRateBound: HeartRateBound? {
        if case .heartRate(let bound) = self { bound } else { nil }
    }
}

/// One `DURATION KIND ["Label"] [@ TARGET]` line of a plan, or a step the person ends: `open KIND …`, or a distance
/// without a pace (`0.4km run`).
public struct Step: Sendable, Equatable {
    public let kind: String
    public let label: String
    public let length: StepLength
    /// What it is held at: a pace, a power or a heart-rate range (`@ 5:00/km`, `@ 200W`, `@ 130-150bpm`).
    public let target: StepTarget?

    public init(kind: String, label: String? = nil, length: StepLength, target: StepTarget? = nil) {
        self.kind = kind
        self.label = label ?? Step.defaultLabel(for: kind)
        self.length = length
        self.target = target
    }

    /// A timed step of `duration` microseconds.
    public init(kind: String, label: String? = nil, duration: Int64, target: StepTarget? = nil) {
        self.init(kind: kind, label: label, length: .time(duration), target: target)
    }

    /// Its pace, the one target that times a distance and gives a plan's distance.
    public var pace: Pace? { target?.pace }

    /// Microseconds, 0 for a step the person ends: what every total adds up.
    public var duration: Int64 { length.time ?? 0 }
    /// The person ends it (docs/plan-language.md): no clock does.
    public var isOpen: Bool { length.time == nil }
    /// Metres, for a step written as a distance (`0.4km run`): timed by its pace, or open without one.
    public var distance: Double? { length.distance }
    /// The heart rate that ends it (`hr<120 walk`).
    public var heartRateBound: HeartRateBound? { length.heartRateBound }

    /// Where a step the person ends stands on the plan's timeline, which orders the segments by the time of the timed
    /// steps before them: a microsecond of the timeline, so that it is a segment of its own with a place. It is never
    /// a time: every total is the steps' ``duration``, and the plan's ``Plan/duration`` is its timed steps' time.
    public static let timelineSlot: Int64 = 1

    /// The step's extent on the plan's timeline: its time, or ``timelineSlot``.
    var span: Int64 { length.time ?? Self.timelineSlot }

    /// Metres covered in its first `span` µs of timeline: by its pace, or, for an open step of a distance, the
    /// distance once it began; nil when nothing says (no pace, or an open step without a distance).
    func distance(in span: Int64) -> Double? {
        if isOpen { return distance.map { span > 0 ? $0 : 0 } }
        return pace?.distance(in: span)
    }

    /// The kind as a word: `run` → `Run`, and the two kinds English writes with a hyphen, `warmup` → `Warm-up` and
    /// `cooldown` → `Cool-down`, so that the screen, the bus, hooks and FIT files spell them one way.
    public static func defaultLabel(for kind: String) -> String {
        hyphenatedKinds[kind] ?? kind.prefix(1).uppercased() + kind.dropFirst()
    }

    private static let hyphenatedKinds = ["warmup": "Warm-up", "cooldown": "Cool-down"]
}

/// A plan item: a step, or a group of items with its repetition.
public enum PlanNode: Sendable {
    case step(Step)
    case group(PlanGroup)

    var summary: PlanSummary {
        switch self {
        case .step(let step): PlanSummary(step: step, until: step.span)
        case .group(let group): group.totalSummary
        }
    }

    /// Its extent on the plan's timeline (``Step/timelineSlot``).
    var span: Int64 {
        switch self {
        case .step(let step): step.span
        case .group(let group): group.totalSpan
        }
    }

    /// What the first `time` microseconds of its timeline hold.
    func summary(until time: Int64) -> PlanSummary {
        switch self {
        case .step(let step): PlanSummary(step: step, until: time)
        case .group(let group): group.summary(until: time)
        }
    }

    /// The open steps begun in the first `time` microseconds of its timeline: `summary(until:).openSteps`.
    func openSteps(until time: Int64) -> Int64 {
        switch self {
        case .step(let step): step.isOpen && time > 0 ? 1 : 0
        case .group(let group): group.openSteps(until: time)
        }
    }
}

/// How often a group's items play.
public enum Repetition: Sendable, Equatable {
    /// The plan's top level.
    case once
    /// `Nx GROUP`
    case times(Int)
    /// `for 45m GROUP`: repeat, cutting the last step so the block lasts exactly this long.
    case forDuration(Int64)
    /// `for 5km GROUP`: repeat, cutting the last step where this many metres are covered.
    case forDistance(Double)
}

/// A group of plan items and its repetition, with every total computed once so that expansion is lazy:
/// seeking to any instant costs O(nesting depth × log(items per group)), never the segment count.
public final class PlanGroup: Sendable {
    public let repetition: Repetition
    public let children: [PlanNode]
    /// One pass over `children`, on the plan's timeline (``Step/timelineSlot``).
    let iterationSpan: Int64
    /// Whole passes.
    public let fullIterations: Int64
    /// A last, cut pass that lasts this long; 0 when the block ends on a whole pass (only a block bounded by a time or
    /// a distance is cut, and it holds no step the person ends: this is a time).
    public let tailDuration: Int64
    let iterationSummary: PlanSummary
    let totalSummary: PlanSummary
    /// Where each child starts within a pass, and the index of its first segment.
    private let childStarts: [Int64]
    private let childFirstSegments: [Int64]

    /// The time of its timed steps, in all its rounds, µs.
    public var totalDuration: Int64 { totalSummary.duration }
    /// The time of one pass's timed steps, µs.
    public var iterationDuration: Int64 { iterationSummary.duration }
    /// Its extent on the plan's timeline.
    var totalSpan: Int64 { totalSummary.span }
    public var totalSegmentCount: Int64 { totalSummary.segmentCount }
    public var iterationSegmentCount: Int64 { iterationSummary.segmentCount }
    /// Passes, counting a cut last one.
    public var iterationCount: Int64 { fullIterations + (tailDuration > 0 ? 1 : 0) }

    /// Fails with the reason when a limit is broken; the caller locates it.
    init(repetition: Repetition, children: [PlanNode]) throws(PlanLimitError) {
        self.repetition = repetition
        self.children = children
        var starts: [Int64] = []
        var firstSegments: [Int64] = []
        var passBuilder = PlanSummary.Builder()
        starts.reserveCapacity(children.count)
        firstSegments.reserveCapacity(children.count)
        for child in children {
            starts.append(passBuilder.span)
            firstSegments.append(passBuilder.segmentCount)
            passBuilder.add(child)
            guard passBuilder.span <= PlanLimits.maximumDuration else {
                throw .tooLongAt(child: starts.count - 1)
            }
        }
        let pass = passBuilder.summary
        childStarts = starts
        childFirstSegments = firstSegments
        iterationSummary = pass
        iterationSpan = pass.span
        guard pass.span > 0 else { throw .emptyGroup }
        switch repetition {
        case .forDuration, .forDistance:
            // Its end is a time or a distance the clock must know: a step the person ends has neither.
            guard pass.openSteps == 0 else { throw .openStepInBound }
        case .once, .times: break
        }

        switch repetition {
        case .once:
            fullIterations = 1
            tailDuration = 0
        case .times(let count):
            guard count >= 1 else { throw .repeatCountTooSmall }
            guard count <= PlanLimits.maximumRepeatCount else { throw .repeatCountTooLarge(count) }
            guard Int64(count) <= PlanLimits.maximumDuration / pass.span else { throw .tooLong }
            fullIterations = Int64(count)
            tailDuration = 0
        case .forDuration(let limit):
            guard limit >= PlanLimits.minimumStepDuration else { throw .boundTooShort }
            guard limit <= PlanLimits.maximumDuration else { throw .tooLong }
            fullIterations = limit / pass.span
            tailDuration = limit % pass.span
        case .forDistance(let metres):
            guard let passMetres = pass.distance, passMetres > 0 else { throw .distanceNeedsPaces }
            let wholePasses = (metres / passMetres * (1 + 1e-12)).rounded(.down)
            let remainder = metres - wholePasses * passMetres
            guard wholePasses * Double(pass.span) <= Double(PlanLimits.maximumDuration) else { throw .tooLong }
            fullIterations = Int64(wholePasses)
            tailDuration = remainder > 1e-6 ? min(Self.time(toCover: remainder, in: children), pass.span) : 0
        }
        var total = PlanSummary.Builder()
        total.add(pass, times: fullIterations)
        if tailDuration > 0 { Self.add(children, starts: starts, until: tailDuration, to: &total) }
        totalSummary = total.summary
        guard totalSummary.span <= PlanLimits.maximumDuration else { throw .tooLong }
        // A distance bound met within a microsecond of the start would be a block shorter than a step may be. (Other
        // blocks are as long as their steps, which may all be open ones.)
        if case .forDistance = repetition, totalSummary.span < PlanLimits.minimumStepDuration {
            throw .boundTooShort
        }
        guard totalSummary.segmentCount <= PlanLimits.maximumSegmentCount else { throw .tooManySegments }
    }

    /// What the first `time` microseconds of the whole block's timeline hold.
    func summary(until time: Int64) -> PlanSummary {
        if time >= totalSpan { return totalSummary }
        if time <= 0 { return .empty }
        let passes = time / iterationSpan
        var result = PlanSummary.Builder()
        result.add(iterationSummary, times: passes)
        Self.add(children, starts: childStarts, until: time - passes * iterationSpan, to: &result)
        return result.summary
    }

    /// The open steps begun in the first `time` microseconds of the block's timeline: `summary(until:).openSteps`
    /// without the totals per kind, which a status read (at every `Elapsed` read over the bus) has no use for. A block
    /// with no open step answers at once.
    func openSteps(until time: Int64) -> Int64 {
        if time >= totalSpan { return totalSummary.openSteps }
        if time <= 0 || totalSummary.openSteps == 0 { return 0 }
        let passes = time / iterationSpan
        let rest = time - passes * iterationSpan
        var count = iterationSummary.openSteps * passes
        for (child, start) in zip(children, childStarts) where start < rest {
            count += child.openSteps(until: rest - start)
        }
        return count
    }

    /// Adds what the first `time` microseconds of one pass of `children` hold: the children before the cut whole,
    /// the one it falls in partly.
    private static func add(
        _ children: [PlanNode], starts: [Int64], until time: Int64, to result: inout PlanSummary.Builder
    ) {
        for (child, start) in zip(children, starts) where start < time {
            if time - start >= child.span {
                result.add(child)
            } else {
                result.add(child.summary(until: time - start))
            }
        }
    }

    /// Microseconds into one pass of `children` at which `metres` are covered. Every step has a pace.
    private static func time(toCover metres: Double, in children: [PlanNode]) -> Int64 {
        var left = metres
        var elapsed: Int64 = 0
        for child in children {
            let childMetres = child.summary.distance ?? 0
            if left <= childMetres {
                switch child {
                case .step(let step):
                    let speed = step.pace?.metresPerSecond ?? 1
                    let needed = Int64((left / speed * 1_000_000).rounded(.up))
                    return elapsed + min(max(needed, 1), step.span)
                case .group(let group):
                    return elapsed + group.time(toCover: left)
                }
            }
            left -= childMetres
            elapsed += child.span
        }
        return elapsed
    }

    private func time(toCover metres: Double) -> Int64 {
        guard let passMetres = iterationSummary.distance, passMetres > 0 else { return totalSpan }
        let passes = min(Int64((metres / passMetres).rounded(.down)), fullIterations)
        let left = metres - Double(passes) * passMetres
        return min(passes * iterationSpan + Self.time(toCover: left, in: children), totalSpan)
    }

    /// Finds the step playing at `time` (relative to this group's start) and where it sits.
    func locate(
        _ time: Int64, groupStart: Int64, firstSegment: Int64, endBound: Int64, rounds: inout [Segment.Round]
    ) -> Segment {
        let pass = min(time / iterationSpan, fullIterations)
        var bound = endBound
        if pass == fullIterations {
            bound = min(bound, groupStart + totalSpan)
        }
        if repetition != .once {
            rounds.append(Segment.Round(number: pass + 1, count: iterationCount))
        }
        let passStart = pass * iterationSpan
        let local = time - passStart
        let child = Self.lastIndex(in: childStarts, notAfter: local)
        let childStart = groupStart + passStart + childStarts[child]
        let childFirstSegment = firstSegment + pass * iterationSummary.segmentCount + childFirstSegments[child]
        switch children[child] {
        case .step(let step):
            return Segment(
                index: childFirstSegment, kind: step.kind, label: step.label, target: step.target, start: childStart,
                duration: step.isOpen ? 0 : min(childStart + step.duration, bound) - childStart, rounds: rounds,
                isOpen: step.isOpen, distance: step.distance, heartRateBound: step.heartRateBound
            )
        case .group(let group):
            return group.locate(
                local - childStarts[child], groupStart: childStart, firstSegment: childFirstSegment, endBound: bound,
                rounds: &rounds
            )
        }
    }

    /// The greatest index whose value is ≤ `value`; `values` is sorted and starts with 0.
    private static func lastIndex(in values: [Int64], notAfter value: Int64) -> Int {
        var low = 0
        var high = values.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if values[middle] <= value { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// Why a group breaks the plan language's limits.
enum PlanLimitError: Error, Equatable {
    case tooLong
    /// The group's items add up to more than the limit by the time this one is reached.
    case tooLongAt(child: Int)
    case emptyGroup
    case repeatCountTooSmall
    case repeatCountTooLarge(Int)
    case distanceNeedsPaces
    case boundTooShort
    case tooManySegments
    case openStepInBound

    var message: String {
        switch self {
        case .tooLong, .tooLongAt: tr("the plan lasts longer than the limit of 7 days")
        case .emptyGroup: tr("empty group (expected at least one step inside)")
        case .repeatCountTooSmall: tr("repeat count must be at least 1")
        case .repeatCountTooLarge(let count):
            tr(
                "repeat count {count} is larger than the limit of {limit}",
                ["count": "\(count)", "limit": "\(PlanLimits.maximumRepeatCount)"])
        case .distanceNeedsPaces: tr("'for' with a distance needs a pace ('@ 5:30/km') on every step inside")
        case .boundTooShort: tr("a 'for' block must last at least 1 ms")
        case .openStepInBound:
            tr("a 'for' block cannot hold a step you end yourself ('open', or a distance without a pace)")
        case .tooManySegments:
            tr(
                "the plan has more than {limit} segments, the limit (a segment's index is a 32-bit number on the bus)",
                ["limit": "\(PlanLimits.maximumSegmentCount)"])
        }
    }
}

/// Additive totals of a stretch of plan: its extent on the timeline, time, segments, distance and time per kind.
struct PlanSummary: Sendable, Equatable {
    /// Its extent on the plan's timeline: its ``duration``, and a ``Step/timelineSlot`` for each step the person ends.
    var span: Int64
    var segmentCount: Int64
    /// Steps the person ends, begun in the stretch.
    var openSteps: Int64 = 0
    /// The time of the stretch's timed steps, µs.
    var duration: Int64 { span - openSteps * Step.timelineSlot }
    /// Metres; nil when some step in the stretch has no pace (nor a distance of its own).
    var distance: Double?
    /// Microseconds per kind, in order of first appearance.
    var kindDurations: [KindDuration]
    /// How many kind entries were looked up or copied to build this summary and the summaries it was built from:
    /// the parser's work on kinds, which the tests hold to O(steps × nesting depth). Not part of equality.
    var kindWork: Int64 = 0

    /// A kind's timed time, and how many of its steps the person ends.
    struct KindDuration: Sendable, Equatable {
        var kind: String
        var duration: Int64
        var openSteps: Int64 = 0
    }

    static let empty = PlanSummary(span: 0, segmentCount: 0, distance: 0, kindDurations: [])

    init(span: Int64, segmentCount: Int64, distance: Double?, kindDurations: [KindDuration]) {
        self.span = span
        self.segmentCount = segmentCount
        self.distance = distance
        self.kindDurations = kindDurations
    }

    /// The first `time` microseconds of `step`'s timeline.
    init(step: Step, until time: Int64) {
        let played = min(max(time, 0), step.span)
        let open: Int64 = played > 0 && step.isOpen ? 1 : 0
        span = played
        segmentCount = played > 0 ? 1 : 0
        openSteps = open
        distance = step.distance(in: played)
        kindDurations =
            played > 0 ? [KindDuration(kind: step.kind, duration: step.isOpen ? 0 : played, openSteps: open)] : []
    }

    static func == (lhs: PlanSummary, rhs: PlanSummary) -> Bool {
        lhs.span == rhs.span && lhs.segmentCount == rhs.segmentCount && lhs.distance == rhs.distance
            && lhs.kindDurations == rhs.kindDurations && lhs.openSteps == rhs.openSteps
    }

    /// Sums stretches of plan in place. Kinds are found through a hash index, so that adding a summary costs
    /// O(its kinds), never O(kinds so far): a plan may have as many distinct kinds as steps, and a linear search
    /// (or copying the totals at every addition) made parsing quadratic in them.
    struct Builder {
        private(set) var summary = PlanSummary.empty
        private var kindSlots: [String: Int] = [:]

        var span: Int64 { summary.span }
        var segmentCount: Int64 { summary.segmentCount }

        /// Adds a whole item; a step is added without building its summary (the parser's hot path).
        mutating func add(_ item: PlanNode) {
            switch item {
            case .step(let step):
                let open: Int64 = step.isOpen ? 1 : 0
                addTotals(step.span, segments: 1, open: open, distance: step.distance(in: step.span))
                addTime(step.duration, openSteps: open, to: step.kind)
            case .group(let group):
                add(group.totalSummary)
            }
        }

        /// Adds `times` copies of `other`.
        mutating func add(_ other: PlanSummary, times: Int64 = 1) {
            guard times > 0 else { return }
            addTotals(
                other.span * times, segments: other.segmentCount * times, open: other.openSteps * times,
                distance: other.distance.map { $0 * Double(times) })
            summary.kindWork += other.kindWork
            for entry in other.kindDurations {
                addTime(entry.duration * times, openSteps: entry.openSteps * times, to: entry.kind)
            }
        }

        private mutating func addTotals(_ span: Int64, segments: Int64, open: Int64, distance more: Double?) {
            summary.span += span
            summary.segmentCount += segments
            summary.openSteps += open
            summary.distance = if let distance = summary.distance, let more { distance + more } else { nil }
        }

        private mutating func addTime(_ time: Int64, openSteps: Int64, to kind: String) {
            summary.kindWork += 1
            if let slot = kindSlots[kind] {
                summary.kindDurations[slot].duration += time
                summary.kindDurations[slot].openSteps += openSteps
            } else {
                kindSlots[kind] = summary.kindDurations.count
                summary.kindDurations.append(KindDuration(kind: kind, duration: time, openSteps: openSteps))
            }
        }
    }
}

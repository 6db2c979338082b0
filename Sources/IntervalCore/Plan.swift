/// A parsed, validated plan: its header and the tree of its items with every total computed.
public struct Plan: Sendable {
    /// The `name` directive, or a name derived from the origin.
    public let name: String
    /// The `countdown` directive: how long before each change to pre-cue.
    public let countdown: Int64?
    public let root: PlanGroup
    /// What the parser noted about the text without refusing it (``PlanDiagnostic/isNote``).
    public let notes: [PlanDiagnostic]

    /// The time of its timed steps, µs: a step the person ends lasts as long as it is played (``openStepCount``).
    public var duration: Int64 { root.totalDuration }
    public var segmentCount: Int64 { root.totalSegmentCount }
    /// Steps the person ends (docs/plan-language.md): they last as long as they are played.
    public var openStepCount: Int64 { root.totalSummary.openSteps }
    /// The end of its timeline, where segments are placed (``Segment/start``): its ``duration`` and a
    /// ``Step/timelineSlot`` for each step the person ends. A place, never a time.
    public var timelineEnd: Int64 { root.totalSpan }

    init(name: String, countdown: Int64?, root: PlanGroup, notes: [PlanDiagnostic] = []) {
        self.name = name
        self.countdown = countdown
        self.root = root
        self.notes = notes
    }

    /// The time of the timed steps before `place` on the timeline, µs (partly, for the one it falls in).
    public func time(at place: Int64) -> Int64 {
        let place = min(max(place, 0), timelineEnd)
        return place - root.openSteps(until: place) * Step.timelineSlot
    }

    /// The segment at `place` on the plan's timeline, or nil outside `0..<timelineEnd`.
    public func segment(at place: Int64) -> Segment? {
        guard place >= 0, place < timelineEnd else { return nil }
        var rounds: [Segment.Round] = []
        return root.locate(place, groupStart: 0, firstSegment: 0, endBound: timelineEnd, rounds: &rounds)
    }

    /// The first open segment that begins in `from..<before`, or nil: where a schedule that reached `before` must
    /// have stopped to wait for the person. O(log(duration) × nesting depth), however many segments lie between.
    public func firstOpenSegment(from: Int64, before: Int64) -> Segment? {
        // Most plans have none: a cue of theirs costs nothing more.
        guard openStepCount > 0 else { return nil }
        let base = root.openSteps(until: max(from, 0))
        let limit = min(before, timelineEnd)
        guard limit > from, root.openSteps(until: limit) > base else { return nil }
        // The least `until` whose first `until` µs hold one open step more than the first `from` µs.
        var (low, high) = (max(from, 0) + 1, limit)
        while low < high {
            let middle = low + (high - low) / 2
            if root.openSteps(until: middle) > base { high = middle } else { low = middle + 1 }
        }
        return segment(at: low - 1)
    }

    /// The segment after `segment`, or nil if it is the last.
    public func segment(after segment: Segment) -> Segment? {
        self.segment(at: segment.end)
    }

    /// Every segment in order, produced one at a time: memory does not grow with the plan's length.
    public var segments: Segments { Segments(plan: self) }

    public struct Segments: Sequence, Sendable {
        let plan: Plan

        public func makeIterator() -> Iterator { Iterator(plan: plan, upcoming: plan.segment(at: 0)) }

        public struct Iterator: IteratorProtocol, Sendable {
            let plan: Plan
            var upcoming: Segment?

            public mutating func next() -> Segment? {
                guard let current = upcoming else { return nil }
                upcoming = plan.segment(after: current)
                return current
            }
        }
    }
}

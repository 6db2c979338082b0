/// A parsed, validated plan: its header and the tree of its items with every total computed.
public struct Plan: Sendable {
    /// The `name` directive, or a name derived from the origin.
    public let name: String
    /// The `countdown` directive: how long before each change to pre-cue.
    public let countdown: Int64?
    public let root: PlanGroup

    /// Microseconds.
    public var duration: Int64 { root.totalDuration }
    public var segmentCount: Int64 { root.totalSegmentCount }

    init(name: String, countdown: Int64?, root: PlanGroup) {
        self.name = name
        self.countdown = countdown
        self.root = root
    }

    /// The segment playing at `elapsed` microseconds into the plan, or nil outside `0..<duration`.
    public func segment(at elapsed: Int64) -> Segment? {
        guard elapsed >= 0, elapsed < duration else { return nil }
        var rounds: [Segment.Round] = []
        return root.locate(elapsed, groupStart: 0, firstSegment: 0, endBound: duration, rounds: &rounds)
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

/// One played stretch of a plan: a step, placed in time, with where it sits in the plan's repeats.
public struct Segment: Sendable, Equatable {
    /// A repeat's pass: round `number` of `count`.
    public struct Round: Sendable, Equatable, Codable {
        public var number: Int64
        public var count: Int64
    }

    /// 0-based position in the plan's segments.
    public let index: Int64
    public let kind: String
    public let label: String
    public let pace: Pace?
    /// Microseconds from the plan's start.
    public let start: Int64
    /// Microseconds; shorter than the step's when a bounded repeat cuts it.
    public let duration: Int64
    /// The repeats around the segment, outermost first.
    public let rounds: [Round]
    /// The person ends it (its ``duration`` is ``Step/openDuration``, a place on the plan's timeline).
    public let isOpen: Bool
    /// Metres, for a step written as a distance.
    public let distance: Double?

    public var end: Int64 { start + duration }

    /// Its length as every output gives it (`SegmentDuration`, `SegmentStarted`, a hook's, MPRIS's): 0 for a step the
    /// person ends, whose place on the timeline is not a length.
    public var announcedDuration: Int64 { isOpen ? 0 : duration }

    /// The outermost repeat that really repeats, which is what a runner counts: "round 3 of 6".
    public var mainRound: Round? { rounds.first { $0.count > 1 } }
}

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
    /// What it is held at (`@ 5:00/km`, `@ 200W`, `@ 130-150bpm`).
    public let target: StepTarget?
    /// Where it begins on the plan's timeline: the time of the timed steps before it, plus a slot for each step the
    /// person ends before it (``Step/timelineSlot``).
    public let start: Int64
    /// Microseconds; shorter than the step's when a bounded repeat cuts it; 0 for a step the person ends, which lasts
    /// as long as it is played.
    public let duration: Int64
    /// The repeats around the segment, outermost first.
    public let rounds: [Round]
    /// The person ends it (docs/plan-language.md).
    public let isOpen: Bool
    /// Metres, for a step written as a distance.
    public let distance: Double?
    /// The heart rate that ends it (`hr<120 walk`), with a strap; without one the person ends it.
    public let heartRateBound: HeartRateBound?

    /// Its pace, the one target that times a distance.
    public var pace: Pace? { target?.pace }

    /// ``distance`` in whole metres, 0 for a step of no distance: `SegmentDistance`.
    public var wholeMetres: UInt32 { distance.map { UInt32(clamping: Int64($0.rounded())) } ?? 0 }

    /// Where the next segment begins on the timeline.
    public var end: Int64 { start + (isOpen ? Step.timelineSlot : duration) }

    /// The outermost repeat that really repeats, which is what a runner counts: "round 3 of 6".
    public var mainRound: Round? { rounds.first { $0.count > 1 } }
}

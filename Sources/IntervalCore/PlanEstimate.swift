/// The interval-run calculator: what a plan adds up to. Metres and seconds inside, 1 mi = 1609.344 m.
public struct PlanEstimate: Sendable, Equatable, Codable {
    public struct KindTotal: Sendable, Equatable, Codable {
        public var kind: String
        /// Microseconds.
        public var duration: Int64
        /// Share of the plan's time, 0…1.
        public var share: Double
        /// Its steps the person ends, not in ``duration``.
        public var openSteps: Int64 = 0
    }

    /// Microseconds: the timed steps' (a step the person ends lasts as long as it is played).
    public var duration: Int64
    public var segmentCount: Int64
    /// Steps the person ends (docs/plan-language.md), not in ``duration``.
    public var openSteps: Int64
    /// Time per kind, in order of first appearance.
    public var kinds: [KindTotal]
    /// Metres; nil unless every step has a pace.
    public var distance: Double?

    public init(_ plan: Plan) {
        let summary = plan.root.totalSummary
        duration = plan.duration
        segmentCount = summary.segmentCount
        openSteps = summary.openSteps
        kinds = summary.kindDurations.map {
            KindTotal(
                kind: $0.kind, duration: $0.duration, share: Double($0.duration) / Double(max(summary.duration, 1)),
                openSteps: $0.openSteps)
        }
        distance = summary.distance
    }

    /// The metres covered in the plan's first `elapsed` µs, its segments run in order (the last one in part): what a
    /// workout stopped there ran, skips aside. Nil unless every step has a pace.
    public static func distance(of plan: Plan, through elapsed: Int64) -> Double? {
        guard plan.root.totalSummary.distance != nil else { return nil }
        var metres = 0.0
        for segment in plan.segments {
            guard segment.start < elapsed, let pace = segment.pace else { break }
            metres += pace.metresPerSecond * Double(min(segment.duration, elapsed - segment.start)) / 1_000_000
        }
        return metres
    }

    /// The average pace over the whole plan, when the distance is known and so is the time (no step the person ends).
    public var averagePace: Pace? {
        guard openSteps == 0, let distance, distance > 0, duration > 0 else { return nil }
        return Pace(metresPerSecond: distance / (Double(duration) / 1_000_000))
    }
}

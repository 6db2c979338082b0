/// What a step asks to be held at, written after its label (docs/plan-language.md): a pace (`@ 5:00/km`, which also
/// times a distance step), a power (`@ 200W`, `@ 300-310W`, what a trainer is sent) or a heart-rate range
/// (`@ 130-150bpm`, which the out-of-range cue watches). A step has at most one.
public enum StepTarget: Sendable, Equatable, Hashable {
    case pace(Pace)
    case power(PowerTarget)
    case heartRate(HeartRateRange)

    /// The pace, for a step held at one: the only target that times a distance step.
    public var pace: Pace? { if case .pace(let pace) = self { pace } else { nil } }
    /// The power, for a step held at one.
    public var power: PowerTarget? { if case .power(let power) = self { power } else { nil } }
    /// The heart-rate range, for a step held in one.
    public var heartRateRange: HeartRateRange? { if case .heartRate(let range) = self { range } else { nil } }

    /// As the plan language writes it after `@` (the `SegmentTarget` property): `5:00/km`, `200W`, `300-310W`,
    /// `130-150bpm`.
    public var planText: String {
        switch self {
        case .pace(let pace): PlanWriter.pace(pace)
        case .power(let power): power.planText
        case .heartRate(let range): range.planText
        }
    }

    /// As a person reads it: "5:00/km", "200 W", "300–310 W", "130–150 bpm".
    public var text: String {
        switch self {
        case .pace(let pace): pace.perKilometreText
        case .power(let power): power.text
        case .heartRate(let range): range.text
        }
    }

    /// A target as ``planText`` writes it (what `SegmentTarget` holds); nil for anything else, "" among it.
    public init?(planText: String) {
        var parser = PlanTextParser(text: Array(planText.utf8), origin: "")
        guard let target = try? parser.parseTarget(), parser.peek() == nil else { return nil }
        self = target
    }
}

/// `@ 200W` or `@ 300-310W`: whole watts, ``low`` ≤ ``high``, both within ``range``.
public struct PowerTarget: Sendable, Equatable, Hashable {
    public let low: Int
    public let high: Int

    /// The powers a target may name: above 2,000 W no trainer brakes.
    public static let range = 1...2000

    /// nil outside ``range`` or when `low` is above `high`.
    public init?(low: Int, high: Int) {
        guard Self.range.contains(low), Self.range.contains(high), low <= high else { return nil }
        (self.low, self.high) = (low, high)
    }

    /// `@ 200W`: one power.
    public init?(watts: Int) {
        self.init(low: watts, high: watts)
    }

    /// The middle of the range, rounded half up: what a trainer is sent (`300-310W` → 305).
    public var watts: Int { (low + high + 1) / 2 }

    /// `200W`, `300-310W`.
    public var planText: String { low == high ? "\(low)W" : "\(low)-\(high)W" }

    /// "200 W", "300–310 W".
    public var text: String {
        low == high
            ? tr("{watts} W", ["watts": "\(low)"]) : tr("{low}–{high} W", ["low": "\(low)", "high": "\(high)"])
    }
}

/// `@ 130-150bpm`: whole beats per minute, ``low`` ≤ ``high``, both within ``HeartRateBound/range``. Always a range,
/// since no heart holds one beat: `@ 140bpm` is refused with a range suggested.
public struct HeartRateRange: Sendable, Equatable, Hashable {
    public let low: Int
    public let high: Int

    /// nil outside ``HeartRateBound/range`` or when `low` is above `high`.
    public init?(low: Int, high: Int) {
        guard HeartRateBound.range.contains(low), HeartRateBound.range.contains(high), low <= high else { return nil }
        (self.low, self.high) = (low, high)
    }

    /// Where a measurement stands: inside the range, or how it is out of it.
    public enum Reading: Sendable, Equatable {
        case below, inside, above
    }

    public func reading(_ bpm: Int) -> Reading {
        bpm < low ? .below : bpm > high ? .above : .inside
    }

    /// `130-150bpm`.
    public var planText: String { "\(low)-\(high)bpm" }

    /// "130–150 bpm".
    public var text: String { tr("{low}–{high} bpm", ["low": "\(low)", "high": "\(high)"]) }
}

/// "Heart rate high, 162": the heart out of a running step's range (`@ 130-150bpm`) for ``HeartRateCues/delay``.
public struct HeartRateCue: Sendable, Equatable {
    /// ``HeartRateRange/Reading/above`` or ``HeartRateRange/Reading/below``.
    public let reading: HeartRateRange.Reading
    /// The measurement that gave it.
    public let bpm: Int
    /// The step's range.
    public let range: HeartRateRange

    /// "Heart rate high, 162", "Heart rate low, 118": the notification's summary and what the voice says.
    public var text: String {
        reading == .above
            ? tr("Heart rate high, {bpm}", ["bpm": "\(bpm)"]) : tr("Heart rate low, {bpm}", ["bpm": "\(bpm)"])
    }
}

/// When the heart has been out of a running step's heart-rate range long enough to say so (docs/sensors.md): out of it
/// continuously (on one side) for ``delay`` gives one cue, and no other comes within ``spacing`` of it. Times are
/// instants of the session's clock.
struct HeartRateCues {
    static let delay: Int64 = 10 * Micros.second
    static let spacing: Int64 = 30 * Micros.second

    /// The step watched, and since when its heart rate has been out of its range, on which side.
    private var outOfRange: (segment: Int64, reading: HeartRateRange.Reading, since: ClockInstant)?
    private var lastCue: ClockInstant?

    /// A measurement `bpm` at `now`, in the running step `segment` held in `range` (nil: no range, or not running).
    mutating func heard(_ bpm: Int, segment: Int64, range: HeartRateRange?, at now: ClockInstant) -> HeartRateCue? {
        let reading = range?.reading(bpm) ?? .inside
        guard let range, reading != .inside else {
            outOfRange = nil
            return nil
        }
        guard let out = outOfRange, out.segment == segment, out.reading == reading else {
            outOfRange = (segment, reading, now)
            return nil
        }
        guard now - out.since >= Self.delay, lastCue.map({ now - $0 >= Self.spacing }) ?? true else { return nil }
        lastCue = now
        return HeartRateCue(reading: reading, bpm: bpm, range: range)
    }

    /// No measurement counts across a gap (the strap lost, the workout paused or over).
    mutating func interrupt() {
        outOfRange = nil
    }
}

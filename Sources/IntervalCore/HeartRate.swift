/// `hr<120`, `hr>160` in a step's duration place (docs/plan-language.md): the step ends at the first heart-rate
/// measurement strictly past the bound; without a strap it is a step the person ends, which says its bound.
public struct HeartRateBound: Sendable, Equatable, Hashable {
    public enum Direction: Sendable, Equatable, Hashable {
        /// `hr<120`: the heart coming down, a recovery.
        case below
        /// `hr>160`: the heart going up, an effort.
        case above
    }

    public let direction: Direction
    /// Beats per minute, within ``range``.
    public let bpm: Int

    /// The heart rates a bound may name: below 30 or above 250 bpm no strap reads a person's heart.
    public static let range = 30...250

    /// nil outside ``range``.
    public init?(_ direction: Direction, bpm: Int) {
        guard Self.range.contains(bpm) else { return nil }
        (self.direction, self.bpm) = (direction, bpm)
    }

    /// The step is over: `measured` is strictly past the bound.
    public func isReached(by measured: Int) -> Bool {
        switch direction {
        case .below: measured < bpm
        case .above: measured > bpm
        }
    }

    /// `hr<120` or `hr>160` as ``planText`` writes it (the `SegmentHeartRateBound` property); nil for anything else.
    public init?(planText: String) {
        let direction: Direction
        if planText.hasPrefix(Self.word + "<") {
            direction = .below
        } else if planText.hasPrefix(Self.word + ">") {
            direction = .above
        } else {
            return nil
        }
        guard let bpm = Int(planText.dropFirst(Self.word.count + 1)) else { return nil }
        self.init(direction, bpm: bpm)
    }

    /// As the plan language writes it: `hr<120`.
    public var planText: String {
        "\(HeartRateBound.word)\(direction == .below ? "<" : ">")\(bpm)"
    }

    /// As a person reads it: "until heart rate below 120".
    public var untilText: String {
        switch direction {
        case .below: tr("until heart rate below {bpm}", ["bpm": "\(bpm)"])
        case .above: tr("until heart rate above {bpm}", ["bpm": "\(bpm)"])
        }
    }

    /// The word that starts a bound in the plan language.
    static let word = "hr"
}

/// The heart rate a strap gave during a workout, a sample a second: what the history and a FIT activity keep.
public struct HeartRateSample: WallClockSample, Sendable, Equatable, Codable {
    /// When, on the wall clock (µs since the Unix epoch).
    public var wall: Int64
    public var bpm: Int

    public init(wall: Int64, bpm: Int) {
        (self.wall, self.bpm) = (wall, bpm)
    }

    enum CodingKeys: String, CodingKey {
        case wall = "wall_us", bpm
    }

    /// The average (rounded) and the maximum of the samples from `start` up to `end` (µs, wall clock); nil without one.
    public static func summary(of samples: [HeartRateSample], from start: Int64 = .min, to end: Int64 = .max)
        -> (average: Int, maximum: Int)?
    {
        let inside = samples.filter { $0.wall >= start && $0.wall < end }.map(\.bpm)
        guard let maximum = inside.max() else { return nil }
        let sum = inside.reduce(0, +)
        return ((sum + inside.count / 2) / inside.count, maximum)
    }
}

/// One Heart Rate Measurement (GATT characteristic 0x2A37) as a strap notifies it: the flags byte, then the heart rate
/// (8 or 16 bits), the energy expended (16 bits, when flagged) and RR intervals (16 bits each, 1/1024 s, when flagged),
/// all little-endian (Bluetooth's Heart Rate Service 1.0, §3.1).
public struct HeartRateMeasurement: Sendable, Equatable {
    /// Whether the strap touches the skin, where it can tell.
    public enum Contact: Sendable, Equatable {
        case unsupported, lost, detected
    }

    /// Beats per minute, more than 0.
    public var bpm: Int
    public var contact: Contact
    /// Kilojoules since the strap's counter was last reset, when it says.
    public var energy: Int?
    /// The times between beats, in seconds.
    public var rrIntervals: [Double]

    /// `bytes` read as a measurement; nil when malformed: empty, shorter than its flags promise, a heart rate of 0,
    /// or an RR interval cut in half (a strap's garbage is dropped, never shown).
    public init?(_ bytes: [UInt8]) {
        guard let flags = bytes.first else { return nil }
        var reader = LittleEndianReader(bytes, from: 1)
        let wide = flags & 0x01 != 0
        guard let bpm = wide ? reader.uint16() : reader.uint8().map(Int.init), bpm > 0 else { return nil }
        self.bpm = bpm
        switch (flags >> 1) & 0x03 {
        case 2: contact = .lost
        case 3: contact = .detected
        default: contact = .unsupported
        }
        if flags & 0x08 != 0 {
            guard let energy = reader.uint16() else { return nil }
            self.energy = energy
        }
        rrIntervals = []
        if flags & 0x10 != 0 {
            guard reader.remaining % 2 == 0 else { return nil }
            while let interval = reader.uint16() { rrIntervals.append(Double(interval) / 1024) }
        }
    }
}

/// Reads little-endian unsigned integers from bytes, nil past their end.
struct LittleEndianReader {
    private let bytes: [UInt8]
    private var offset: Int

    init(_ bytes: [UInt8], from offset: Int = 0) {
        (self.bytes, self.offset) = (bytes, offset)
    }

    var remaining: Int { max(0, bytes.count - offset) }

    mutating func uint8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    mutating func int16() -> Int? {
        uint16().map { Int(Int16(truncatingIfNeeded: $0)) }
    }

    mutating func uint24() -> Int? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
    }
}

/// A sample of a sensor, kept one a second during a workout.
public protocol WallClockSample {
    /// When, on the wall clock (µs since the Unix epoch).
    var wall: Int64 { get }
}

extension Array where Element: WallClockSample {
    /// Adds `next`, one a second: the last of each second is kept (a strap notifies about once a second; some, with RR
    /// intervals, more often). In place: a copy at every reading would cost the whole workout's samples each time.
    /// The first sample makes room for `expected` at once: an array grown by doubling leaves each smaller buffer behind
    /// in the heap, steps in a long workout's memory (docs/benchmarks.md), while room not yet written takes no memory.
    public mutating func appendOnePerSecond(_ next: Element, expected: Int = 0) {
        if isEmpty { reserveCapacity(expected) }
        if let last, last.wall / 1_000_000 == next.wall / 1_000_000 {
            self[count - 1] = next
        } else {
            append(next)
        }
    }
}

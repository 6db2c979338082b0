/// Bluetooth's Fitness Machine service (FTMS 1.0, 0x1826) as intervald drives a treadmill or a bike (docs/machines.md):
/// the control point's requests and answers, the machine's status, and what its treadmill or indoor bike data say.
/// Pure bytes, little-endian as the service writes them; the adapter in IntervalBus moves them through BlueZ.

/// A control point (0x2AD9) procedure intervald asks of a machine.
public enum FitnessMachineRequest: Sendable, Equatable, Hashable {
    /// 0x00: required before any other.
    case requestControl
    /// 0x02: a treadmill's belt speed, in 0.01 km/h.
    case targetSpeed(hundredthsOfKilometresPerHour: Int)
    /// 0x05: a bike's power, in watts.
    case targetPower(watts: Int)
    /// 0x07: start, or resume after a pause.
    case start
    /// 0x08 0x01.
    case stop
    /// 0x08 0x02.
    case pause

    public var opcode: UInt8 {
        switch self {
        case .requestControl: 0x00
        case .targetSpeed: 0x02
        case .targetPower: 0x05
        case .start: 0x07
        case .stop, .pause: 0x08
        }
    }

    /// What is written to the control point.
    public var bytes: [UInt8] {
        switch self {
        case .requestControl, .start: [opcode]
        case .targetSpeed(let speed):
            [opcode] + Self.littleEndian(UInt16(clamping: speed))
        case .targetPower(let watts):
            [opcode] + Self.littleEndian(UInt16(bitPattern: Int16(clamping: watts)))
        case .stop: [opcode, 0x01]
        case .pause: [opcode, 0x02]
        }
    }

    /// In words, for a sentence: "the target speed".
    public var words: String {
        switch self {
        case .requestControl: tr("control")
        case .targetSpeed: tr("the target speed")
        case .targetPower: tr("the target power")
        case .start: tr("start")
        case .stop: tr("stop")
        case .pause: tr("pause")
        }
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }
}

/// A control point's indication: `[0x80, request opcode, result]`.
public struct FitnessMachineResponse: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        case success
        case notSupported
        case invalidParameter
        case failed
        case controlNotPermitted
        case other(UInt8)

        init(_ code: UInt8) {
            switch code {
            case 0x01: self = .success
            case 0x02: self = .notSupported
            case 0x03: self = .invalidParameter
            case 0x04: self = .failed
            case 0x05: self = .controlNotPermitted
            default: self = .other(code)
            }
        }

        /// In words, for a sentence: "not supported".
        public var words: String {
            switch self {
            case .success: tr("done")
            case .notSupported: tr("not supported")
            case .invalidParameter: tr("an invalid value")
            case .failed: tr("failed")
            case .controlNotPermitted: tr("control not permitted")
            case .other(let code): tr("result {code}", ["code": "\(code)"])
            }
        }
    }

    public var opcode: UInt8
    public var result: Result

    /// nil for anything but a response code (0x80) followed by an opcode and a result.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 3, bytes[0] == 0x80 else { return nil }
        (opcode, result) = (bytes[1], Result(bytes[2]))
    }
}

/// The machine status characteristic (0x2ADA): control lost, which stops the plan's targets, and a stop or pause on
/// the machine's own keys, which intervald does not undo (it sends no start for it); the rest is not told apart.
public enum FitnessMachineStatus: Sendable, Equatable {
    /// 0xFF: the machine took control back (its own keys, another app).
    case controlLost
    /// 0x02 with 0x01: stopped by the person on the machine, or 0x02 0x02: paused there.
    case stoppedOnMachine
    /// Anything else (started, a target changed, a reset).
    case other

    public init?(_ bytes: [UInt8]) {
        guard let code = bytes.first else { return nil }
        switch code {
        case 0xFF: self = .controlLost
        case 0x02: self = .stoppedOnMachine
        default: self = .other
        }
    }
}

/// What a machine says of itself in its treadmill data (0x2ACD) or indoor bike data (0x2AD2) notifications.
public struct MachineReading: Sendable, Equatable, Codable {
    /// km/h.
    public var speed: Double?
    /// Metres since the machine started.
    public var distance: Int?
    /// Percent (a treadmill).
    public var incline: Double?
    /// Watts (a bike).
    public var power: Int?
    /// Revolutions a minute (a bike).
    public var cadence: Double?

    public init(
        speed: Double? = nil, distance: Int? = nil, incline: Double? = nil, power: Int? = nil, cadence: Double? = nil
    ) {
        (self.speed, self.distance, self.incline, self.power, self.cadence) = (speed, distance, incline, power, cadence)
    }

    /// Each reading's name: in the `MachineReadings` property and as a key of `intervalctl status --json`'s `machine`.
    public enum Field: String, Sendable, CaseIterable {
        case speed, distance, incline, power, cadence
    }

    /// What the machine reports, in ``Field``'s order.
    public var fields: [Field] {
        Field.allCases.filter { field in
            switch field {
            case .speed: speed != nil
            case .distance: distance != nil
            case .incline: incline != nil
            case .power: power != nil
            case .cadence: cadence != nil
            }
        }
    }

    /// A bike's reading (it reports power or cadence), shown as its watts and rpm; a treadmill's as its speed and
    /// distance.
    public var isBike: Bool { power != nil || cadence != nil }

    /// As status and the window show it: a treadmill's "12.0 km/h · 350 m" (and its incline, "· 2.0 %", when it is
    /// not flat), a bike's "210 W · 90 rpm"; "" when it reports none of these.
    public var text: String { parts.map(\.shown).joined(separator: " · ") }

    /// As a screen reader says it: "Speed 12.0 km/h, distance 350 m".
    public var spokenText: String {
        let spoken = parts.map(\.spoken).joined(separator: ", ")
        return spoken.prefix(1).uppercased() + spoken.dropFirst()
    }

    /// "350 m", "1.25 km" from a kilometre on, with the user's decimal separator.
    public static func distanceText(_ metres: Int) -> String {
        metres < 1000 ? "\(metres) m" : "\(PlanReport.format2(Double(metres) / 1000)) km"
    }

    private var parts: [(shown: String, spoken: String)] {
        var parts: [(shown: String, spoken: String)] = []
        func add(_ shown: String, _ spoken: (String) -> String) { parts.append((shown, spoken(shown))) }
        if isBike {
            if let power { add("\(power) W") { tr("power {power}", ["power": $0]) } }
            if let cadence { add("\(Int(cadence.rounded())) rpm") { tr("cadence {cadence}", ["cadence": $0]) } }
        } else {
            if let speed { add("\(PlanReport.format1(speed)) km/h") { tr("speed {speed}", ["speed": $0]) } }
            if let distance { add(Self.distanceText(distance)) { tr("distance {distance}", ["distance": $0]) } }
            if let incline, incline != 0 {
                add("\(PlanReport.format1(incline)) %") { tr("incline {incline}", ["incline": $0]) }
            }
        }
        return parts
    }

    /// Treadmill data (FTMS §4.9): a 16-bit flags field, then the fields it flags in order. Bit 0 *clear* means the
    /// instantaneous speed is there; bit 1 average speed; bit 2 total distance (24 bits); bit 3 inclination and ramp
    /// angle. Later fields are not read. nil when cut short.
    public init?(treadmillData bytes: [UInt8]) {
        self.init(bytes, layout: [.speed, .skipped(2), .distance, .incline])
    }

    /// Indoor bike data (FTMS §4.9.1): bit 0 *clear* instantaneous speed; bit 1 average speed; bit 2 instantaneous
    /// cadence (0.5 rpm); bit 3 average cadence; bit 4 total distance (24 bits); bit 5 resistance level; bit 6
    /// instantaneous power (signed W). Later fields are not read. nil when cut short.
    public init?(indoorBikeData bytes: [UInt8]) {
        self.init(bytes, layout: [.speed, .skipped(2), .cadence, .skipped(2), .distance, .skipped(2), .power])
    }

    /// A data field, in the order of the flags' bits from bit 0.
    private enum DataField {
        case speed, distance, incline, cadence, power
        /// A field of so many bytes intervald does not read.
        case skipped(Int)
    }

    private init?(_ bytes: [UInt8], layout: [DataField]) {
        var reader = LittleEndianReader(bytes)
        guard let flags = reader.uint16() else { return nil }
        for (bit, field) in layout.enumerated() {
            // Bit 0 is "more data": clear when the first field (the speed) is there.
            let present = bit == 0 ? flags & 1 == 0 : flags & (1 << bit) != 0
            guard present else { continue }
            switch field {
            case .speed:
                guard let speed = reader.uint16() else { return nil }
                self.speed = Double(speed) / 100
            case .distance:
                guard let distance = reader.uint24() else { return nil }
                self.distance = distance
            case .incline:
                // The ramp angle follows the inclination.
                guard let incline = reader.int16(), reader.int16() != nil else { return nil }
                self.incline = Double(incline) / 10
            case .cadence:
                guard let cadence = reader.uint16() else { return nil }
                self.cadence = Double(cadence) / 2
            case .power:
                guard let power = reader.int16() else { return nil }
                self.power = power
            case .skipped(let count):
                for _ in 0..<count { guard reader.uint8() != nil else { return nil } }
            }
        }
    }
}

/// What a machine accepts as a target: its supported speed range (0x2AD4, 0.01 km/h) or power range (0x2AD8, W), each
/// a minimum, a maximum and an increment. A target outside it is refused (result 0x03), so one is brought inside first.
public struct FitnessMachineRange: Sendable, Equatable {
    public var minimum: Int
    public var maximum: Int
    public var increment: Int

    public init(minimum: Int, maximum: Int, increment: Int) {
        (self.minimum, self.maximum, self.increment) = (minimum, maximum, increment)
    }

    /// Supported speed range: three unsigned 16-bit numbers. nil when cut short or empty.
    public init?(speedRange bytes: [UInt8]) {
        var reader = LittleEndianReader(bytes)
        guard let minimum = reader.uint16(), let maximum = reader.uint16(), let increment = reader.uint16() else {
            return nil
        }
        self.init(checking: minimum, maximum, increment)
    }

    /// Supported power range: a signed minimum and maximum, an unsigned increment. nil when cut short or empty.
    public init?(powerRange bytes: [UInt8]) {
        var reader = LittleEndianReader(bytes)
        guard let minimum = reader.int16(), let maximum = reader.int16(), let increment = reader.uint16() else {
            return nil
        }
        self.init(checking: minimum, maximum, increment)
    }

    private init?(checking minimum: Int, _ maximum: Int, _ increment: Int) {
        guard minimum <= maximum else { return nil }
        self.init(minimum: minimum, maximum: maximum, increment: max(increment, 1))
    }

    /// `request` with its target inside the range, on a step of its increment; anything else as it is.
    public func fitting(_ request: FitnessMachineRequest) -> FitnessMachineRequest {
        switch request {
        case .targetSpeed(let speed): .targetSpeed(hundredthsOfKilometresPerHour: fitting(speed))
        case .targetPower(let watts): .targetPower(watts: fitting(watts))
        default: request
        }
    }

    private func fitting(_ value: Int) -> Int {
        let steps = (min(max(value, minimum), maximum) - minimum + increment / 2) / increment
        return min(minimum + steps * increment, maximum)
    }
}

/// The ceilings a machine is never sent above (`[machine] max_speed`, `max_power`).
public struct MachineCeilings: Sendable, Equatable {
    /// km/h.
    public var speed: Double
    /// Watts.
    public var power: Int

    public static let standard = MachineCeilings(speed: 16, power: 400)

    public init(speed: Double, power: Int) {
        (self.speed, self.power) = (speed, power)
    }

    /// The top speed to a tenth: "16.0".
    public var speedText: String {
        let tenths = Int((speed * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// The target a segment sets on a machine of `kind`, at most the ceiling, and whether the ceiling cut it; nil when
    /// the segment sets nothing there (no pace on a treadmill, no power on a bike): the machine stays as it is. A
    /// power range is sent as its middle.
    public func request(for segment: Segment, on kind: SensorKind) -> (request: FitnessMachineRequest, capped: Bool)? {
        switch kind {
        case .treadmill:
            guard let pace = segment.pace else { return nil }
            let wanted = Int((pace.metresPerSecond * 3.6 * 100).rounded())
            let ceiling = Int((speed * 100).rounded())
            return (.targetSpeed(hundredthsOfKilometresPerHour: min(wanted, ceiling)), wanted > ceiling)
        case .bike:
            guard let wanted = segment.target?.power?.watts else { return nil }
            return (.targetPower(watts: min(wanted, power)), wanted > power)
        case .heartRate:
            return nil
        }
    }
}

/// What a machine said during a workout, a sample a second: what the history and a FIT activity keep.
public struct MachineSample: WallClockSample, Sendable, Equatable, Codable {
    /// When, on the wall clock (µs since the Unix epoch).
    public var wall: Int64
    public var reading: MachineReading

    public init(wall: Int64, reading: MachineReading) {
        (self.wall, self.reading) = (wall, reading)
    }

    enum CodingKeys: String, CodingKey {
        case wall = "wall_us", reading
    }
}

extension MachineSample {
    /// `samples` with their distance counted from the workout's first reading of one, as the history and a FIT
    /// activity keep it: a machine counts from when it started, perhaps before the workout, and starts over when it is
    /// stopped, so a count that goes back is taken as a new count added to what was covered.
    public static func countingDistanceFromTheFirst(_ samples: [MachineSample]) -> [MachineSample] {
        var previous: Int?
        var covered = 0
        return samples.map { sample in
            guard let distance = sample.reading.distance else { return sample }
            if let previous { covered += distance >= previous ? distance - previous : distance }
            previous = distance
            var counted = sample
            counted.reading.distance = covered
            return counted
        }
    }

    /// The averages and maximums of the samples from `start` up to `end` (µs, wall clock), and the distance covered
    /// then: the last distance in it less the last one before it (0 before the first, the distances being counted
    /// from it: ``countingDistanceFromTheFirst(_:)``). nil when no sample in it says anything summed.
    public static func summary(of samples: [MachineSample], from start: Int64 = .min, to end: Int64 = .max)
        -> MachineSummary?
    {
        let inside = samples.filter { $0.wall >= start && $0.wall < end }.map(\.reading)
        let before = samples.last { $0.wall < start && $0.reading.distance != nil }?.reading.distance ?? 0
        let speeds = inside.compactMap(\.speed)
        let powers = inside.compactMap(\.power)
        let cadences = inside.compactMap(\.cadence)
        let summary = MachineSummary(
            distance: inside.last { $0.distance != nil }?.distance.map { $0 - before },
            averageSpeed: average(speeds).map { ($0 * 100).rounded() / 100 }, maximumSpeed: speeds.max(),
            averagePower: average(powers.map(Double.init)).map { Int($0.rounded()) }, maximumPower: powers.max(),
            averageCadence: average(cadences).map { Int($0.rounded()) },
            maximumCadence: cadences.max().map { Int($0.rounded()) })
        return summary == MachineSummary() ? nil : summary
    }

    private static func average(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}

/// What a machine measured over a workout or one of its segments (docs/reference.md §5): each field absent when the
/// machine did not say it.
public struct MachineSummary: Sendable, Equatable, Codable {
    /// Metres covered, as the machine counted them.
    public var distance: Int?
    /// km/h, the average to 0.01.
    public var averageSpeed: Double?
    public var maximumSpeed: Double?
    /// Watts.
    public var averagePower: Int?
    public var maximumPower: Int?
    /// Revolutions a minute, rounded.
    public var averageCadence: Int?
    public var maximumCadence: Int?

    public init(
        distance: Int? = nil, averageSpeed: Double? = nil, maximumSpeed: Double? = nil, averagePower: Int? = nil,
        maximumPower: Int? = nil, averageCadence: Int? = nil, maximumCadence: Int? = nil
    ) {
        (self.distance, self.averageSpeed, self.maximumSpeed) = (distance, averageSpeed, maximumSpeed)
        (self.averagePower, self.maximumPower) = (averagePower, maximumPower)
        (self.averageCadence, self.maximumCadence) = (averageCadence, maximumCadence)
    }

    /// The JSON names, which the CSV's columns take too, in this order.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case distance
        case averageSpeed = "avg_speed", maximumSpeed = "max_speed"
        case averagePower = "avg_power", maximumPower = "max_power"
        case averageCadence = "avg_cadence", maximumCadence = "max_cadence"
    }
}

/// One property of `org.intervald.Timer1` (docs/reference.md §3): its name, D-Bus type, where its value lives in
/// ``TimerStatus``, and whether it announces changes. ``all`` is the one list of properties: the server's getters,
/// `PropertiesChanged`, the client's decoding and the interface's table (``BusNames/timerInterface``) all read it.
public struct TimerProperty: Sendable, CustomStringConvertible {
    /// A property's value, of one of the six D-Bus types the interface uses.
    public enum Value: Sendable, Equatable {
        case string(String)
        case uint16(UInt16)
        case uint32(UInt32)
        case uint64(UInt64)
        case boolean(Bool)
        case double(Double)
    }

    /// The D-Bus type signature of a property's value.
    public enum Signature: Character, Sendable {
        case string = "s"
        case uint16 = "q"
        case uint32 = "u"
        case uint64 = "t"
        case boolean = "b"
        case double = "d"
    }

    public let name: String
    public let signature: Signature
    /// False for the read-time snapshots (`Elapsed`, `SegmentRemaining`, `SegmentElapsed`, `Remaining`), which are annotated
    /// `org.freedesktop.DBus.Property.EmitsChangedSignal=false`.
    public let emitsChangedSignal: Bool
    /// What the value means, for docs/dbus-interfaces.md.
    public let doc: String
    private let read: @Sendable (TimerStatus) -> Value
    private let write: @Sendable (inout TimerStatus, Value) -> Bool

    public var description: String { name }

    /// The property's value in `status`.
    public func value(of status: TimerStatus) -> Value { read(status) }

    /// Stores `value` into `status`; false when it is not of this property's type or not a valid value.
    @discardableResult
    public func assign(_ value: Value, to status: inout TimerStatus) -> Bool { write(&status, value) }

    /// The property called `name`, if the interface has one.
    public static func named(_ name: String) -> TimerProperty? { byName[name] }

    public static let state = TimerProperty(
        name: "State", signature: .string, emitsChangedSignal: true, doc: "`idle`, `running` or `paused`.",
        read: { .string($0.state.rawValue) },
        write: { status, value in
            guard case .string(let text) = value, let state = TimerState(rawValue: text) else { return false }
            status.state = state
            return true
        })
    public static let planName = field(
        "PlanName", \.planName, doc: "The plan's name (its `name` directive, else the file name), \"\" when idle.")
    public static let planDuration = field(
        "PlanDuration", \.planDuration,
        doc: "The time of the plan's timed steps, µs; a step the person ends lasts as long as it is played.")
    public static let segmentIndex = field("SegmentIndex", \.segmentIndex, doc: "The current segment, 0-based.")
    public static let segmentCount = field("SegmentCount", \.segmentCount, doc: "How many segments the plan has.")
    public static let segmentKind = field(
        "SegmentKind", \.segmentKind, doc: "The current segment's kind as the plan spells it (`run`, `walk`, …).")
    public static let segmentLabel = field(
        "SegmentLabel", \.segmentLabel,
        doc: "The current segment's label (the kind, capitalised, when the plan gives none).")
    public static let segmentDuration = field(
        "SegmentDuration", \.segmentDuration, doc: "The current segment's length, µs; 0 for a step the person ends.")
    public static let nextLabel = field(
        "NextLabel", \.nextLabel, doc: "The next segment's label, \"\" in the last one.")
    public static let elapsed = field(
        "Elapsed", \.elapsed,
        doc: "Time into the workout at the instant of the read, µs (pauses excluded; the steps the person ended, as "
            + "long as they played, included).",
        emitsChangedSignal: false)
    public static let segmentRemaining = field(
        "SegmentRemaining", \.segmentRemaining, doc: "Time left in the current segment at the instant of the read, µs.",
        emitsChangedSignal: false)
    public static let inhibited = field(
        "Inhibited", \.inhibited,
        doc: "What keeps the computer awake during the workout, space-separated: `portal`, `gnome-session` or "
            + "`power-management` (the suspend inhibitor), then `logind` (the sleep delay); \"\" when nothing is held.")
    public static let open = field(
        "Open", \.open,
        doc: "True during a step the person ends (`open`, or a distance without a pace): it ends by `Skip`, "
            + "`SegmentRemaining` is 0 and `SegmentElapsed` counts up.")
    public static let segmentElapsed = field(
        "SegmentElapsed", \.segmentElapsed,
        doc: "Time into the current segment at the instant of the read, µs (pauses excluded); in an open step, how "
            + "long it has played.",
        emitsChangedSignal: false)

    public static let remaining = field(
        "Remaining", \.remaining,
        doc: "The time of the timed steps still to come at the instant of the read, µs: `PlanDuration` less the plan's "
            + "time so far (steps the person ends have none).",
        emitsChangedSignal: false)
    public static let segmentDistance = field(
        "SegmentDistance", \.segmentDistance,
        doc: "The current step's distance in metres, for a step written as one (`0.4km run`); 0 for any other.")
    public static let segmentHeartRateBound = field(
        "SegmentHeartRateBound", \.segmentHeartRateBound,
        doc: "The heart rate that ends the current step, as the plan writes it (`hr<120`, `hr>160`); \"\" for any "
            + "other step.")
    public static let segmentTarget = field(
        "SegmentTarget", \.segmentTarget,
        doc: "What the current step is held at, as the plan writes it after `@`: a pace (`5:00/km`), a power (`200W`, "
            + "`300-310W`) or a heart-rate range (`130-150bpm`); \"\" for a step without a target.")
    public static let heartRate = field(
        "HeartRate", \.heartRate,
        doc: "The chosen heart-rate strap's last measurement in bpm; 0 while none is heard (no strap chosen, not found "
            + "yet, or lost). Announced at most once a second.")
    public static let machineReadings = field(
        "MachineReadings", \.machineReadings,
        doc:
            "What the chosen treadmill or bike reports, space-separated, of `speed`, `distance`, `incline`, `power` and "
            + "`cadence`; \"\" while no machine is heard. The other machine properties are 0 where it names none; all of them are announced at most once a "
            + "second.")
    public static let speed = field(
        "Speed", \.speed, doc: "The machine's speed in km/h (a bike's, as it works it out); 0 while none is heard.")
    public static let machineDistance = field(
        "MachineDistance", \.machineDistance,
        doc: "The metres the machine counts since it started; 0 while none is heard.")
    public static let incline = field(
        "Incline", \.incline, doc: "A treadmill's incline in percent, negative downhill; 0 while none is heard.")
    public static let power = field(
        "Power", \.power, doc: "A bike's power in watts; 0 while none is heard, and for a negative reading.")
    public static let cadence = field(
        "Cadence", \.cadence, doc: "A bike's cadence in revolutions a minute; 0 while none is heard.")
    public static let planOpenSteps = field(
        "PlanOpenSteps", \.planOpenSteps,
        doc: "How many of the plan's steps the person ends (`open`, a distance without a pace): `PlanDuration` leaves "
            + "them out.")

    /// Every property, in the order of the interface's introspection.
    public static let all: [TimerProperty] = [
        state, planName, planDuration, segmentIndex, segmentCount, segmentKind, segmentLabel, segmentDuration,
        nextLabel, elapsed, segmentRemaining, inhibited, open, segmentElapsed, remaining, segmentDistance,
        planOpenSteps, segmentHeartRateBound, heartRate, segmentTarget, machineReadings, speed, machineDistance,
        incline, power,
        cadence,
    ]

    /// The properties a machine's reading sets (``TimerStatus/machineReading``): what is announced when it changes,
    /// at most once a second.
    public static let machineProperties: [TimerProperty] = [
        machineReadings, speed, machineDistance, incline, power, cadence,
    ]

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    private static func field<T: Sendable>(
        _ name: String, _ field: WritableKeyPath<TimerStatus, T> & Sendable, doc: String,
        emitsChangedSignal: Bool = true
    ) -> TimerProperty where T: TimerPropertyType {
        TimerProperty(
            name: name, signature: T.signature, emitsChangedSignal: emitsChangedSignal, doc: doc,
            read: { T.wrap($0[keyPath: field]) },
            write: { status, value in
                guard let typed = value[keyPath: T.unwrap] else { return false }
                status[keyPath: field] = typed
                return true
            })
    }
}

extension TimerProperty.Value {
    var string: String? { if case .string(let text) = self { text } else { nil } }
    var uint16: UInt16? { if case .uint16(let number) = self { number } else { nil } }
    var uint32: UInt32? { if case .uint32(let number) = self { number } else { nil } }
    var uint64: UInt64? { if case .uint64(let number) = self { number } else { nil } }
    var boolean: Bool? { if case .boolean(let flag) = self { flag } else { nil } }
    var double: Double? { if case .double(let number) = self { number } else { nil } }
}

/// The Swift types of the properties' values: the D-Bus type, and the case of ``TimerProperty/Value`` each is.
protocol TimerPropertyType {
    static var signature: TimerProperty.Signature { get }
    static var wrap: @Sendable (Self) -> TimerProperty.Value { get }
    static var unwrap: KeyPath<TimerProperty.Value, Self?> & Sendable { get }
}

extension String: TimerPropertyType {
    static let signature = TimerProperty.Signature.string, wrap = TimerProperty.Value.string,
        unwrap = \TimerProperty.Value.string
}

extension UInt16: TimerPropertyType {
    static let signature = TimerProperty.Signature.uint16, wrap = TimerProperty.Value.uint16,
        unwrap = \TimerProperty.Value.uint16
}

extension UInt32: TimerPropertyType {
    static let signature = TimerProperty.Signature.uint32, wrap = TimerProperty.Value.uint32,
        unwrap = \TimerProperty.Value.uint32
}

extension UInt64: TimerPropertyType {
    static let signature = TimerProperty.Signature.uint64, wrap = TimerProperty.Value.uint64,
        unwrap = \TimerProperty.Value.uint64
}

extension Bool: TimerPropertyType {
    static let signature = TimerProperty.Signature.boolean, wrap = TimerProperty.Value.boolean,
        unwrap = \TimerProperty.Value.boolean
}

extension Double: TimerPropertyType {
    static let signature = TimerProperty.Signature.double, wrap = TimerProperty.Value.double,
        unwrap = \TimerProperty.Value.double
}

extension TimerStatus {
    /// The properties whose values differ from `old`, for `PropertiesChanged`; the read-time snapshots are never
    /// listed.
    public func changedProperties(since old: TimerStatus) -> [String] {
        TimerProperty.all.filter { $0.emitsChangedSignal && $0.value(of: old) != $0.value(of: self) }.map(\.name)
    }
}

/// One property of `org.intervald.Timer1` (docs/reference.md §3): its name, D-Bus type, where its value lives in
/// ``TimerStatus``, and whether it announces changes. ``all`` is the one list of properties: the server's getters,
/// `PropertiesChanged`, the client's decoding and the interface's table (``BusNames/timerInterface``) all read it.
public struct TimerProperty: Sendable, CustomStringConvertible {
    /// A property's value, of one of the three D-Bus types the interface uses.
    public enum Value: Sendable, Equatable {
        case string(String)
        case uint32(UInt32)
        case uint64(UInt64)
    }

    /// The D-Bus type signature of a property's value.
    public enum Signature: Character, Sendable {
        case string = "s"
        case uint32 = "u"
        case uint64 = "t"
    }

    public let name: String
    public let signature: Signature
    /// False for the read-time snapshots (`Elapsed`, `SegmentRemaining`), which are annotated
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
    public static let planName = string(
        "PlanName", \.planName, doc: "The plan's name (its `name` directive, else the file name), \"\" when idle.")
    public static let planDuration = uint64("PlanDuration", \.planDuration, doc: "The plan's total duration, µs.")
    public static let segmentIndex = uint32("SegmentIndex", \.segmentIndex, doc: "The current segment, 0-based.")
    public static let segmentCount = uint32("SegmentCount", \.segmentCount, doc: "How many segments the plan has.")
    public static let segmentKind = string(
        "SegmentKind", \.segmentKind, doc: "The current segment's kind as the plan spells it (`run`, `walk`, …).")
    public static let segmentLabel = string(
        "SegmentLabel", \.segmentLabel,
        doc: "The current segment's label (the kind, capitalised, when the plan gives none).")
    public static let segmentDuration = uint64(
        "SegmentDuration", \.segmentDuration, doc: "The current segment's length, µs.")
    public static let nextLabel = string(
        "NextLabel", \.nextLabel, doc: "The next segment's label, \"\" in the last one.")
    public static let elapsed = uint64(
        "Elapsed", \.elapsed, doc: "Time into the workout at the instant of the read, µs (pauses excluded).",
        emitsChangedSignal: false)
    public static let segmentRemaining = uint64(
        "SegmentRemaining", \.segmentRemaining, doc: "Time left in the current segment at the instant of the read, µs.",
        emitsChangedSignal: false)

    /// Every property, in the order of the interface's introspection.
    public static let all: [TimerProperty] = [
        state, planName, planDuration, segmentIndex, segmentCount, segmentKind, segmentLabel, segmentDuration,
        nextLabel, elapsed, segmentRemaining,
    ]

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    private static func string(
        _ name: String, _ field: WritableKeyPath<TimerStatus, String> & Sendable, doc: String,
        emitsChangedSignal: Bool = true
    ) -> TimerProperty {
        TimerProperty(
            name: name, signature: .string, emitsChangedSignal: emitsChangedSignal, doc: doc,
            read: { .string($0[keyPath: field]) },
            write: { status, value in
                guard case .string(let text) = value else { return false }
                status[keyPath: field] = text
                return true
            })
    }

    private static func uint32(
        _ name: String, _ field: WritableKeyPath<TimerStatus, UInt32> & Sendable, doc: String,
        emitsChangedSignal: Bool = true
    ) -> TimerProperty {
        TimerProperty(
            name: name, signature: .uint32, emitsChangedSignal: emitsChangedSignal, doc: doc,
            read: { .uint32($0[keyPath: field]) },
            write: { status, value in
                guard case .uint32(let number) = value else { return false }
                status[keyPath: field] = number
                return true
            })
    }

    private static func uint64(
        _ name: String, _ field: WritableKeyPath<TimerStatus, UInt64> & Sendable, doc: String,
        emitsChangedSignal: Bool = true
    ) -> TimerProperty {
        TimerProperty(
            name: name, signature: .uint64, emitsChangedSignal: emitsChangedSignal, doc: doc,
            read: { .uint64($0[keyPath: field]) },
            write: { status, value in
                guard case .uint64(let number) = value else { return false }
                status[keyPath: field] = number
                return true
            })
    }
}

extension TimerStatus {
    /// The properties whose values differ from `old`, for `PropertiesChanged`; the read-time snapshots are never
    /// listed.
    public func changedProperties(since old: TimerStatus) -> [String] {
        TimerProperty.all.filter { $0.emitsChangedSignal && $0.value(of: old) != $0.value(of: self) }.map(\.name)
    }
}

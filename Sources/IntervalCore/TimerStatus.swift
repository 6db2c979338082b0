/// The daemon's properties (spec §3) at one instant. Times are microseconds.
public struct TimerStatus: Sendable, Equatable, Codable {
    public var state: TimerState
    public var planName: String
    public var planDuration: UInt64
    public var segmentIndex: UInt32
    public var segmentCount: UInt32
    public var segmentKind: String
    public var segmentLabel: String
    public var segmentDuration: UInt64
    public var nextLabel: String
    public var elapsed: UInt64
    public var segmentRemaining: UInt64

    public init(
        state: TimerState, planName: String, planDuration: UInt64, segmentIndex: UInt32, segmentCount: UInt32,
        segmentKind: String, segmentLabel: String, segmentDuration: UInt64, nextLabel: String, elapsed: UInt64,
        segmentRemaining: UInt64
    ) {
        self.state = state
        self.planName = planName
        self.planDuration = planDuration
        self.segmentIndex = segmentIndex
        self.segmentCount = segmentCount
        self.segmentKind = segmentKind
        self.segmentLabel = segmentLabel
        self.segmentDuration = segmentDuration
        self.nextLabel = nextLabel
        self.elapsed = elapsed
        self.segmentRemaining = segmentRemaining
    }

    /// Nothing runs.
    public static let idle = TimerStatus(
        state: .idle, planName: "", planDuration: 0, segmentIndex: 0, segmentCount: 0, segmentKind: "",
        segmentLabel: "", segmentDuration: 0, nextLabel: "", elapsed: 0, segmentRemaining: 0
    )
}

/// A control request the timer refuses, with the D-Bus error name it is answered with (spec §3).
public struct TimerCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case invalidPlan, alreadyRunning, notRunning, invalidState
    }

    public var code: Code
    /// A full sentence; for `invalidPlan`, the located diagnostic.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var busErrorName: String {
        switch code {
        case .invalidPlan: BusNames.Error.invalidPlan
        case .alreadyRunning: BusNames.Error.alreadyRunning
        case .notRunning: BusNames.Error.notRunning
        case .invalidState: BusNames.Error.invalidState
        }
    }

    public var description: String { message }
}

extension TimerStatus {
    /// The properties whose values differ from `old`, for `PropertiesChanged`; the read-time snapshots `Elapsed` and
    /// `SegmentRemaining` emit no change signal and are never listed.
    public func changedProperties(since old: TimerStatus) -> [String] {
        typealias Property = BusNames.Property
        var names: [String] = []
        if old.state != state { names.append(Property.state) }
        if old.planName != planName { names.append(Property.planName) }
        if old.planDuration != planDuration { names.append(Property.planDuration) }
        if old.segmentIndex != segmentIndex { names.append(Property.segmentIndex) }
        if old.segmentCount != segmentCount { names.append(Property.segmentCount) }
        if old.segmentKind != segmentKind { names.append(Property.segmentKind) }
        if old.segmentLabel != segmentLabel { names.append(Property.segmentLabel) }
        if old.segmentDuration != segmentDuration { names.append(Property.segmentDuration) }
        if old.nextLabel != nextLabel { names.append(Property.nextLabel) }
        return names
    }
}

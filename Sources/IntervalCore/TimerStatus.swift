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
    public enum Code: Sendable, Equatable, CaseIterable {
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

    /// Pause, Resume, Skip or a button with nothing running.
    public static let notRunning = TimerCommandError(.notRunning, "No workout is running.")
}

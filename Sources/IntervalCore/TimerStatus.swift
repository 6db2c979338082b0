/// The daemon's properties (docs/reference.md §3) at one instant. Times are microseconds.
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
    /// What keeps the computer from suspending during the workout (docs/reference.md §6), space-separated: the
    /// idle-suspend inhibitor's interface (`portal`, `gnome-session` or `power-management`), then `logind` while its
    /// sleep delay is held; "" when nothing is held. The daemon fills it in; a session alone knows nothing of it.
    public var inhibited = ""
    /// The current segment is a step the person ends (docs/plan-language.md): it has no time left, and
    /// ``segmentElapsed`` counts up.
    public var open = false
    /// Time into the current segment, pauses excluded: in an open step, how long it has played.
    public var segmentElapsed: UInt64 = 0
    /// The time of the timed steps still to come: the plan's ``planDuration`` less its time so far, skips included,
    /// the steps the person ends left out.
    public var remaining: UInt64 = 0
    /// Metres, for a step written as a distance (`0.4km run`); 0 for any other.
    public var segmentDistance: UInt32 = 0
    /// How many of the plan's steps the person ends: ``planDuration`` leaves them out.
    public var planOpenSteps: UInt32 = 0
    /// The heart rate that ends the current step, as the plan writes it (`hr<120`); "" for any other.
    public var segmentHeartRateBound = ""
    /// What the current step is held at, as the plan writes it after `@` (`5:00/km`, `200W`, `130-150bpm`); "" for
    /// a step without a target.
    public var segmentTarget = ""
    /// The chosen strap's heart rate in bpm; 0 while none is heard (docs/sensors.md).
    public var heartRate: UInt16 = 0
    /// What the chosen machine reports (``MachineReading/Field``), space-separated: "speed distance incline"; "" while
    /// none is heard. ``machineReading`` reads the fields below through it.
    public var machineReadings = ""
    /// The machine's last reading, 0 where ``machineReadings`` names none: km/h, metres, percent, watts (none below 0),
    /// revolutions a minute.
    public var speed = 0.0
    public var machineDistance: UInt32 = 0
    public var incline = 0.0
    public var power: UInt16 = 0
    public var cadence = 0.0

    /// Nothing runs.
    public static let idle = TimerStatus(
        state: .idle, planName: "", planDuration: 0, segmentIndex: 0, segmentCount: 0, segmentKind: "",
        segmentLabel: "", segmentDuration: 0, nextLabel: "", elapsed: 0, segmentRemaining: 0
    )
}

extension TimerStatus {
    /// The machine's last reading as the properties carry it: nil while none is heard, nil where it reports nothing.
    public var machineReading: MachineReading? {
        get {
            let fields = Set(
                machineReadings.split(separator: " ").compactMap { MachineReading.Field(rawValue: String($0)) })
            guard !fields.isEmpty else { return nil }
            return MachineReading(
                speed: fields.contains(.speed) ? speed : nil,
                distance: fields.contains(.distance) ? Int(machineDistance) : nil,
                incline: fields.contains(.incline) ? incline : nil,
                power: fields.contains(.power) ? Int(power) : nil,
                cadence: fields.contains(.cadence) ? cadence : nil)
        }
        set {
            machineReadings = newValue?.fields.map(\.rawValue).joined(separator: " ") ?? ""
            speed = newValue?.speed ?? 0
            machineDistance = UInt32(clamping: newValue?.distance ?? 0)
            incline = newValue?.incline ?? 0
            power = UInt16(clamping: newValue?.power ?? 0)
            cadence = newValue?.cadence ?? 0
        }
    }
}

/// A control request the timer refuses, with the D-Bus error name it is answered with (docs/reference.md §3).
public struct TimerCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Each refusal and the D-Bus error name it is sent as: the one table from which both the daemon's replies and
    /// the client's reading of them come.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        case invalidPlan = "org.intervald.Timer1.Error.InvalidPlan"
        case alreadyRunning = "org.intervald.Timer1.Error.AlreadyRunning"
        case notRunning = "org.intervald.Timer1.Error.NotRunning"
        case invalidState = "org.intervald.Timer1.Error.InvalidState"

        /// When the timer answers with it, for docs/dbus-interfaces.md.
        public var doc: String {
            switch self {
            case .invalidPlan:
                "`Start`: the plan does not parse (the message is the located diagnostic) or its text is over 1 MiB; "
                    + "a desktop request for a plan that is not there."
            case .alreadyRunning:
                "`Start` or `StartProgram` without `replace` while a plan runs; the running plan is untouched."
            case .notRunning: "`Pause`, `Resume`, `Skip` or `Restart` with nothing running."
            case .invalidState:
                "`Pause` while paused, `Resume` while running; `StartProgram` of a complete program; "
                    + "`RemindProgram` while the daemon starts."
            }
        }
    }

    public var code: Code
    /// A full sentence; for `invalidPlan`, the located diagnostic.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var busErrorName: String { code.rawValue }

    public var description: String { message }

    /// Pause, Resume, Skip or a button with nothing running.
    public static let notRunning = TimerCommandError(.notRunning, "No workout is running.")

    /// A start while plan `planName` runs: the fact alone, in the language of the process that says it (the daemon
    /// says it in its own; a client says it again in the person's, docs/reference.md §3).
    public static func alreadyRunning(_ planName: String) -> TimerCommandError {
        TimerCommandError(.alreadyRunning, tr("“{plan}” is running.", ["plan": Localization.planName(planName)]))
    }
}

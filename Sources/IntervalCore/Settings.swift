/// The daemon's settings (docs/reference.md §4a), with the defaults a missing or broken file falls back to.
public struct Settings: Sendable, Equatable {
    public var style = CueStyle()
    /// The pre-cue for plans that have no `countdown` directive; nil for none.
    public var defaultCountdown: Int64?
    public var hooks = Hooks()
    /// How long (µs) an idle daemon waits before it exits (docs/reference.md §5 `idle-exit`); nil never exits.
    public var idleExit: Int64? = 120 * 1_000_000
    /// Cue sounds and voice (docs/reference.md §4b).
    public var sound = SoundSettings.defaults
    /// Ask feedbackd for a tap at each cue (docs/reference.md §4d).
    public var hapticsEnabled = true
    /// Show the workout as a tray item (docs/reference.md §12).
    public var trayEnabled = true
    /// What a sleep of the computer does to a running workout (docs/reference.md §6).
    public var onSleep = SleepPolicy.pause
    /// The Bluetooth sensors chosen (docs/sensors.md).
    public var sensors = Sensors()
    /// `[machine] max_speed`: the fastest a treadmill is asked to go, in km/h; a faster target is sent as this
    /// (docs/machines.md).
    public var machineMaxSpeed = MachineCeilings.standard.speed
    /// `[machine] max_power`: the most a bike is asked to hold, in watts; a higher target is sent as this.
    public var machineMaxPower = MachineCeilings.standard.power

    /// Both ceilings, as a machine is driven under them.
    public var machineCeilings: MachineCeilings { MachineCeilings(speed: machineMaxSpeed, power: machineMaxPower) }

    /// `[sensors]`: the devices chosen by `intervalctl sensors use`, by address, and the person's maximum heart rate.
    public struct Sensors: Sendable, Equatable {
        /// The heart-rate strap's address (`C0:FF:EE:12:34:56`); nil: none.
        public var heartRate: String?
        /// The treadmill's or bike's address; nil: none.
        public var machine: String?
        /// Beats per minute, for heart rates given as a percentage of the maximum; nil: not known.
        public var maxHeartRate: Int?

        public init() {}

        /// The address chosen for `kind`.
        public func address(for kind: SensorKind) -> String? {
            kind == .heartRate ? heartRate : machine
        }

        /// Whether `text` is a Bluetooth address as BlueZ writes one: six pairs of hex digits between colons.
        public static func isAddress(_ text: String) -> Bool {
            let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
            return pairs.count == 6 && pairs.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
        }
    }

    /// `[timing] on-sleep`.
    public enum SleepPolicy: String, Sendable, CaseIterable {
        /// Pause at the moment the computer goes to sleep; the person resumes.
        case pause
        /// Go on through the sleep on the boot clock: after the wake, the segment due now.
        case keepRunning = "continue"
    }

    /// Commands run on events, as argv (no shell), with `INTERVALD_*` variables in their environment.
    public struct Hooks: Sendable, Equatable {
        public var onCue: [String]?
        public var onFinish: [String]?
        public var onStop: [String]?

        public init(onCue: [String]? = nil, onFinish: [String]? = nil, onStop: [String]? = nil) {
            self.onCue = onCue
            self.onFinish = onFinish
            self.onStop = onStop
        }
    }

    /// The defaults; the settings file changes them one by one.
    public init() {}

    public static let defaults = Settings()

    /// How notifications look when the daemon plays the cue sounds itself (docs/reference.md §4b): silent,
    /// `suppress-sound`.
    public var notificationStyle: CueStyle { style.playingSoundItself(sound.enabled) }
}

extension Plan {
    /// This plan with `countdown` applied when it has no `countdown` directive of its own.
    public func defaultingCountdown(to countdown: Int64?) -> Plan {
        Plan(name: name, countdown: self.countdown ?? countdown, root: root, notes: notes)
    }
}

/// The D-Bus names of spec §3, defined once so that the daemon and its clients cannot drift apart.
public enum BusNames {
    public static let service = "org.intervald.Timer1"
    public static let objectPath = "/org/intervald/Timer1"
    public static let interface = "org.intervald.Timer1"

    public enum Method {
        public static let start = "Start"
        public static let stop = "Stop"
        public static let pause = "Pause"
        public static let resume = "Resume"
        public static let skip = "Skip"
    }

    public enum Signal {
        public static let segmentStarted = "SegmentStarted"
        public static let finished = "Finished"
        public static let stopped = "Stopped"
    }
}

/// What the timer is doing, as the `State` property spells it.
public enum TimerState: String, Sendable, Equatable, Codable {
    case idle, running, paused
}

/// Why a workout ended before its last segment, as `Stopped(s reason)` spells it.
public enum StopReason: String, Sendable, Equatable, Codable {
    /// `Stop()` over D-Bus (or `intervalctl stop`, or Ctrl-C in `intervalctl run`).
    case user
    /// The notification's Stop button.
    case notification
    /// `Start(…, replace: true)` while a plan ran.
    case replaced
    /// SIGTERM.
    case shutdown
}

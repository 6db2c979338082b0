/// The D-Bus names of docs/reference.md §3, defined once so that the daemon and its clients cannot drift apart.
public enum BusNames {
    public static let service = "org.intervald.Timer1"
    public static let objectPath = "/org/intervald/Timer1"
    public static let interface = "org.intervald.Timer1"

    public enum Signal: String, CaseIterable, Sendable {
        case segmentStarted = "SegmentStarted", finished = "Finished", stopped = "Stopped"
    }

    /// `org.intervald.Timer1` as a table: what the daemon exports and `intervalctl` calls.
    public static let timerInterface = BusInterface(
        name: interface, path: objectPath,
        summary: "The workout timer: start a plan, control it, read where it is, hear every change.",
        members: TimerProperty.all.map { property in
            .property(
                name: property.name, signature: String(property.signature.rawValue),
                change: property.emitsChangedSignal ? .emitsChange : .readTime, doc: property.doc)
        } + TimerMethods.all.map { $0.member } + [
            .signal(
                name: Signal.segmentStarted.rawValue,
                arguments: [.init("index", "u"), .init("kind", "s"), .init("label", "s"), .init("duration", "t")],
                doc: "At each change's instant: the segment that starts (0-based index, length in µs; 0 for a step the "
                    + "person ends)."),
            .signal(
                name: Signal.finished.rawValue, arguments: [.init("plan_name", "s")], doc: "The plan ran to its end."),
            .signal(
                name: Signal.stopped.rawValue, arguments: [.init("reason", "s")],
                doc: "The workout ended early: `user`, `notification`, `replaced` or `shutdown`."),
        ])
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

/// The D-Bus names of docs/reference.md §3, defined once so that the daemon and its clients cannot drift apart.
public enum BusNames {
    public static let service = "org.intervald.Timer1"
    public static let objectPath = "/org/intervald/Timer1"
    public static let interface = "org.intervald.Timer1"

    public enum Method: String, CaseIterable, Sendable {
        case start = "Start", stop = "Stop", pause = "Pause", resume = "Resume", skip = "Skip", restart = "Restart"
        case reloadSettings = "ReloadSettings", startProgram = "StartProgram", remindProgram = "RemindProgram"
    }

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
        } + [
            .method(
                name: Method.start.rawValue,
                arguments: [.init("plan", "s"), .init("origin", "s"), .init("replace", "b")], results: [],
                doc: "Starts `plan` (plan-language text; `origin` names it in diagnostics). While a plan runs, fails "
                    + "with `AlreadyRunning` unless `replace`, which stops it (reason `replaced`) first."),
            .method(
                name: Method.startProgram.rawValue,
                arguments: [.init("program", "s"), .init("day", "s"), .init("replace", "b")], results: [],
                doc: "Starts a day of training program `program` (a name, docs/programs.md): day `day` (`3.2`), or "
                    + "the next one when `day` is empty. The workout's name says the day; when it finishes, the day is "
                    + "done and the program moves on. `InvalidPlan` for a program or day that is not there, "
                    + "`InvalidState` for a complete program; `replace` as for `Start`."),
            .method(
                name: Method.remindProgram.rawValue, arguments: [.init("program", "s")], results: [],
                doc: "Shows program `program`'s reminder: a notification of its next day with Start and Later "
                    + "(docs/programs.md). What a reminder's systemd timer runs, through `intervalctl program remind "
                    + "--now NAME`. Shows nothing while a workout runs; `InvalidPlan` for a program that is not there."),
            BusInterface.method(Method.stop.rawValue, "Stops the workout (reason `user`); succeeds when none runs."),
            BusInterface.method(Method.pause.rawValue, "Pauses; `NotRunning` when idle, `InvalidState` when paused."),
            BusInterface.method(
                Method.resume.rawValue, "Resumes; `NotRunning` when idle, `InvalidState` when running."),
            BusInterface.method(Method.skip.rawValue, "Ends the current segment now; `NotRunning` when idle."),
            BusInterface.method(
                Method.restart.rawValue,
                "Starts the current segment again from its beginning, with its cue (the window's Restart, MPRIS "
                    + "`Previous`); `NotRunning` when idle."),
            .method(
                name: Method.reloadSettings.rawValue, arguments: [], results: [.init("problems", "as")],
                doc: "Reads `intervald.toml` again and applies it from the next cue, without interrupting a workout "
                    + "(as SIGHUP and a change of the file do); answers the file's problems, each with its line. A "
                    + "setting whose new value is invalid keeps the value it had."),
            .signal(
                name: Signal.segmentStarted.rawValue,
                arguments: [.init("index", "u"), .init("kind", "s"), .init("label", "s"), .init("duration", "t")],
                doc: "At each change's instant: the segment that starts (0-based index, length in µs)."),
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

/// What the exported `org.intervald.Timer1` object forwards to: the daemon's timer. Each ``TimerMethod`` hands its
/// decoded call to one of these requirements.
///
/// Every method is called on the `TimerBusServer`'s queue (IntervalBus), from within sd-bus's dispatch of a message.
/// A method may emit signals and property changes through the server while it runs (sd-bus sends them
/// before the method's reply). `status()` is also called while `TimerBusServer.emitPropertiesChanged(_:)`
/// runs, to read the changed values, so it must not assume it is never re-entered from another method.
public protocol TimerBusDelegate: AnyObject {
    /// `Start(s plan, s origin, b replace)`. The call is answered when `answer` is called, once, on the server's
    /// queue: the delegate may parse the plan elsewhere meanwhile, leaving the queue free.
    func start(
        plan: String, origin: String, replace: Bool,
        answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    /// A `Start` call's plan text was over ``WorkoutSession/maximumPlanTextBytes`` and was refused (`InvalidPlan`)
    /// without being copied or handed to ``start(plan:origin:replace:answer:)``. Called while the call's message is
    /// still held; it is freed once the current block on the server's queue ends.
    func refusedOversizedPlan(bytes: Int)
    /// `StartProgram(s program, s day, b replace)`: answered like ``start(plan:origin:replace:answer:)``.
    func startProgram(
        _ program: String, day: String, replace: Bool, answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    /// `RemindProgram(s program)`: answered like ``start(plan:origin:replace:answer:)``.
    func remindProgram(_ program: String, answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    /// `Stop()`: idempotent.
    func stop()
    /// `Pause()`.
    func pause() throws(TimerCommandError)
    /// `Resume()`.
    func resume() throws(TimerCommandError)
    /// `Skip()`.
    func skip() throws(TimerCommandError)
    /// `Restart()`: the current segment again, from its start.
    func restart() throws(TimerCommandError)
    /// `ReloadSettings()`: reads the settings file again and applies it; answers its problems.
    func reloadSettings() -> [String]
    /// The property values now (`Elapsed` and `SegmentRemaining` are read-time snapshots).
    func status() -> TimerStatus
}

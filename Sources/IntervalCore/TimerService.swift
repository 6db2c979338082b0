/// The daemon's timer, behind its D-Bus methods (spec §3): at most one workout, the `replace` rule, and the
/// properties. Like `Scheduler`, it is confined to its owner's serial queue.
public final class TimerService {
    private let timer: TimerSource
    private let onEvent: (SchedulerEvent, Plan) -> Void
    public private(set) var scheduler: Scheduler?
    /// The pre-cue for plans without a `countdown` directive (settings).
    public var defaultCountdown: Int64?

    /// `onEvent` hears every scheduler event with the plan it belongs to.
    public init(timer: TimerSource, onEvent: @escaping (SchedulerEvent, Plan) -> Void) {
        self.timer = timer
        self.onEvent = onEvent
    }

    /// A workout is running or paused.
    public var isActive: Bool { (scheduler?.state ?? .idle) != .idle }

    /// Parses `text` and starts it. `origin` names it in errors ("" for inline text).
    @discardableResult
    public func start(_ text: String, origin: String, replace: Bool) throws(TimerCommandError) -> Plan {
        let parsed: Plan
        do {
            parsed = try PlanParser.parse(
                text, origin: origin.isEmpty ? "<inline>" : origin,
                defaultName: origin.isEmpty ? PlanLocator.inlineName(for: text) : PlanLocator.planName(forPath: origin)
            )
        } catch {
            throw TimerCommandError(.invalidPlan, error.description)
        }
        let plan = parsed.defaultingCountdown(to: defaultCountdown)
        if let running = scheduler, running.state != .idle {
            guard replace else {
                throw TimerCommandError(
                    .alreadyRunning,
                    "'\(running.plan.name)' is running; stop it first, or start with replace to stop it and start the new plan."
                )
            }
            running.stop(.replaced)
        }
        let scheduler = Scheduler(plan: plan, timer: timer) { [weak self] event in
            self?.onEvent(event, plan)
        }
        self.scheduler = scheduler
        scheduler.start()
        return plan
    }

    /// Stops the workout, if one runs.
    public func stop(_ reason: StopReason) {
        scheduler?.stop(reason)
    }

    /// After a wake-up from suspend: see `Scheduler.resynchronize()`.
    public func resynchronize() {
        scheduler?.resynchronize()
    }

    /// A notification button was pressed.
    public func perform(_ action: NotificationAction) throws(TimerCommandError) { try active().perform(action) }

    public func pause() throws(TimerCommandError) { try active().pause() }
    public func resume() throws(TimerCommandError) { try active().resume() }
    public func skip() throws(TimerCommandError) { try active().skip() }

    private func active() throws(TimerCommandError) -> Scheduler {
        guard let scheduler, scheduler.state != .idle else {
            throw TimerCommandError(.notRunning, "No workout is running.")
        }
        return scheduler
    }

    /// The properties now.
    public var status: TimerStatus {
        guard let scheduler, scheduler.state != .idle, let segment = scheduler.current else { return .idle }
        let plan = scheduler.plan
        return TimerStatus(
            state: scheduler.state, planName: plan.name, planDuration: UInt64(plan.duration),
            segmentIndex: UInt32(clamping: segment.index), segmentCount: UInt32(clamping: plan.segmentCount),
            segmentKind: segment.kind, segmentLabel: segment.label, segmentDuration: UInt64(segment.duration),
            nextLabel: plan.segment(after: segment)?.label ?? "",
            elapsed: UInt64(max(scheduler.elapsed, 0)), segmentRemaining: UInt64(max(scheduler.segmentRemaining, 0))
        )
    }
}

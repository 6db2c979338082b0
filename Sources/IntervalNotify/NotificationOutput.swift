import Dispatch
import IntervalCore
import Logging

/// What ``NotificationOutput`` shows the workout through: ``LibNotifyNotifier``, or a test's recorder.
protocol CueNotifying: Notifier {
    /// Shows `notification` at `deadline` on the session's clock, sent from the notifier's own thread.
    func show(_ notification: WorkoutNotification, at deadline: ClockInstant)
    /// Drops what `show(_:at:)` prepared and has not sent yet.
    func cancelScheduled()
    /// Takes over the notification `id` that an earlier process left on screen.
    func adopt(serverID id: UInt32)
}

extension LibNotifyNotifier: CueNotifying {}

/// The workout's one notification (docs/reference.md §4) as an output of a ``WorkoutSession``: every event shows what
/// it means, a stop closes it, and a button pressed on it is performed on the session's queue. The daemon and
/// `intervalctl run` both use it, so buttons map to operations in this one place.
public final class NotificationOutput: WorkoutOutput, @unchecked Sendable {
    /// How cues look. Set anew (a reload), call ``restyle(_:)`` instead, so that the cue on screen and the one
    /// waiting for the next change are made again.
    public private(set) var style: CueStyle
    private let queue: DispatchQueue
    private let logger: Logger
    /// Confined to `queue`, like the session.
    private weak var session: WorkoutSession?
    private var notifier: (any CueNotifying)?
    /// The cue handed to the GLib thread for the next change: its workout, segment and deadline.
    private var scheduled: (workout: String, index: Int64, deadline: ClockInstant)?
    /// Hears, on `queue`, the server's id of the workout's notification whenever it changes (for the state file).
    public var onServerID: (UInt32) -> Void = { _ in }

    /// - Parameters:
    ///   - session: the session whose outputs this joins; button presses are performed on it, on `queue`.
    ///   - queue: the session's serial queue.
    ///   - onOpen: when given, a click on a cue's body calls it on `queue` (the daemon opens the window).
    public convenience init(
        style: CueStyle, session: WorkoutSession, queue: DispatchQueue, logger: Logger,
        onOpen: (@Sendable () -> Void)? = nil
    ) {
        let onOpenOnQueue = onOpen.map { open in { @Sendable in queue.async { open() } } }
        self.init(style: style, session: session, queue: queue, logger: logger) { onAction, onServerID in
            LibNotifyNotifier(
                appName: "intervald", logger: logger, onAction: onAction, onServerID: onServerID, onOpen: onOpenOnQueue)
        }
    }

    /// With the notifier `makeNotifier` returns, given the callbacks for its buttons and its server ids (libnotify's,
    /// or a test's recorder).
    init(
        style: CueStyle, session: WorkoutSession, queue: DispatchQueue, logger: Logger,
        makeNotifier: (
            _ onAction: @escaping @Sendable (NotificationAction) -> Void,
            _ onServerID: @escaping @Sendable (UInt32) -> Void
        ) -> any CueNotifying
    ) {
        self.style = style
        self.session = session
        self.queue = queue
        self.logger = logger
        notifier = makeNotifier(
            { [weak self] action in
                guard let output = self else { return }
                output.queue.async { output.press(action) }
            },
            { [weak self] id in
                guard let output = self else { return }
                output.queue.async { output.onServerID(id) }
            })
    }

    /// Takes over the notification a crashed or killed daemon left on screen: the next cue replaces it, or
    /// ``closeAdopted()`` closes it, so that no dead Stop button stays behind.
    public func adopt(serverID id: UInt32) {
        notifier?.adopt(serverID: id)
    }

    /// Closes an adopted notification when its workout is not continued.
    public func closeAdopted() {
        notifier?.close()
    }

    /// New settings (docs/reference.md §4c): the notification on screen is shown again in `style`, and the cue waiting
    /// for the next change made again, through `session`'s ``WorkoutSession/catchUp(_:)``.
    public func restyle(_ style: CueStyle) {
        guard style != self.style else { return }
        self.style = style
        session?.catchUp(self)
    }

    public func handle(_ moment: WorkoutMoment) {
        if !isScheduledCue(moment) {
            notifier?.cancelScheduled()
            if let notification = WorkoutPresenter.notification(
                for: moment.event, plan: moment.plan, style: style, program: moment.workout.program,
                paused: moment.status.state == .paused, pausedBySleep: moment.pausedBySleep,
                elapsed: moment.elapsed)
            {
                notifier?.show(notification)
            } else {
                notifier?.close()
            }
        }
        scheduleNextCue(after: moment)
    }

    /// The event is the cue ``scheduleNextCue(after:)`` handed to the GLib thread, arriving at its deadline: that
    /// thread showed it (or is showing it) at that instant. A skip brings the same segment early, and a wake-up from
    /// suspend late (the GLib thread drops it as stale then): both are shown here.
    private func isScheduledCue(_ moment: WorkoutMoment) -> Bool {
        guard case .segmentStarted(let segment, _) = moment.event, let scheduled else { return false }
        let lateness = moment.now - scheduled.deadline
        return scheduled.workout == moment.workout.id && scheduled.index == segment.index && lateness >= 0
            && lateness < LibNotifyNotifier.scheduledCueStaleAfter
    }

    /// Builds the next segment's cue now and has the GLib thread show it at the change, so that at the deadline only
    /// libnotify's send remains, with no hop from this queue (docs/reference.md §6: `Notify` within 1.5 ms of the
    /// schedule).
    private func scheduleNextCue(after moment: WorkoutMoment) {
        scheduled = nil
        guard moment.status.state == .running, let deadline = moment.nextChange, let current = moment.segment,
            let next = moment.plan.segment(after: current),
            let cue = WorkoutPresenter.notification(
                for: .segmentStarted(next, next: moment.plan.segment(after: next)), plan: moment.plan, style: style)
        else { return }
        notifier?.show(cue, at: deadline)
        scheduled = (moment.workout.id, next.index, deadline)
    }

    private func press(_ action: NotificationAction) {
        dispatchPrecondition(condition: .onQueue(queue))
        do {
            try session?.perform(action)
        } catch {
            logger.info(
                "Ignoring a notification button.", metadata: ["button": "\(action.label)", "reason": "\(error)"])
        }
    }
}

import IntervalCore

/// Ends an idle daemon (docs/reference.md §5 `idle-exit`): armed whenever no workout runs and no Start is being parsed,
/// disarmed by activity. D-Bus activation brings the daemon back for the next call.
public final class IdleExit: WorkoutOutput {
    private let timer: any TimerSource
    /// How long (µs) an idle daemon waits before it exits; nil: never. Set anew (a reload), it counts from now.
    public var delay: Int64? {
        didSet { rearm() }
    }
    private let onExpiry: () -> Void
    private var idle = true
    /// Start calls whose plans are being parsed off the queue.
    private var pendingStarts = 0
    /// Until when (the timer's clock, µs) the daemon stays though idle: a notification's buttons answer only while it
    /// runs.
    private var keptUntil: Int64 = 0

    /// `onExpiry` runs on `timer`'s queue when the daemon has been idle for `delay` µs (nil: never). While armed, the
    /// timer is the daemon's one wake-up; disarmed, it makes none.
    public init(delay: Int64?, timer: any TimerSource, onExpiry: @escaping () -> Void) {
        self.delay = delay
        self.timer = timer
        self.onExpiry = onExpiry
    }

    deinit {
        timer.disarm()
    }

    public func handle(_ moment: WorkoutMoment) {
        idle = moment.status.state == .idle
        rearm()
    }

    /// A Start call arrived (`true`) or was answered (`false`).
    public func startPending(_ pending: Bool) {
        pendingStarts += pending ? 1 : -1
        rearm()
    }

    /// Keeps an idle daemon for `duration` µs from now, at least (a reminder's Start and Later).
    public func keep(for duration: Int64) {
        keptUntil = max(keptUntil, timer.now + duration)
        rearm()
    }

    /// Whether nothing runs and no Start waits for its plan: the daemon may leave.
    public var isIdle: Bool { idle && pendingStarts == 0 }

    /// Arms the timer if the daemon is idle now (at start-up, when nothing was resumed).
    public func rearm() {
        guard let delay, idle, pendingStarts == 0 else {
            timer.disarm()
            return
        }
        timer.arm(at: max(timer.now + delay, keptUntil)) { [weak self] in self?.onExpiry() }
    }
}

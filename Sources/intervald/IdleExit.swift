import Dispatch
import IntervalCore

/// Ends an idle daemon (spec §5 `idle-exit`): armed whenever no workout runs and no Start is being parsed,
/// disarmed by activity. D-Bus activation brings the daemon back for the next call.
final class IdleExit: WorkoutOutput {
    private let timer: DispatchSourceTimer
    private let delay: Int64?
    private var idle = true
    /// Start calls whose plans are being parsed off the queue.
    private var pendingStarts = 0

    /// `onExpiry` runs on `queue` when the daemon has been idle for `delay` µs (nil: never).
    init(delay: Int64?, queue: DispatchQueue, onExpiry: @escaping () -> Void) {
        self.delay = delay
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler(handler: onExpiry)
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    func handle(_ moment: WorkoutMoment) {
        idle = moment.status.state == .idle
        rearm()
    }

    /// A Start call arrived (`true`) or was answered (`false`).
    func startPending(_ pending: Bool) {
        pendingStarts += pending ? 1 : -1
        rearm()
    }

    /// Arms the timer if the daemon is idle now (at start-up, when nothing was resumed).
    func rearm() {
        guard let delay, idle, pendingStarts == 0 else {
            timer.schedule(deadline: .distantFuture)
            return
        }
        timer.schedule(deadline: .now() + .microseconds(Int(clamping: delay)), leeway: .seconds(1))
    }
}

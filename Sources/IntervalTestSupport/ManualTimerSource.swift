import IntervalCore

/// A virtual clock for tests and simulations: time moves only when told, and the armed handler runs on the caller.
public final class ManualTimerSource: TimerSource {
    public private(set) var now: ClockInstant
    /// The armed deadline, if any.
    public private(set) var deadline: ClockInstant?
    private var handler: (() -> Void)?
    /// How many times a handler ran.
    public private(set) var fireCount = 0

    public init(now: ClockInstant = 0) {
        self.now = now
    }

    public func arm(at deadline: ClockInstant, handler: @escaping () -> Void) {
        self.deadline = deadline
        self.handler = handler
    }

    public func disarm() {
        deadline = nil
        handler = nil
    }

    /// Moves time forward by `duration`, firing each deadline that falls due, at its exact instant, in order.
    public func advance(by duration: Int64) {
        let target = now + duration
        while let due = deadline, due <= target {
            now = max(now, due)
            fireNow()
        }
        now = target
    }

    /// Moves time forward by `duration` without firing on the way, as when the machine sleeps, then fires once if due.
    public func jump(by duration: Int64) {
        now += duration
        if let due = deadline, due <= now { fireNow() }
    }

    /// Moves time forward by `duration` and fires nothing, not even a deadline that fell due: a suspend as the
    /// monotonic clock sees it, whose timers wait until the time they had left has passed after the wake-up.
    public func sleep(for duration: Int64) {
        now += duration
    }

    /// Fires the armed handler now.
    private func fireNow() {
        guard let fire = handler else { return }
        deadline = nil
        handler = nil
        fireCount += 1
        fire()
    }
}

import Dispatch
import IntervalCore

#if canImport(Glibc)
    import Glibc
#endif

/// The production `TimerSource`: one `DispatchSourceTimer` on its owner's serial queue, armed with a small explicit
/// leeway for each absolute deadline and parked at `distantFuture` in between, so an idle timer never wakes up.
///
/// Confined to `queue`: arm and disarm on it; the handler runs on it. That confinement is what makes it `Sendable`.
public final class DispatchTimerSource: TimerSource, @unchecked Sendable {
    private let source: DispatchSourceTimer
    private let leeway: DispatchTimeInterval
    private var handler: (() -> Void)?

    /// - Parameter leeway: How late the kernel may fire to batch wake-ups; cue precision is bounded by it.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .microseconds(50)) {
        self.leeway = leeway
        source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        source.schedule(deadline: .distantFuture, repeating: .never, leeway: leeway)
        source.setEventHandler { [weak self] in self?.fire() }
        source.activate()
    }

    deinit {
        source.cancel()
    }

    public var now: ClockInstant { BootClock.microseconds() }

    /// Converts the boot-clock deadline to Dispatch's monotonic clock at the last moment, in nanoseconds, so the timer
    /// never fires before `deadline` on the boot clock.
    public func arm(at deadline: ClockInstant, handler: @escaping () -> Void) {
        self.handler = handler
        let delay = max(deadline * 1000 - BootClock.nanoseconds(), 0)
        source.schedule(deadline: .now() + .nanoseconds(Int(delay)), repeating: .never, leeway: leeway)
    }

    public func disarm() {
        handler = nil
        source.schedule(deadline: .distantFuture, repeating: .never, leeway: leeway)
    }

    private func fire() {
        guard let fire = handler else { return }
        handler = nil
        fire()
    }
}

import Dispatch
import Glibc
import IntervalCore

/// The production `TimerSource`: one `DispatchSourceTimer` on its owner's serial queue, armed with a small explicit
/// leeway for each absolute deadline and parked at `distantFuture` in between, so an idle timer never wakes up.
///
/// It is armed a learned margin early (``WakeUpMargin``) and its handler sleeps the rest of the way to the exact
/// deadline on the boot clock (`clock_nanosleep`, absolute), so that Dispatch's two thread wake-ups happen before the
/// deadline, not after it: the handler runs within the kernel's timer wake-up of the instant, as a C loop's would.
///
/// Confined to `queue`: arm and disarm on it; the handler runs on it. That confinement is what makes it `Sendable`.
public final class DispatchTimerSource: TimerSource, @unchecked Sendable {
    private let source: DispatchSourceTimer
    private let leeway: DispatchTimeInterval
    private var handler: (() -> Void)?
    /// The deadline of the armed handler, µs on the boot clock.
    private var deadline: ClockInstant = 0
    /// How early the timer was armed for `deadline`, µs.
    private var armedEarly: Int64 = 0
    private var margin = WakeUpMargin()

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
        self.deadline = deadline
        armedEarly = margin.microseconds
        let delay = max((deadline - armedEarly) * 1000 - BootClock.nanoseconds(), 0)
        source.schedule(deadline: .now() + .nanoseconds(Int(delay)), repeating: .never, leeway: leeway)
    }

    public func disarm() {
        handler = nil
        source.schedule(deadline: .distantFuture, repeating: .never, leeway: leeway)
    }

    private func fire() {
        guard let fire = handler else { return }
        handler = nil
        let woke = BootClock.nanoseconds()
        let target = deadline * 1000
        // Learns only from wake-ups that came before the deadline: one after it was not early (a deadline in the
        // past, or a machine that slept) and says nothing about Dispatch's latency.
        if woke < target {
            margin.observe(lateness: (woke - (target - armedEarly * 1000)) / 1000)
            var until = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
            while clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &until, nil) == EINTR {}
        }
        fire()
    }
}

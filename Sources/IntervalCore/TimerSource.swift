/// A point on the clock the scheduler runs on, in microseconds since an arbitrary origin.
///
/// Production uses `CLOCK_BOOTTIME`, which keeps counting while the machine sleeps (docs/reference.md §6).
public typealias ClockInstant = Int64

/// The one timer a scheduler arms for its next event.
///
/// Implementations deliver `handler` on the scheduler's owner (its serial queue, or the test's thread),
/// never concurrently with other calls into the scheduler.
public protocol TimerSource: AnyObject {
    /// The current instant on the timer's clock.
    var now: ClockInstant { get }
    /// Arms the timer for `deadline`, replacing any armed deadline. A deadline in the past fires at once.
    func arm(at deadline: ClockInstant, handler: @escaping () -> Void)
    /// Disarms the timer; an armed handler will not run.
    func disarm()
}

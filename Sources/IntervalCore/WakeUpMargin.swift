/// How early to arm a timer so that the thread is already awake at the deadline (docs/reference.md §6): Dispatch
/// delivers a timer through its manager thread, which then wakes a worker for the queue, two thread wake-ups that cost
/// a fraction of a millisecond, more under load. Armed this much early, the timer's handler finishes the wait itself
/// with an exact sleep (`clock_nanosleep` to the deadline), so that only the kernel's own timer wake-up remains, as in
/// a plain C loop.
///
/// The margin is learned from how late the early wake-ups were: a running estimate of the lateness's upper tail,
/// plus headroom, within bounds. Too small, and the cue is as late as before; too large, and the queue is held in the
/// exact sleep for longer. An idle daemon arms nothing, so the margin costs it no wake-up.
///
/// The least margin is a millisecond although the wake-ups' p99 is about 0.2 ms: of 1,050 wake-ups timed inside the
/// daemon on two cores, 7 came 0.38 to 1.6 ms late, and with 0.3 ms each of them made its cue late; a millisecond
/// catches all but the rarest, for a queue held at most that long per change.
public struct WakeUpMargin: Sendable, Equatable {
    /// The least and the most the timer is armed early, µs.
    public static let minimum: Int64 = 1000
    public static let maximum: Int64 = 3000
    /// Added to the estimated tail: one wake-up rarely repeats the worst one exactly.
    static let headroom: Int64 = 200

    /// The current margin, µs.
    public private(set) var microseconds: Int64 = 1000
    /// A decaying estimate of the wake-up lateness's upper tail, µs: it jumps up to a late wake-up at once and comes
    /// back down by 1/16 of the gap per wake-up.
    private var tail: Int64 = 800

    public init() {}

    /// Learns from one early wake-up that came `lateness` µs after the instant it was armed for (negative: early).
    public mutating func observe(lateness: Int64) {
        let late = max(lateness, 0)
        tail = late > tail ? late : tail - (tail - late) / 16
        microseconds = min(max(tail + Self.headroom, Self.minimum), Self.maximum)
    }
}

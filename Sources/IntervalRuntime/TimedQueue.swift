import Dispatch

/// A serial queue of its own that runs work now or timed ahead, with strict one-shot timers, and drops what is timed
/// ahead on request: what the sound player, the voice and the haptic feedback need (cues timed to land on a change, cut
/// by a pause).
public final class TimedQueue: @unchecked Sendable {
    public let queue: DispatchQueue
    private let leeway: DispatchTimeInterval
    // Confined to `queue`.
    private var timed: [Int: DispatchSourceTimer] = [:]
    private var nextKey = 0

    public init(label: String, qos: DispatchQoS, leeway: DispatchTimeInterval) {
        queue = DispatchQueue(label: label, qos: qos)
        self.leeway = leeway
    }

    deinit {
        for timer in timed.values { timer.cancel() }
    }

    /// Runs `body` on the queue `delay` microseconds from now, or as soon as the queue is free when that is not
    /// ahead. Does not block.
    public func run(after delay: Int64, _ body: @escaping @Sendable () -> Void) {
        guard delay > 0 else {
            queue.async(execute: body)
            return
        }
        let deadline = DispatchTime.now() + .microseconds(Int(delay))
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
            let key = nextKey
            nextKey += 1
            timer.schedule(deadline: deadline, repeating: .never, leeway: leeway)
            timer.setEventHandler { [weak self] in
                self?.timed.removeValue(forKey: key)?.cancel()
                body()
            }
            timed[key] = timer
            timer.activate()
        }
    }

    /// Drops the work timed ahead that has not run, then runs `body` on the queue. Does not block.
    public func dropTimed(then body: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            for timer in timed.values { timer.cancel() }
            timed = [:]
            body()
        }
    }

    /// Waits until the work asked for before has been done.
    public func flush() {
        queue.sync {}
    }
}

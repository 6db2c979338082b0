import Dispatch

/// Hands what a C library's own thread hears (sd-bus on a Bluetooth device's link, PulseAudio's main loop) to a serial
/// queue, in the order it was sent, without taking memory that stays taken.
///
/// `queue.async` from a thread that is not one of Dispatch's takes each block's continuation from the heap, and the
/// worker thread that runs the block keeps the continuation in a cache of its own (up to 1,024 per thread) for blocks
/// that it might submit itself: a strap heard four times a second, a machine once and the audio server's events at
/// every cue grew the daemon's heap by about 1 KiB a second for as long as a workout lasted (docs/benchmarks.md). Here
/// the sender appends to a list under a lock and wakes a user-data source, which Dispatch does without a continuation;
/// the queue takes the whole list at once.
public final class QueueInbox<Event: Sendable>: @unchecked Sendable {
    private let sent = Locked<[Event]>([])
    /// On the queue only: the list being delivered, swapped with `sent` so that neither is reallocated.
    private var delivering: [Event] = []
    private let deliver: (Event) -> Void
    private let source: DispatchSourceUserDataOr

    /// - Parameter deliver: runs on `queue`, once per event sent.
    public init(queue: DispatchQueue, deliver: @escaping (Event) -> Void) {
        self.deliver = deliver
        source = DispatchSource.makeUserDataOrSource(queue: queue)
        source.setEventHandler { [weak self] in self?.deliverSent() }
        source.activate()
    }

    deinit {
        source.cancel()
    }

    /// From any thread.
    public func send(_ event: Event) {
        sent.withLock { $0.append(event) }
        source.or(data: 1)
    }

    private func deliverSent() {
        sent.withLock { swap(&$0, &delivering) }
        for event in delivering { deliver(event) }
        delivering.removeAll(keepingCapacity: true)
    }
}

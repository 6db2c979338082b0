import Dispatch
import IntervalCore

/// Gives back to the system, a moment after a workout ends, the memory its end used and freed: listing and encoding its
/// history record, the summary notification and the finish sound take a few hundred KiB at once (576 KiB of heap after
/// 600 segments), which the allocator would otherwise keep for as long as the daemon runs (docs/benchmarks.md).
/// Confined to the session's queue (hence `@unchecked Sendable`): its events and its settling run there.
public final class HeapSettler: WorkoutOutput, @unchecked Sendable {
    private let queue: DispatchQueue
    private let trimQueue: DispatchQueue
    private let settling: DispatchTimeInterval
    private let trim: @Sendable () -> Void
    private var idle = true

    /// - Parameters:
    ///   - queue: the session's, where events arrive.
    ///   - trimQueue: where the heap is trimmed, off the queue that times cues.
    ///   - settling: long enough for what the end set off (the notification on the GLib thread, the record on the
    ///     writer) to be done.
    public init(
        queue: DispatchQueue, trimQueue: DispatchQueue, settling: DispatchTimeInterval = .seconds(3),
        trim: @escaping @Sendable () -> Void = Heap.trim
    ) {
        self.queue = queue
        self.trimQueue = trimQueue
        self.settling = settling
        self.trim = trim
    }

    public func handle(_ moment: WorkoutMoment) {
        idle = moment.status.state == .idle
        switch moment.event {
        case .finished, .stopped:
            queue.asyncAfter(deadline: .now() + settling) { [weak self, trimQueue, trim] in
                // A workout started meanwhile is not made to wait on the allocator's lock.
                guard self?.idle == true else { return }
                trimQueue.async(execute: trim)
            }
        case .segmentStarted, .countdown, .paused, .resumed:
            break
        }
    }
}

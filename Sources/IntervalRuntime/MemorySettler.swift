import Dispatch
import IntervalCore

/// Gives memory back to the system at the moments a workout's code changes (docs/benchmarks.md, "The pages of code
/// run once"). The pages of code and read-only data a process ran or read stay resident for as long as it runs, used
/// again or not (``ResidentCode``):
/// - as a workout starts, those that only the daemon's start-up and its time idle ran (connecting the sensors, the
///   sound's set-up), and the start's own (the plan's parsing): the workout maps again what it runs;
/// - once its start has settled, between two cues, those that only its first moments ran (the first notification,
///   the sound's first samples, the codecs' libraries loaded for them);
/// - a moment after it ends, the heap its end used and freed (listing and encoding its history record, the summary
///   notification and the finish sound take a few hundred KiB at once: 576 KiB of heap after 600 segments), and the
///   pages of code the end ran.
///
/// Confined to the session's queue (hence `@unchecked Sendable`): its events and its settling run there.
public final class MemorySettler: WorkoutOutput, @unchecked Sendable {
    private let queue: DispatchQueue
    private let trimQueue: DispatchQueue
    private let settling: DispatchTimeInterval
    private let trim: @Sendable () -> Void
    private let release: @Sendable () -> Void
    private var idle = true
    /// The workouts whose start, and whose settled start, gave their pages back, by id.
    private var startedFor, releasedFor: String?

    /// - Parameters:
    ///   - queue: the session's, where events arrive.
    ///   - trimQueue: where the heap is trimmed and the pages are given back, off the queue that times cues.
    ///   - settling: long enough for what a start or an end set off (the notification on the GLib thread, the sound's
    ///     connection, the record on the writer) to be done.
    ///   - trim: gives the heap back (``Heap/trim()``).
    ///   - release: gives the pages of code and read-only data back (``ResidentCode/release()``).
    public init(
        queue: DispatchQueue, trimQueue: DispatchQueue, settling: DispatchTimeInterval = .seconds(3),
        trim: @escaping @Sendable () -> Void = Heap.trim,
        release: @escaping @Sendable () -> Void = { ResidentCode.release() }
    ) {
        self.queue = queue
        self.trimQueue = trimQueue
        self.settling = settling
        self.trim = trim
        self.release = release
    }

    public func handle(_ moment: WorkoutMoment) {
        idle = moment.status.state == .idle
        switch moment.event {
        case .segmentStarted:
            if startedFor != moment.workout.id {
                // The start: what ran before it goes now, on another queue, while the first cue's outputs run.
                startedFor = moment.workout.id
                trimQueue.async(execute: release)
            }
            guard releasedFor != moment.workout.id,
                moment.wallNow - moment.workout.startedWall >= settling.microseconds
            else { return }
            releasedFor = moment.workout.id
            // Halfway to the next cue (at most a second after this one), when this cue's outputs are done and the
            // next one's are far off: the next cue maps again what it runs, a few minor faults.
            let toNextCue = moment.nextChange.map { ($0 - moment.now) / 2 } ?? 1_000_000
            let id = moment.workout.id
            queue.asyncAfter(deadline: .now() + .microseconds(Int(clamping: min(toNextCue, 1_000_000)))) {
                [weak self, trimQueue, release] in
                guard let self, !idle, releasedFor == id else { return }
                trimQueue.async(execute: release)
            }
        case .finished, .stopped:
            queue.asyncAfter(deadline: .now() + settling) { [weak self, trimQueue, trim, release] in
                // A workout started meanwhile is not made to wait on the allocator's lock.
                guard self?.idle == true else { return }
                trimQueue.async {
                    trim()
                    release()
                }
            }
        case .countdown, .paused, .resumed:
            break
        }
    }
}

extension DispatchTimeInterval {
    /// The interval in µs; `.never` as the largest.
    fileprivate var microseconds: Int64 {
        switch self {
        case .seconds(let value): Int64(value) * 1_000_000
        case .milliseconds(let value): Int64(value) * 1000
        case .microseconds(let value): Int64(value)
        case .nanoseconds(let value): Int64(value) / 1000
        case .never: .max
        @unknown default: .max
        }
    }
}

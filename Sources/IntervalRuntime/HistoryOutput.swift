import IntervalCore

/// Appends one record to `history.jsonl` (docs/reference.md §5) when a workout finishes or is stopped; a program's
/// day that finished, not skipped through, is then done in its progress (docs/programs.md). The writes happen on
/// `writer`, off the queue that times cues, in that order, the record synced before the day is done: a crash between
/// them leaves the day to do again, never done without its record.
public final class HistoryOutput: WorkoutOutput {
    private let store: StateStore
    private let writer: RecordWriter
    private let programs: ProgramLedger?

    /// - Parameters:
    ///   - writer: writes `store`'s files (shared with ``StateOutput``).
    ///   - programs: where a finished program day is recorded as done.
    public init(store: StateStore, writer: RecordWriter, programs: ProgramLedger? = nil) {
        self.store = store
        self.writer = writer
        self.programs = programs
    }

    public func handle(_ moment: WorkoutMoment) {
        let result: HistoryRecord.Result
        let reason: StopReason?
        switch moment.event {
        case .finished: (result, reason) = (.finished, nil)
        case .stopped(let why): (result, reason) = (.stopped, why)
        case .segmentStarted, .countdown, .paused, .resumed: return
        }
        // The record, its segments listed from the track, is made on the writer: a long workout of short segments
        // takes a while to list, and this runs on the queue that times cues.
        let (workout, plan, place, wall) = (moment.workout, moment.plan, moment.place, moment.wallNow)
        let (skipped, slept) = (moment.skipped, moment.slept)
        let track = moment.track.shifted(by: moment.wallNow - moment.now)
        let (heartRates, machineSamples) = (moment.heartRates, moment.machineSamples)
        let appended = append(durable: workout.program == nil ? .later : .now) {
            HistoryRecord(
                workout: workout, plan: plan, elapsed: place, start: WallClock.iso8601(workout.startedWall),
                end: WallClock.iso8601(wall), result: result, reason: reason, skipped: skipped, slept: slept,
                track: track, heartRates: heartRates, machineSamples: machineSamples)
        }
        guard let day = workout.program, let programs else { return }
        writer.write(failure: "Failed to record the program's day as done.") {
            guard appended.withLock({ $0?.countsAsProgramDay }) == true else { return PendingSync() }
            try programs.finished(day, workout: workout.id, wall: wall)
            return PendingSync()
        }
    }

    /// Records a workout whose time passed while no daemon ran; `track` is what its state file recorded of it, on the
    /// wall clock.
    public func recordInterrupted(
        _ workout: WorkoutIdentity, plan: Plan, elapsed: Int64, endedWall: Int64, track: WorkoutTrack
    ) {
        // Synced at once: the state file is removed next, and a power cut must not lose both.
        append(durable: .now) {
            HistoryRecord(
                workout: workout, plan: plan, elapsed: elapsed, start: WallClock.iso8601(workout.startedWall),
                end: WallClock.iso8601(endedWall), result: .interrupted, reason: nil, track: track)
        }
    }

    /// Makes the record and appends it, on the writer; what it answers holds the record once it is appended.
    @discardableResult
    private func append(
        durable: Durability, _ record: @escaping @Sendable () -> HistoryRecord
    ) -> Locked<HistoryRecord?> {
        let appended = Locked<HistoryRecord?>(nil)
        writer.write(failure: "Failed to append to the workout history, ignoring.") { [store] in
            let made = record()
            let pending = try store.append(made, durable: durable)
            appended.withLock { $0 = made }
            return pending
        }
        return appended
    }
}

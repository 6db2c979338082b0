import IntervalCore

/// Appends one record to `history.jsonl` (docs/reference.md §5) when a workout finishes or is stopped; a program's
/// day that finished, not skipped through, is then done in its progress (docs/programs.md). The writes (with their `fsync`) happen on
/// `writer`, off the queue that times cues, in that order: a crash between them leaves the day to do again, never
/// done without its record.
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
        let record = HistoryRecord(
            workout: moment.workout, plan: moment.plan, elapsed: moment.elapsed,
            start: WallClock.iso8601(moment.workout.startedWall), end: WallClock.iso8601(moment.wallNow),
            result: result, reason: reason, skipped: moment.skipped, slept: moment.slept)
        append(record)
        if record.countsAsProgramDay, let day = moment.workout.program, let programs {
            let (workout, wall) = (moment.workout.id, moment.wallNow)
            writer.write(failure: "Failed to record the program's day as done.") {
                try programs.finished(day, workout: workout, wall: wall)
            }
        }
    }

    /// Records a workout whose time passed while no daemon ran.
    public func recordInterrupted(_ workout: WorkoutIdentity, plan: Plan, elapsed: Int64, endedWall: Int64) {
        append(
            HistoryRecord(
                workout: workout, plan: plan, elapsed: elapsed, start: WallClock.iso8601(workout.startedWall),
                end: WallClock.iso8601(endedWall), result: .interrupted, reason: nil))
    }

    private func append(_ record: HistoryRecord) {
        writer.write(failure: "Failed to append to the workout history, ignoring.") { [store] in
            try store.append(record)
        }
    }
}

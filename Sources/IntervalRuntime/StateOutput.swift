import IntervalCore

/// Keeps `state.json` (docs/reference.md §5) true to the running workout, as an output of the daemon's session: written
/// at the start, at pause and resume, when a skip moves the schedule, and when the notification's id becomes known;
/// never at an ordinary cue. Removed when the workout ends.
///
/// The writes happen on `writer`, in the order of the events, off the queue that times cues; each is in place before
/// its directory's `fsync`, which follows on the writer.
public final class StateOutput: WorkoutOutput {
    private let store: any WorkoutStateRecording
    private let bootID: String
    private let writer: RecordWriter
    /// What was written last, or nil when no workout is recorded.
    private var written: WorkoutState?
    private var notificationID: UInt32 = 0

    /// - Parameter writer: writes `store`'s files (shared with ``HistoryOutput``).
    public init(store: any WorkoutStateRecording, bootID: String, writer: RecordWriter) {
        self.store = store
        self.bootID = bootID
        self.writer = writer
    }

    public func handle(_ moment: WorkoutMoment) {
        switch moment.event {
        case .finished, .stopped:
            writer.write(failure: "Failed to remove the workout's state; the next start may resume it.") { [store] in
                try store.removeState(durable: .later)
            }
            written = nil
            notificationID = 0
        case .segmentStarted, .paused, .resumed:
            if written?.id != moment.workout.id { notificationID = 0 }
            let state = record(moment)
            // A timer cue keeps the schedule: only starts, pauses, resumes and skips change what is recorded.
            if let written, written.hasSameSchedule(as: state) { return }
            save(state)
        case .countdown:
            break
        }
    }

    /// The server's id of the workout's notification changed (on the session's queue).
    public func notificationShown(id: UInt32) {
        guard id != notificationID else { return }
        notificationID = id
        guard var state = written else { return }
        state.notificationID = id
        save(state)
    }

    private func record(_ moment: WorkoutMoment) -> WorkoutState {
        let paused = moment.status.state == .paused
        let anchor = moment.planStart ?? (moment.now - moment.place)
        return WorkoutState(
            id: moment.workout.id, plan: moment.workout.text, origin: moment.workout.origin, bootID: bootID,
            anchorBoot: anchor, anchorWall: moment.wallNow - (moment.now - anchor),
            startedWall: moment.workout.startedWall, state: paused ? .paused : .running,
            pausedElapsed: paused ? moment.place : nil, notificationID: notificationID,
            program: moment.workout.program, track: moment.track)
    }

    private func save(_ state: WorkoutState) {
        written = state
        writer.write(failure: "Failed to record the workout's state, ignoring.") { [store] in
            try store.save(state, durable: .later)
        }
    }
}

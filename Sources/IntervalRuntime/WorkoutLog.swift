import IntervalCore
import Logging

/// Logs the start and the end of each workout, with the plan and the reason in metadata.
public final class WorkoutLog: WorkoutOutput {
    private let logger: Logger
    /// The workout whose start was logged last.
    private var started: String?

    public init(logger: Logger) {
        self.logger = logger
    }

    public func handle(_ moment: WorkoutMoment) {
        let plan = moment.plan
        switch moment.event {
        case .segmentStarted where moment.workout.id != started:
            // Once per workout: a restart of its first segment (MPRIS Previous) is no new workout.
            started = moment.workout.id
            logger.info(
                "Started a workout.",
                metadata: ["plan": "\(plan.name)", "duration": "\(TimeText.clock(microseconds: plan.duration))"])
        case .finished:
            logger.info("Finished a workout.", metadata: ["plan": "\(plan.name)"])
        case .stopped(let reason):
            logger.info("Stopped a workout.", metadata: ["plan": "\(plan.name)", "reason": "\(reason.rawValue)"])
        case .segmentStarted, .countdown, .paused, .resumed:
            break
        }
    }
}

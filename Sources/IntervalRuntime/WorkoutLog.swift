import IntervalCore
import Logging

/// Logs the start and the end of each workout, with the plan and the reason in metadata.
public final class WorkoutLog: WorkoutOutput {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func handle(_ moment: WorkoutMoment) {
        let plan = moment.plan
        switch moment.event {
        case .segmentStarted(let segment, _) where segment.index == 0:
            logger.info(
                "Started a workout.",
                metadata: ["plan": "\(plan.name)", "duration": "\(TimeText.clock(microseconds: plan.duration))"])
        case .finished:
            logger.info("Finished a workout.", metadata: ["plan": "\(plan.name)"])
        case .stopped(let reason):
            logger.info("Stopped a workout.", metadata: ["plan": "\(plan.name)", "reason": "\(reason.rawValue)"])
        default:
            break
        }
    }
}

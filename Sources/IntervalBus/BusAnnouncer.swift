import IntervalCore
import Logging

/// What ``BusAnnouncer`` emits through: ``TimerBusServer``, or a test's recorder.
public protocol TimerSignalEmitting: AnyObject {
    func emitSegmentStarted(index: UInt32, kind: String, label: String, duration: UInt64) throws(BusError)
    func emitFinished(planName: String) throws(BusError)
    func emitStopped(_ reason: StopReason) throws(BusError)
    func emitPropertiesChanged(_ names: [String]) throws(BusError)
}

/// The daemon's first output: the timer's signals (docs/reference.md §3), `SegmentStarted` at the cue instant,
/// `Finished` and `Stopped`. The properties they change are announced by ``BusPropertyAnnouncer``, later in the list,
/// so that the MPRIS player's `PropertiesChanged` comes right behind the signal.
public final class BusAnnouncer: WorkoutOutput {
    private let server: any TimerSignalEmitting
    private let logger: Logger

    public init(server: any TimerSignalEmitting, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    public func handle(_ moment: WorkoutMoment) {
        do {
            switch moment.event {
            case .segmentStarted(let segment, _):
                try server.emitSegmentStarted(
                    index: UInt32(clamping: segment.index), kind: segment.kind, label: segment.label,
                    duration: UInt64(segment.duration))
            case .finished:
                try server.emitFinished(planName: moment.plan.name)
            case .stopped(let reason):
                try server.emitStopped(reason)
            case .countdown, .paused, .resumed:
                break
            }
        } catch {
            logger.warning("Failed to emit a D-Bus signal, ignoring.", metadata: ["error": "\(error)"])
        }
    }
}

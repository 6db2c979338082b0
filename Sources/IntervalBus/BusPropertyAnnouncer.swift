import IntervalCore
import Logging

/// `PropertiesChanged` for every `org.intervald.Timer1` property whose value an event changed (docs/reference.md §3),
/// as an output of the daemon's session after the signals (``BusAnnouncer``) and the MPRIS player.
public final class BusPropertyAnnouncer: WorkoutOutput {
    private let server: any TimerSignalEmitting
    private let logger: Logger
    /// The property values last announced.
    private var announced = TimerStatus.idle

    public init(server: any TimerSignalEmitting, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    public func handle(_ moment: WorkoutMoment) {
        let changed = moment.status.changedProperties(since: announced)
        announced = moment.status
        guard !changed.isEmpty else { return }
        do {
            try server.emitPropertiesChanged(changed)
        } catch {
            logger.warning("Failed to emit PropertiesChanged, ignoring.", metadata: ["error": "\(error)"])
        }
    }
}

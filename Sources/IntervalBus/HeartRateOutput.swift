import Dispatch
import IntervalCore
import IntervalRuntime
import Logging

/// The chosen heart-rate strap while a workout exists (docs/sensors.md): read from the workout's first event to its
/// end by a ``HeartRateStrap`` on its own thread, each measurement handed to the session on its queue (where a step
/// its heart rate ends may end) and `HeartRate` announced at most once a second. Lives on the session's queue: the
/// strap's thread only sends it work there, hence `@unchecked Sendable`.
public final class HeartRateOutput: WorkoutOutput, @unchecked Sendable {
    /// The strap's address (`[sensors] heart_rate`); nil: none chosen. A change applies from the next workout.
    public var address: String?
    private let session: WorkoutSession
    private let queue: DispatchQueue
    private let logger: Logger
    /// Says a sentence of the strap's to the person (on the queue): not available, lost, found again.
    private let say: (String) -> Void
    private var strap: HeartRateStrap?
    /// Counts the straps read: what one let go of says late (its last "lost") is not taken for the next one's.
    private var reading = 0
    /// `PropertiesChanged(HeartRate)`, at most once a second.
    private let announcement: ThrottledAnnouncement

    public init(
        address: String?, session: WorkoutSession, queue: DispatchQueue, server: TimerBusServer, logger: Logger,
        say: @escaping (String) -> Void
    ) {
        (self.address, self.session, self.queue, self.logger) = (address, session, queue, logger)
        self.say = say
        announcement = ThrottledAnnouncement(
            [TimerProperty.heartRate.name], queue: queue, server: server, logger: logger)
    }

    public func handle(_ moment: WorkoutMoment) {
        switch moment.event {
        case .finished, .stopped: stopReading()
        default: if strap == nil, let address { startReading(address) }
        }
    }

    /// What the strap's thread hears, handed to the queue in order.
    private enum Heard: Sendable {
        case heartRate(Int)
        case lost
        case said(String)
    }

    private func startReading(_ address: String) {
        reading += 1
        let (logger, reading) = (self.logger, self.reading)
        let inbox = QueueInbox<Heard>(queue: queue) { [weak self] heard in
            guard let self else { return }
            switch heard {
            case .heartRate(let bpm):
                guard self.reading == reading, self.strap != nil else { return }
                if session.heard(heartRate: bpm) { announcement.announce() }
            case .lost:
                guard self.reading == reading else { return }
                session.lostHeartRate()
                announcement.announce()
            case .said(let sentence):
                say(sentence)
            }
        }
        let strap = HeartRateStrap(
            address: address, logger: logger,
            handlers: .init(
                heard: { bpm in inbox.send(.heartRate(bpm)) },
                lost: { inbox.send(.lost) },
                said: { sentence in
                    logger.notice("\(sentence)")
                    inbox.send(.said(sentence))
                }))
        self.strap = strap
        strap.start()
    }

    /// Lets the strap go off the queue: its last calls to BlueZ may take a moment.
    private func stopReading() {
        guard let strap else { return }
        self.strap = nil
        session.lostHeartRate()
        DispatchQueue.global(qos: .utility).async { strap.stop() }
    }
}

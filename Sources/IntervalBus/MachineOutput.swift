import Dispatch
import IntervalCore
import IntervalRuntime
import Logging

/// The chosen treadmill or bike while a workout exists (docs/machines.md): driven by a ``FitnessMachineLink`` on its
/// own thread from the workout's first event to its end — started, paused, resumed and stopped with the workout, and
/// set to each step's target (a treadmill's speed from the pace, a bike's power), at most the ceilings — and its
/// readings handed to the session on its queue (where a distance step may end at the machine's distance), their
/// properties announced at most once a second. Lives on the session's queue, hence `@unchecked Sendable`.
public final class MachineOutput: WorkoutOutput, @unchecked Sendable {
    /// The machine's address (`[sensors] machine`); nil: none chosen. A change applies from the next workout.
    public var address: String?
    /// `[machine] max_speed` and `max_power`: applied from the next step.
    public var ceilings: MachineCeilings
    private let session: WorkoutSession
    private let queue: DispatchQueue
    private let logger: Logger
    /// Says a sentence of the machine's to the person (on the queue).
    private let say: (String) -> Void
    private let announcement: ThrottledAnnouncement
    private var link: FitnessMachineLink?
    /// Counts the machines driven: what one let go of says late is not taken for the next one's.
    private var driving = 0
    /// What the machine is, once found, and the segment playing.
    private var kind: SensorKind?
    private var segment: Segment?
    private var run = FitnessMachineLink.Run.stopped
    /// A target above a ceiling is said once a workout.
    private var saidCapped = false

    public init(
        address: String?, ceilings: MachineCeilings, properties: [String], session: WorkoutSession,
        queue: DispatchQueue, server: TimerBusServer, logger: Logger, say: @escaping (String) -> Void
    ) {
        (self.address, self.ceilings, self.session, self.queue, self.logger) =
            (address, ceilings, session, queue, logger)
        self.say = say
        announcement = ThrottledAnnouncement(properties, queue: queue, server: server, logger: logger)
    }

    public func handle(_ moment: WorkoutMoment) {
        switch moment.event {
        case .finished, .stopped:
            stopDriving()
            return
        case .segmentStarted(let segment, _), .resumed(let segment):
            (self.segment, run) = (segment, .running)
        case .paused(let segment):
            (self.segment, run) = (segment, .paused)
        case .countdown:
            return
        }
        if link == nil, let address { startDriving(address) }
        wish()
    }

    /// Hands the link what the workout wants now.
    private func wish() {
        guard let link, let segment else { return }
        var target: FitnessMachineRequest?
        if let kind, let (request, capped) = ceilings.request(for: segment, on: kind) {
            target = request
            if capped, !saidCapped {
                saidCapped = true
                say(cappedSentence(request))
            }
        }
        link.want(.init(run: run, target: target, step: segment.index))
    }

    private func cappedSentence(_ request: FitnessMachineRequest) -> String {
        switch request {
        case .targetPower(let watts):
            tr(
                "A step's power is above the top power; the machine is set to {watts} W.",
                ["watts": "\(watts)"])
        default:
            tr(
                "A step's pace is faster than the top speed; the machine is set to {speed} km/h.",
                ["speed": ceilings.speedText])
        }
    }

    /// What the machine's thread hears, handed to the queue in order.
    private enum Heard: Sendable {
        case found(SensorKind)
        case reading(MachineReading)
        case lost
        case said(String)
    }

    private func startDriving(_ address: String) {
        driving += 1
        saidCapped = false
        let (logger, driving) = (self.logger, self.driving)
        let inbox = QueueInbox<Heard>(queue: queue) { [weak self] heard in
            guard let self else { return }
            switch heard {
            case .found(let kind):
                guard self.driving == driving else { return }
                self.kind = kind
                wish()
            case .reading(let reading):
                guard self.driving == driving, self.link != nil else { return }
                if session.heard(machine: reading) { announcement.announce() }
            case .lost:
                guard self.driving == driving else { return }
                session.lostMachine()
                announcement.announce()
            case .said(let sentence):
                say(sentence)
            }
        }
        let link = FitnessMachineLink(
            address: address, logger: logger,
            handlers: .init(
                found: { kind in inbox.send(.found(kind)) },
                read: { reading in inbox.send(.reading(reading)) },
                lost: { inbox.send(.lost) },
                said: { sentence in
                    logger.notice("\(sentence)")
                    inbox.send(.said(sentence))
                }))
        self.link = link
        link.start()
    }

    /// Stops the machine and lets it go off the queue: that takes up to the machine's answer.
    private func stopDriving() {
        guard let link else { return }
        self.link = nil
        (kind, segment, run) = (nil, nil, .stopped)
        session.lostMachine()
        link.want(.init(run: .stopped, target: nil, step: .max))
        DispatchQueue.global(qos: .utility).async { link.stop() }
    }
}

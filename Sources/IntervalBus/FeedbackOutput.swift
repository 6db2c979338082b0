import Dispatch
import IntervalCore
import IntervalRuntime
import Logging

/// Where ``FeedbackOutput`` meets feedbackd: ``FeedbackdClient``, or a test's recorder. Neither call blocks the caller.
public protocol FeedbackTriggering: AnyObject {
    /// Asks for the feedback of `event` (a name of feedbackd's event-naming spec) `delay` µs from now.
    func trigger(_ event: String, after delay: Int64)
    /// Drops what waits to be asked for and ends the feedbacks still playing.
    func cut()
}

/// Cues you feel (docs/reference.md §4d) as an output of a ``WorkoutSession``: at each change, countdown pip and the
/// finish, feedbackd's event for it (``HapticCues``), which a phone plays on its vibration motor; a pause, a stop or a
/// skip ends what still plays. `handle` only hands the event over: the bus call is made on the feedback's own queue.
public final class FeedbackOutput: WorkoutOutput {
    private let feedback: any FeedbackTriggering
    /// The events as the cue sounds' settings, made once: ``HapticCues/asSounds(restKinds:)``.
    private let events: SoundSettings

    public init(feedback: any FeedbackTriggering, restKinds: Set<String>) {
        self.feedback = feedback
        events = HapticCues.asSounds(restKinds: restKinds)
    }

    /// The output `settings` ask for, on the feedback `connect` makes; nil with `[haptics] enabled = false`, and then
    /// nothing is connected.
    public static func forSettings(
        _ settings: Settings, connect: () -> any FeedbackTriggering
    ) -> FeedbackOutput? {
        guard settings.hapticsEnabled else { return nil }
        return FeedbackOutput(feedback: connect(), restKinds: settings.sound.restKinds)
    }

    public func handle(_ moment: WorkoutMoment) {
        let actions = CueSounds.actions(for: moment, settings: events)
        if actions.cut { feedback.cut() }
        for cue in actions.cues { feedback.trigger(cue.text, after: cue.delay) }
    }
}

/// feedbackd (`org.sigxcpu.Feedback` on the session bus), asked for events on a connection of its own served on a queue
/// of its own (`intervald.haptics`): sd-bus is not thread-safe, and the queue that times cues must never wait for it.
/// Each event is one `TriggerFeedback` answered later; a pip timed ahead waits on a strict timer there.
///
/// The events are asked for in feedbackd's "quiet" profile at most (the `profile` hint): its vibration and LEDs, never
/// a sound of its theme over the cue sounds. feedbackd ends an event's feedbacks when the connection that asked for it
/// closes, so what plays ends with the daemon; ``cut()`` ends them at once with `EndFeedback`, for the ids that have not
/// yet reported `FeedbackEnded`. Where feedbackd neither runs nor can be started by the bus, the call fails at once
/// (`ServiceUnknown`): that is logged once, and nothing more is asked until feedbackd comes onto the bus, so that a
/// desktop without it has no bus traffic at the cues for it.
public final class FeedbackdClient: FeedbackTriggering, @unchecked Sendable {
    static let service = "org.sigxcpu.Feedback"
    static let path = "/org/sigxcpu/Feedback"
    static let interface = "org.sigxcpu.Feedback"
    /// feedbackd's profile levels are full (sound), quiet (vibration) and silent (LEDs); this one and those below it.
    static let profile = "quiet"

    private let timed: TimedQueue
    private let logger: Logger
    // Confined to the queue.
    private var connection: Connection?
    /// Counts cuts, so that an event answered after a cut that should have ended it is ended then.
    private var cuts = 0
    private var saidUnavailable = false

    /// The bus, its match on `FeedbackEnded` and the events it may still play: made, used and closed on the queue only,
    /// so that the match's callback never meets a connection closed under it.
    private final class Connection {
        let driver: BusDispatchDriver
        var ended: BusSlot?
        var appeared: BusSlot?
        /// The events asked for since the last cut whose feedbacks may still play.
        var running: Set<UInt32> = []
        /// feedbackd did not answer, and has not come onto the bus since: nothing is asked until it does, so that a
        /// desktop without it sends nothing at each cue.
        var absent = false

        var bus: Bus { driver.bus }

        init(driver: BusDispatchDriver) {
            self.driver = driver
        }

        func close() {
            driver.stop()
            ended = nil
            appeared = nil
        }
    }

    public init(logger: Logger) {
        timed = TimedQueue(label: "intervald.haptics", qos: .userInteractive, leeway: .milliseconds(1))
        self.logger = logger
        // Connected ahead, so that the first cue does not wait for the connection.
        timed.run(after: 0) { [weak self] in _ = self?.connected() }
    }

    deinit {
        // sd-bus is the queue's: the connection is closed there, after what runs there now.
        let closing = UncheckedBox(connection)
        timed.queue.async { closing.value?.close() }
    }

    public func trigger(_ event: String, after delay: Int64) {
        timed.run(after: delay) { [weak self] in self?.ask(for: event) }
    }

    public func cut() {
        timed.dropTimed { [weak self] in self?.endRunning() }
    }

    /// Waits until every event asked for so far has been written to the bus: before the process exits.
    public func flush() {
        timed.queue.sync {
            do throws(BusError) {
                try connection?.bus.flush()
            } catch {
                logger.debug("Could not flush the feedback connection.", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The connection, opened at the first need and again after it was lost; nil without a session bus.
    private func connected() -> Connection? {
        if let connection { return connection }
        do throws(BusError) {
            let bus = try Bus.openUser(description: "intervald-haptics")
            let driver = BusDispatchDriver(bus: bus, queue: timed.queue, logger: logger) { [weak self] _ in
                self?.connection?.close()
                self?.connection = nil
            }
            let connection = Connection(driver: driver)
            connection.ended = try bus.matchSignal(
                sender: nil, path: Self.path, interface: Self.interface, member: "FeedbackEnded",
                callback: { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    let connection = Unmanaged<Connection>.fromOpaque(userdata).takeUnretainedValue()
                    if let id = try? BusMessage(borrowing: message).readUInt32() { connection.running.remove(id) }
                    return 0
                },
                // The matches are the connection's, and closed before it goes.
                userdata: Unmanaged.passUnretained(connection).toOpaque())
            connection.appeared = try bus.matchNameOwnerChanged(
                of: Self.service,
                callback: { message, userdata, _ in
                    // A new owner is feedbackd coming.
                    guard let message, let userdata, let change = BusMessage(borrowing: message).readNameOwnerChange(),
                        change.name == FeedbackdClient.service, !change.newOwner.isEmpty
                    else { return 0 }
                    Unmanaged<Connection>.fromOpaque(userdata).takeUnretainedValue().absent = false
                    return 0
                },
                userdata: Unmanaged.passUnretained(connection).toOpaque())
            try driver.start()
            self.connection = connection
            return connection
        } catch {
            unavailable(error)
            return nil
        }
    }

    private func ask(for event: String) {
        guard let connection = connected(), !connection.absent else { return }
        let bus = connection.bus
        let cutsBefore = cuts
        do throws(BusError) {
            let message = try bus.newMethodCall(
                destination: Self.service, path: Self.path, interface: Self.interface, member: "TriggerFeedback")
            try message.append(DesktopIdentity.window)
            try message.append(event)
            try message.openContainer("a", contents: "{sv}")
            try message.appendEntry("profile", "s") { message throws(BusError) in try message.append(Self.profile) }
            try message.closeContainer()
            try message.append(Int32(-1))  // each feedback of the event once
            try bus.callAsync(message, timeout: .seconds(5)) { [weak self] result in
                self?.answered(result, cutsBefore: cutsBefore)
            }
            connection.driver.updateInterest()
        } catch {
            unavailable(error)
        }
    }

    private func answered(_ result: Result<BusMessage, BusError>, cutsBefore: Int) {
        switch result {
        case .success(let reply):
            guard let id = try? reply.readUInt32() else { return }
            saidUnavailable = false
            if cuts == cutsBefore {
                connection?.running.insert(id)
            } else {
                end(id)
            }
        case .failure(let error):
            connection?.absent = true
            unavailable(error)
        }
    }

    private func endRunning() {
        cuts += 1
        guard let connection else { return }
        for id in connection.running { end(id) }
        connection.running = []
    }

    private func end(_ id: UInt32) {
        guard let connection else { return }
        let bus = connection.bus
        do throws(BusError) {
            let message = try bus.newMethodCall(
                destination: Self.service, path: Self.path, interface: Self.interface, member: "EndFeedback")
            try message.append(id)
            try bus.send(message)
            connection.driver.updateInterest()
        } catch {
            logger.debug("Could not end a feedback.", metadata: ["error": "\(error)"])
        }
    }

    /// Says once that there is no feedbackd, until it answers again: one calm line where it is simply not there (a
    /// desktop without a vibration motor), the error where it is there and failed.
    private func unavailable(_ error: BusError) {
        guard !saidUnavailable else { return }
        saidUnavailable = true
        if error.name == BusErrorName.serviceUnknown || error.name == BusErrorName.nameHasNoOwner {
            logger.info("No cues you feel: feedbackd is not running here.")
        } else {
            logger.info("No cues you feel: feedbackd does not answer.", metadata: ["error": "\(error)"])
        }
    }
}

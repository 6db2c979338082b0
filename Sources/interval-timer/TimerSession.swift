import CGtk
import IntervalBus
import IntervalCore
import IntervalRuntime
import Logging

/// The timer service (`org.intervald.Timer1`) as the window sees it, a client as `intervalctl` is: its properties as
/// last read and when, re-read at each of its signals, and the calls the window makes.
///
/// Threading: everything here runs on the GLib main thread; the bus connection runs on its own queue and hands its
/// events and answers back through ``onMainThread(_:)``.
final class TimerSession {
    /// The timer's properties as last read, and when (g_get_monotonic_time, µs).
    private(set) var status = TimerStatus.idle
    private var readAt: Int64 = 0
    /// A new reading, after the one given.
    var changed: (_ previous: TimerStatus) -> Void = { _ in }
    /// A workout ended (finished or stopped): its plan's name.
    var ended: (_ planName: String) -> Void = { _ in }
    /// A call failed: refused, or the service cannot be reached.
    var failed: (TimerClientError) -> Void = { _ in }
    /// The service answered a reading (after a failure, a problem shown can go).
    var answered: () -> Void = {}

    private let logger: Logger
    private lazy var connection: TimerBusConnection = {
        let box = UncheckedBox(Unmanaged.passUnretained(self))
        return TimerBusConnection(logger: logger) { event in
            onMainThread { box.value.takeUnretainedValue().handle(event) }
        }
    }()

    init(logger: Logger) {
        self.logger = logger
    }

    /// How long ago the properties were read, in µs.
    var age: Int64 { Int64(g_get_monotonic_time()) - readAt }

    /// Runs `body` on the bus's queue and `done` with its result back on the main thread.
    func perform<Value: Sendable>(
        _ body: @escaping @Sendable (TimerBusClient) throws(TimerClientError) -> Value,
        _ done: @escaping (Result<Value, TimerClientError>) -> Void
    ) {
        let done = UncheckedBox(done)
        connection.perform(body) { result in onMainThread { done.value(result) } }
    }

    /// Sends a control call; a refusal or an unreachable service goes to ``failed``.
    func command(_ body: @escaping @Sendable (TimerBusClient) throws(TimerClientError) -> Void) {
        perform(body) { [unowned self] result in
            if case .failure(let error) = result { failed(error) }
        }
    }

    /// Re-reads the timer's properties (they never start the daemon).
    func refresh() {
        perform({ client throws(TimerClientError) in try client.status() }) { [unowned self] result in
            switch result {
            case .success(let read):
                answered()
                update(read)
            case .failure(let error):
                failed(error)
            }
        }
    }

    private func handle(_ event: TimerEvent) {
        switch event {
        case .segmentStarted, .finished, .stopped:
            // The signal shows at once what it changes (the digits; idle once the workout ended); the rest follows
            // from the properties read after it.
            if let assumed = status.assumed(after: event) { update(assumed) }
            if status.state == .idle { ended(status.planName) }
            refresh()
        case .daemonVanished:
            // A daemon that went away during a workout (a crash, a restart) resumes it from its state file when it
            // is started again: started by activation, it shows here as it resumes.
            if status.state == .idle {
                update(.idle)
            } else {
                logger.notice("The timer service went away during a workout; starting it again.")
                perform({ client throws(TimerClientError) in try client.status(activating: true) }) {
                    [unowned self] result in
                    switch result {
                    case .success(let read): update(read)
                    case .failure(let error):
                        update(.idle)
                        failed(error)
                    }
                }
            }
        case .propertiesChanged, .daemonAppeared, .tick:
            refresh()
        }
    }

    private func update(_ read: TimerStatus) {
        let previous = status
        status = read
        readAt = Int64(g_get_monotonic_time())
        changed(previous)
    }
}

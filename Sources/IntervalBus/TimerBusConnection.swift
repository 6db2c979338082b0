import Dispatch
import IntervalCore
import Logging

/// ``TimerBusClient`` for a program with a main loop of its own, the window (docs/reference.md §10): one serial queue
/// owns the connection, since sd-bus is not thread-safe. Calls block that queue, never the caller's thread; the
/// timer's signals, property changes and the daemon's coming and going reach `events` on that queue as they arrive,
/// with no polling, for the caller to carry to its own thread.
///
/// The connection is opened by the first ``perform(_:completion:)`` and opened again by the next one after the session
/// bus went away.
public final class TimerBusConnection: @unchecked Sendable {
    private let queue = DispatchQueue(label: "org.intervald.window.bus", qos: .userInteractive)
    private let logger: Logger
    private let events: @Sendable (TimerEvent) -> Void
    private let callTimeout: Duration

    // Owned by `queue`.
    private var client: TimerBusClient?
    private var driver: BusDispatchDriver?
    private var receiver: TimerSignalReceiver?
    private var subscription: [BusSlot] = []

    /// - Parameter events: called on the connection's queue for each signal (after the first ``perform(_:completion:)``).
    public init(callTimeout: Duration = .seconds(10), logger: Logger, events: @escaping @Sendable (TimerEvent) -> Void)
    {
        self.callTimeout = callTimeout
        self.logger = logger
        self.events = events
    }

    /// Runs `body` with the client on the connection's queue (connecting first if needed) and hands its result to
    /// `completion` there. Each call blocks the queue for at most the call timeout.
    public func perform<Value: Sendable>(
        _ body: @escaping @Sendable (TimerBusClient) throws(TimerClientError) -> Value,
        completion: @escaping @Sendable (Result<Value, TimerClientError>) -> Void
    ) {
        queue.async { [self] in
            let result: Result<Value, TimerClientError>
            do throws(TimerClientError) {
                let client = try connected()
                result = .success(try body(client))
            } catch {
                result = .failure(error)
            }
            // A blocking call reads whatever else arrived meanwhile into sd-bus's queue, where the socket no longer
            // wakes the read source for it.
            driver?.processPending()
            completion(result)
        }
    }

    private func connected() throws(TimerClientError) -> TimerBusClient {
        if let client { return client }
        let client = try TimerBusClient(callTimeout: callTimeout, description: "interval-timer", logger: logger)
        let events = self.events
        let receiver = TimerSignalReceiver(logger: logger) { events($0) }
        let subscription = try client.subscribe(receiver)
        let driver = BusDispatchDriver(bus: client.bus, queue: queue, logger: logger) { [weak self] _ in
            self?.disconnect()
        }
        do throws(BusError) {
            try driver.start()
        } catch {
            throw .busUnavailable(error)
        }
        (self.client, self.receiver, self.subscription, self.driver) = (client, receiver, subscription, driver)
        return client
    }

    /// The session bus went away: the next call connects again, and the caller hears that the daemon is gone.
    private func disconnect() {
        driver?.stop()
        subscription.removeAll()
        (client, receiver, driver) = (nil, nil, nil)
        events(.daemonVanished)
    }
}

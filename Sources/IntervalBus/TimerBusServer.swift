import Dispatch
import Glibc
import IntervalCore
import Logging

/// Exports `org.intervald.Timer1` (docs/reference.md §3) at `/org/intervald/Timer1` on the session bus, owns the
/// well-known name `org.intervald.Timer1`, and serves the connection on one serial `DispatchQueue`.
///
/// Threading: after ``open(queue:delegate:logger:onDisconnect:)`` returns, the delegate is called, and
/// `onDisconnect` runs, only on `queue`, and every method of this object must be called on `queue` too
/// (sd-bus is not thread-safe; this is checked with `dispatchPrecondition`). The emit methods may be called
/// from within the delegate's methods. Dropping the last reference closes the connection on `queue`.
public final class TimerBusServer: TimerSignalEmitting, @unchecked Sendable {
    /// Serves the connection, which it holds, on its queue.
    let driver: BusDispatchDriver
    private let logger: Logger
    private let handler: TimerObjectHandler
    private var object: BusObject?

    /// The serial queue that owns the connection.
    public var queue: DispatchQueue { driver.queue }
    var bus: Bus { driver.bus }

    private init(driver: BusDispatchDriver, handler: TimerObjectHandler, object: BusObject, logger: Logger) {
        self.driver = driver
        self.handler = handler
        self.object = object
        self.logger = logger
    }

    deinit {
        // sd-bus is not thread-safe: whichever thread drops the last reference, the object is removed and
        // the connection closed on `queue`.
        let remains = Remains(driver: driver, object: object)
        queue.async { remains.release() }
    }

    /// Connects to the session bus, exports the object, requests `BusNames.service` and starts serving
    /// the connection on `queue`. May be called from any thread; returns once the name is owned, so
    /// the daemon can then tell systemd it is ready.
    ///
    /// - Parameters:
    ///   - delegate: held weakly; calls arriving after it is gone are answered with
    ///     `org.freedesktop.DBus.Error.Failed`.
    ///   - onDisconnect: called once, on `queue`, when the connection ends (e.g. the bus daemon exited).
    /// - Throws: ``TimerBusServerError``; `.nameTaken` when another process owns the name.
    public static func open(
        queue: DispatchQueue,
        delegate: any TimerBusDelegate,
        logger: Logger,
        onDisconnect: @escaping @Sendable (BusError) -> Void
    ) throws(TimerBusServerError) -> TimerBusServer {
        let bus: Bus
        do throws(BusError) {
            bus = try Bus.openUser(description: "intervald")
        } catch {
            throw TimerBusServerError(.busUnavailable, error)
        }
        return try serve(bus: bus, queue: queue, delegate: delegate, logger: logger, onDisconnect: onDisconnect)
    }

    /// Like ``open(queue:delegate:logger:onDisconnect:)`` on a connection the caller opened, which must
    /// not yet be used from any other thread or served by any loop.
    public static func serve(
        bus: Bus,
        queue: DispatchQueue,
        delegate: any TimerBusDelegate,
        logger: Logger,
        onDisconnect: @escaping @Sendable (BusError) -> Void
    ) throws(TimerBusServerError) -> TimerBusServer {
        let driver = BusDispatchDriver(bus: bus, queue: queue, logger: logger, onDisconnect: onDisconnect)
        let handler = TimerObjectHandler(delegate: delegate, logger: logger)
        let object: BusObject
        do throws(BusError) {
            object = try BusObject(
                BusNames.timerInterface, on: bus, handler: handler, logger: logger,
                afterReply: { [weak driver] in driver?.updateInterest() })
        } catch {
            throw TimerBusServerError(.exportFailed, error)
        }
        try Self.requestServiceName(on: bus)
        logger.debug("Acquired the bus name.", metadata: ["name": "\(BusNames.service)"])

        let server = TimerBusServer(driver: driver, handler: handler, object: object, logger: logger)
        do throws(BusError) {
            try driver.start()
        } catch {
            throw TimerBusServerError(.busUnavailable, error)
        }
        return server
    }

    /// Emits `SegmentStarted(u index, s kind, s label, t duration)`; `duration` in microseconds.
    public func emitSegmentStarted(index: UInt32, kind: String, label: String, duration: UInt64) throws(BusError) {
        try emit(BusNames.Signal.segmentStarted.rawValue) { message throws(BusError) in
            try message.append(index)
            try message.append(kind)
            try message.append(label)
            try message.append(duration)
        }
    }

    /// Emits `Finished(s plan_name)`.
    public func emitFinished(planName: String) throws(BusError) {
        try emit(BusNames.Signal.finished.rawValue) { message throws(BusError) in try message.append(planName) }
    }

    /// Emits `Stopped(s reason)`.
    public func emitStopped(_ reason: StopReason) throws(BusError) {
        try emit(BusNames.Signal.stopped.rawValue) { message throws(BusError) in try message.append(reason.rawValue) }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` with the current values (read through
    /// the delegate's `status()`) of `names`, each one of the `BusNames.Property` names other than
    /// `Elapsed` and `SegmentRemaining` (those emit no change signal: sd-bus fails with `EDOM` for them, and
    /// with `ENOENT` for unknown names). The corresponding C function is `sd_bus_emit_properties_changed_strv`.
    public func emitPropertiesChanged(_ names: [String]) throws(BusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !names.isEmpty else { return }
        defer { driver.updateInterest() }
        try bus.emitPropertiesChanged(path: BusNames.objectPath, interface: BusNames.interface, names: names)
    }

    /// Opens the Interval Timer window (docs/reference.md §10): `org.freedesktop.Application.Activate` on its
    /// application, D-Bus-activating it; no answer is awaited.
    public func openWindow() {
        dispatchPrecondition(condition: .onQueue(queue))
        defer { driver.updateInterest() }
        WindowLauncher.open(on: bus, logger: logger)
    }

    /// Gives up the bus name without dropping a call (idle exit): releases it, waiting for the bus daemon's answer,
    /// before which it delivers every call it routed to the name; then serves those calls as usual, so each gets its
    /// answer (a `Start` among them is handed to the delegate). Calls sent to the name from then on start another
    /// daemon by D-Bus activation. The corresponding C function is `sd_bus_release_name`.
    public func releaseNameServingQueuedCalls() throws(BusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        defer { driver.updateInterest() }
        try bus.releaseName(BusNames.service)
        while try bus.process() {}
    }

    /// Owns the bus name again, after ``releaseNameServingQueuedCalls()`` served a call that started work.
    public func reacquireName() throws(TimerBusServerError) {
        dispatchPrecondition(condition: .onQueue(queue))
        defer { driver.updateInterest() }
        try Self.requestServiceName(on: bus)
    }

    /// Owns `BusNames.service`; `.nameTaken` when another process owns it.
    private static func requestServiceName(on bus: Bus) throws(TimerBusServerError) {
        do throws(BusError) {
            try bus.requestName(BusNames.service)
        } catch  where error.errno == EEXIST {
            throw TimerBusServerError(.nameTaken, error)
        } catch {
            throw TimerBusServerError(.busUnavailable, error)
        }
    }

    /// Stops serving: removes the object, releases the name, and flushes what is queued. Later emits fail.
    public func close() {
        dispatchPrecondition(condition: .onQueue(queue))
        driver.stop()
        object = nil
        do {
            try bus.releaseName(BusNames.service)
            try bus.flush()
        } catch {
            logger.debug("Failed to release the bus name, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    private func emit(_ member: String, _ fill: (BusMessage) throws(BusError) -> Void) throws(BusError) {
        dispatchPrecondition(condition: .onQueue(queue))
        let message = try bus.newSignal(path: BusNames.objectPath, interface: BusNames.interface, member: member)
        try fill(message)
        try bus.send(message)
        driver.updateInterest()
    }
}

/// What a deinitialised ``TimerBusServer`` leaves for its queue to release, in order: the object before the
/// connection, which the driver holds.
private final class Remains: @unchecked Sendable {
    private var driver: BusDispatchDriver?
    private var object: BusObject?

    init(driver: BusDispatchDriver, object: BusObject?) {
        self.driver = driver
        self.object = object
    }

    func release() {
        driver?.stop()
        object = nil
        driver = nil
    }
}

/// Why ``TimerBusServer`` could not start.
public struct TimerBusServerError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No session bus could be reached.
        case busUnavailable
        /// Another process owns `org.intervald.Timer1` (another intervald runs).
        case nameTaken
        /// The object could not be exported.
        case exportFailed
    }

    public var code: Code
    public var underlying: BusError

    public init(_ code: Code, _ underlying: BusError) {
        self.code = code
        self.underlying = underlying
    }

    public var description: String {
        switch code {
        case .busUnavailable:
            "Failed to connect to the session bus: \(underlying)"
        case .nameTaken:
            "The bus name \(BusNames.service) is already owned by another process (is intervald already running?)."
        case .exportFailed:
            "Failed to export \(BusNames.objectPath) on the session bus: \(underlying)"
        }
    }
}

// MARK: - The object's handler

/// Carries the calls of `org.intervald.Timer1` to the delegate; held by the server, weakly by the exported object.
private final class TimerObjectHandler: BusObjectHandler {
    weak var delegate: (any TimerBusDelegate)?
    let logger: Logger
    /// The status the properties of `message` are read from: sd-bus asks for each property of a `GetAll` reply, or of
    /// a `PropertiesChanged` signal, one at a time, and they are read from one status, taken at the first. The
    /// message is held, so that its address cannot be another message's while it is compared.
    private var snapshot: (message: BusMessage, status: TimerStatus)?

    init(delegate: any TimerBusDelegate, logger: Logger) {
        self.delegate = delegate
        self.logger = logger
    }

    func handle(_ call: BusCall) throws(BusCallError) {
        guard let delegate else { throw .unavailable }
        guard let method = Self.methods[call.member] else {
            throw BusCallError(BusErrorName.unknownMethod, "Unknown method \(call.member).")
        }
        try serve(method, call, delegate)
    }

    /// The methods by name: the dispatch table.
    private static let methods = Dictionary(uniqueKeysWithValues: TimerMethods.all.map { ($0.name, $0) })

    /// Decodes `call` as a `Method` and hands it to the delegate, which answers it. A string argument over its limit
    /// (a plan text over 1 MiB) is refused before it is copied, and before it waits behind other callers' plans.
    private func serve<Method: TimerMethod>(
        _ method: Method.Type, _ call: BusCall, _ delegate: any TimerBusDelegate
    ) throws(BusCallError) {
        let decoded: Method
        do throws(TimerCallReadError) {
            decoded = try call.message.read(Method.self)
        } catch {
            switch error {
            case .malformed(let failure): throw BusCallError(failure)
            case .oversized(let refusal, let bytes):
                delegate.refusedOversizedPlan(bytes: bytes)
                throw BusCallError(refusal)
            }
        }
        logger.debug("\(Method.name) requested.", metadata: decoded.loggedArguments)
        Method.perform(decoded, on: delegate) { outcome in
            switch outcome {
            case .success(let reply):
                call.reply { message throws(BusError) in
                    for value in reply.values { try message.append(value) }
                }
            case .failure(let refusal):
                call.fail(BusCallError(refusal))
            }
        }
    }

    func appendProperty(_ property: String, of interface: String, to reply: BusMessage) throws(BusCallError) {
        guard let delegate else { throw .unavailable }
        guard let known = TimerProperty.named(property) else {
            throw BusCallError(BusErrorName.unknownProperty, "Unknown property \(property).")
        }
        let status: TimerStatus
        if let snapshot, snapshot.message.pointer == reply.pointer {
            status = snapshot.status
        } else {
            status = delegate.status()
            snapshot = (reply, status)
        }
        do throws(BusError) {
            try reply.append(known.value(of: status))
        } catch {
            throw BusCallError(error)
        }
    }
}

import CSystemd
import Glibc
import IntervalCore
import Logging

/// Why a ``TimerBusClient`` request failed.
public enum TimerClientError: Error, Sendable, CustomStringConvertible {
    /// No session bus could be reached (no `DBUS_SESSION_BUS_ADDRESS`, the bus is gone). Exit 69.
    case busUnavailable(BusError)
    /// The daemon is not running and could not be started by D-Bus activation, or did not answer. Exit 69.
    case daemonUnreachable(BusError)
    /// The daemon refused the command (`org.intervald.Timer1.Error.*`).
    case command(TimerCommandError)
    /// Any other failure (an unexpected D-Bus error, a malformed reply).
    case failed(BusError)

    /// Whether this means "daemon unreachable" (exit code 69 in docs/reference.md §2).
    public var isUnreachable: Bool {
        switch self {
        case .busUnavailable, .daemonUnreachable: true
        case .command, .failed: false
        }
    }

    public var description: String {
        switch self {
        case .busUnavailable(let error):
            "The session bus is unavailable: \(error.message ?? error.errnoDescription)"
        case .daemonUnreachable(let error):
            "The intervald daemon is unreachable: \(error.message ?? error.name ?? error.errnoDescription)"
        case .command(let error):
            error.message
        case .failed(let error):
            "\(error)"
        }
    }
}

/// Something ``TimerBusClient/follow(tick:_:)`` saw.
public enum TimerEvent: Sendable, Equatable {
    /// `PropertiesChanged` on the timer: the names of the properties that changed.
    case propertiesChanged([String])
    /// `SegmentStarted(u index, s kind, s label, t duration)`; `duration` in microseconds.
    case segmentStarted(index: UInt32, kind: String, label: String, duration: UInt64)
    /// `Finished(s plan_name)`.
    case finished(planName: String)
    /// `Stopped(s reason)`: a `StopReason` raw value (`user`, `notification`, `replaced`, `shutdown`).
    case stopped(reason: String)
    /// The daemon took the bus name (it started).
    case daemonAppeared
    /// The daemon gave up the bus name (it exited).
    case daemonVanished
    /// The tick interval passed: a chance to print the time (Elapsed changes without signals).
    case tick
}

extension TimerStatus {
    /// The timer as `event` shows it, before its properties are read again (a client reads them after each signal);
    /// nil for an event that shows nothing by itself. A segment's signal sets the digits at once. `Finished` and
    /// `Stopped` mean idle: until the properties are read, a redraw of the old reading would show the ended workout
    /// running again (the window's finish page was lost so).
    public func assumed(after event: TimerEvent) -> TimerStatus? {
        switch event {
        case .segmentStarted(let index, let kind, let label, let duration):
            var started = state == .idle ? TimerStatus.idle : self
            started.state = .running
            (started.segmentIndex, started.segmentKind, started.segmentLabel) = (index, kind, label)
            (started.segmentDuration, started.segmentRemaining) = (duration, duration)
            // The signal says 0 for a step the person ends, and a timed step is never that short (at least 1 ms): the
            // digits count up from 0 at once.
            (started.open, started.segmentElapsed) = (duration == 0, 0)
            return started
        case .finished, .stopped:
            var ended = TimerStatus.idle
            // The ended plan's name stays: it finds the workout's record.
            ended.planName = planName
            return ended
        case .propertiesChanged, .daemonAppeared, .daemonVanished, .tick:
            return nil
        }
    }
}

/// What ``TimerBusClient/follow(tick:_:)`` does after an event.
public enum FollowAction: Sendable {
    case `continue`, stop
}

/// The client side of `org.intervald.Timer1`, for `intervalctl` and the window (through ``TimerBusConnection``):
/// blocking calls on its own connection.
///
/// Threading: not thread-safe; use an instance from one thread. Calls block for at most `callTimeout`.
public final class TimerBusClient {
    let bus: Bus
    private let callTimeout: Duration
    private let logger: Logger

    /// Connects to the session bus. Throws ``TimerClientError/busUnavailable(_:)`` if there is none.
    /// The corresponding C function is `sd_bus_open_user`.
    public init(
        callTimeout: Duration = .seconds(10), description: String = "intervalctl", logger: Logger
    ) throws(TimerClientError) {
        do throws(BusError) {
            bus = try Bus.openUser(description: description)
        } catch {
            throw .busUnavailable(error)
        }
        self.callTimeout = callTimeout
        self.logger = logger
    }

    /// Calls `call`'s method and answers its reply. Starts the daemon by D-Bus activation if it is not running: one
    /// started so resumes the workout its state file holds, so that a `Stop` stops that one too.
    @discardableResult
    public func call<Method: TimerMethod>(_ call: Method) throws(TimerClientError) -> Method.Reply {
        do throws(BusError) {
            return try send(call, activating: true)
        } catch {
            logger.debug("Call failed.", metadata: ["method": "\(Method.name)", "error": "\(error)"])
            throw inOwnLanguage(classify(error))
        }
    }

    /// `refusal` with the daemon's words said again in this process's language where they can be: the daemon speaks
    /// its own locale, which may not be the person's (a German terminal was told "“1m run” is running.").
    private func inOwnLanguage(_ refusal: TimerClientError) -> TimerClientError {
        guard case .command(let command) = refusal, command.code == .alreadyRunning,
            let running = try? status(), !running.planName.isEmpty
        else { return refusal }
        return .command(.alreadyRunning(running.planName))
    }

    /// Like ``call(_:)``, without activating the daemon: nil when no daemon runs (`ReloadSettings`: the next one reads
    /// the file as it starts).
    public func callIfRunning<Method: TimerMethod>(_ call: Method) throws(TimerClientError) -> Method.Reply? {
        do throws(BusError) {
            return try send(call, activating: false)
        } catch {
            if let name = error.name, notRunningNames.contains(name) { return nil }
            throw classify(error)
        }
    }

    /// All properties through `org.freedesktop.DBus.Properties.GetAll`, without activating the daemon unless
    /// `activating` (a daemon started so resumes the workout its state file holds): a daemon that is not running
    /// reports ``TimerStatus/idle``.
    public func status(activating: Bool = false) throws(TimerClientError) -> TimerStatus {
        let reply: BusMessage
        do throws(BusError) {
            let message = try bus.newMethodCall(
                destination: BusNames.service, path: BusNames.objectPath, interface: propertiesInterface,
                member: "GetAll")
            try message.append(BusNames.interface)
            try message.setAutoStart(activating)
            reply = try bus.call(message, timeout: callTimeout)
        } catch {
            if let name = error.name, notRunningNames.contains(name) {
                logger.debug("The daemon does not run; reporting idle.", metadata: ["error": "\(name)"])
                return .idle
            }
            throw classify(error)
        }
        do throws(BusError) {
            return try decodeStatus(reply)
        } catch {
            throw .failed(error)
        }
    }

    /// Subscribes to the timer's signals, its property changes and the name's owner changes, then delivers
    /// them to `handler` until it returns `.stop`, with a ``TimerEvent/tick`` every `tick` (the first one
    /// right away). `handler` runs on the calling thread, outside of sd-bus dispatch, so it may call
    /// ``status()``. Throws ``TimerClientError/busUnavailable(_:)`` if the bus connection ends.
    public func follow(tick: Duration = .seconds(1), _ handler: (TimerEvent) -> FollowAction) throws(TimerClientError) {
        let tick = max(tick, .milliseconds(1))
        let clock = ContinuousClock()
        var grid = clock.now
        try follow(
            nextTick: {
                // The next whole tick after now, on the grid of the first one: no burst of ticks after a stall.
                let now = clock.now
                while grid <= now { grid = grid.advanced(by: tick) }
                return now.duration(to: grid)
            }, handler)
    }

    /// Like ``follow(tick:_:)``, but the caller decides when ticks come: the first ``TimerEvent/tick`` is
    /// delivered right away, and after every tick or batch of events `nextTick` says how long to wait for the
    /// next one, or `nil` for none until an event arrives. With `nil` the loop sleeps in `sd_bus_wait` with no
    /// timeout: no periodic wake-ups.
    public func follow(
        nextTick: () -> Duration?, _ handler: (TimerEvent) -> FollowAction
    ) throws(TimerClientError) {
        let inbox = EventInbox()
        let receiver = TimerSignalReceiver(logger: logger) { inbox.post($0) }
        var subscription = try subscribe(receiver)
        defer { subscription.removeAll() }  // Remove the matches before `receiver` can go away.

        let clock = ContinuousClock()
        var deadline: ContinuousClock.Instant? = clock.now
        while true {
            do throws(BusError) {
                while try bus.process() {}
            } catch {
                throw .busUnavailable(error)
            }
            let events = inbox.take()
            for event in events {
                if handler(event) == .stop { return }
            }
            if let due = deadline, clock.now >= due {
                if handler(.tick) == .stop { return }
                deadline = nextTick().map { clock.now.advanced(by: $0) }
                continue  // The handler may have queued messages (e.g. through status()).
            }
            if !events.isEmpty {
                deadline = nextTick().map { clock.now.advanced(by: $0) }
                continue
            }
            do throws(BusError) {
                try bus.wait(timeout: deadline.map { clock.now.duration(to: $0) })
            } catch {
                throw .busUnavailable(error)
            }
        }
    }

    /// Adds the matches of ``follow(tick:_:)``: the timer's signals, its property changes and the name's owner
    /// changes go to `receiver` from inside `sd_bus_process`. Keep `receiver` alive as long as the slots.
    func subscribe(_ receiver: TimerSignalReceiver) throws(TimerClientError) -> [BusSlot] {
        let context = Unmanaged.passUnretained(receiver).toOpaque()
        do throws(BusError) {
            return [
                try bus.matchSignal(
                    sender: BusNames.service, path: BusNames.objectPath, interface: propertiesInterface,
                    member: "PropertiesChanged", callback: onPropertiesChanged, userdata: context),
                try bus.matchSignal(
                    sender: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                    member: nil, callback: onTimerSignal, userdata: context),
                try bus.addMatch(
                    "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                        + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(BusNames.service)'",
                    callback: onNameOwnerChanged, userdata: context),
            ]
        } catch {
            throw classify(error)
        }
    }

    // MARK: Private

    private func send<Method: TimerMethod>(_ call: Method, activating: Bool) throws(BusError) -> Method.Reply {
        let message = try bus.newMethodCall(
            destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
            member: Method.name)
        for value in call.values { try message.append(value) }
        try message.setAutoStart(activating)
        return try bus.call(message, timeout: callTimeout).read(Method.Reply.self)
    }

    private func classify(_ error: BusError) -> TimerClientError {
        if let name = error.name {
            let message = error.message ?? ""
            if let code = TimerCommandError.Code(rawValue: name) {
                return .command(TimerCommandError(code, message))
            }
            if unreachableNames.contains(name) || name.hasPrefix(BusErrorName.spawnPrefix)
                || name.hasPrefix("org.freedesktop.systemd1.")
            {
                return .daemonUnreachable(error)
            }
            if name == BusErrorName.disconnected { return .busUnavailable(error) }
            return .failed(error)
        }
        switch error.errno {
        case ENOTCONN, ECONNRESET, ECONNREFUSED, EPIPE, ESHUTDOWN, ENOENT: return .busUnavailable(error)
        case ETIMEDOUT, EHOSTUNREACH: return .daemonUnreachable(error)
        default: return .failed(error)
        }
    }
}

private let propertiesInterface = "org.freedesktop.DBus.Properties"

/// Errors that mean the daemon does not run (with auto-start off).
private let notRunningNames: Set<String> = [BusErrorName.serviceUnknown, BusErrorName.nameHasNoOwner]

/// Errors that mean the daemon is absent, failed to start, or did not answer.
private let unreachableNames: Set<String> = notRunningNames.union([
    BusErrorName.noReply, BusErrorName.timeout, BusErrorName.timedOut,
])

/// Reads a `GetAll` reply (`a{sv}`) into a status; properties it does not know, or of another type than the
/// interface declares, are skipped.
private func decodeStatus(_ reply: BusMessage) throws(BusError) -> TimerStatus {
    var status = TimerStatus.idle
    try reply.enterContainer("a", contents: "{sv}")
    while try reply.enterContainer("e", contents: "sv") {
        let name = try reply.readString()
        guard let (type, contents) = try reply.peekType(), type == "v", let contents else {
            throw BusError(errno: EBADMSG, function: "sd_bus_message_peek_type")
        }
        if let property = TimerProperty.named(name), contents == String(property.signature.rawValue) {
            try reply.enterContainer("v", contents: contents)
            let value = try reply.readValue(property.signature)
            guard property.assign(value, to: &status) else {
                throw BusError(errno: EBADMSG, function: "sd_bus_message_read_basic", message: "\(name) \(value)")
            }
            try reply.exitContainer()
        } else {
            try reply.skip("v")
        }
        try reply.exitContainer()
    }
    try reply.exitContainer()
    return status
}

/// Collects events from the match callbacks (which run inside `sd_bus_process`) for delivery after it returns.
private final class EventInbox {
    private var events: [TimerEvent] = []

    func post(_ event: TimerEvent) {
        events.append(event)
    }

    func take() -> [TimerEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}

/// What the match callbacks of ``TimerBusClient/subscribe(_:)`` hand their parsed signals to.
final class TimerSignalReceiver {
    private let deliver: (TimerEvent) -> Void
    private let logger: Logger

    init(logger: Logger, deliver: @escaping (TimerEvent) -> Void) {
        self.logger = logger
        self.deliver = deliver
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> TimerSignalReceiver? {
        userdata.map { Unmanaged<TimerSignalReceiver>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Parses a signal in a match callback; a malformed one is logged and dropped.
    func parse(_ message: OpaquePointer?, _ body: (BusMessage) throws(BusError) -> TimerEvent?) {
        guard let message else { return }
        do throws(BusError) {
            if let event = try body(BusMessage(borrowing: message)) { deliver(event) }
        } catch {
            logger.debug("Failed to parse a signal, ignoring.", metadata: ["error": "\(error)"])
        }
    }
}

private let onPropertiesChanged: sd_bus_message_handler_t = { message, userdata, _ in
    TimerSignalReceiver.from(userdata)?.parse(message) { message throws(BusError) in
        guard try message.readString() == BusNames.interface else { return nil }
        return .propertiesChanged(try message.readChangedPropertyNames())
    }
    return 0
}

private let onTimerSignal: sd_bus_message_handler_t = { message, userdata, _ in
    TimerSignalReceiver.from(userdata)?.parse(message) { message throws(BusError) in
        switch message.member {
        case BusNames.Signal.segmentStarted.rawValue:
            return .segmentStarted(
                index: try message.readUInt32(), kind: try message.readString(), label: try message.readString(),
                duration: try message.readUInt64())
        case BusNames.Signal.finished.rawValue:
            return .finished(planName: try message.readString())
        case BusNames.Signal.stopped.rawValue:
            return .stopped(reason: try message.readString())
        default:
            return nil
        }
    }
    return 0
}

private let onNameOwnerChanged: sd_bus_message_handler_t = { message, userdata, _ in
    TimerSignalReceiver.from(userdata)?.parse(message) { message throws(BusError) in
        guard try message.readString() == BusNames.service else { return nil }
        _ = try message.readString()  // old owner
        return try message.readString().isEmpty ? .daemonVanished : .daemonAppeared
    }
    return 0
}

import CBusShims
import CSystemd
import Glibc
import IntervalCore
import Logging

/// What an exported interface's method calls and property reads go to. Called on the connection's queue, from within
/// sd-bus's dispatch of a message; sd-bus has checked each call's signature against the interface's table.
public protocol BusObjectHandler: AnyObject {
    /// Carries out `call` and answers it, now or later, through ``BusCall/reply(_:)`` or ``BusCall/fail(_:)``;
    /// throwing answers it with the error at once.
    func handle(_ call: BusCall) throws(BusCallError)
    /// Appends the value of `property` of `interface` to `reply`, of the type the table declares.
    func appendProperty(_ property: String, of interface: String, to reply: BusMessage) throws(BusCallError)
}

extension BusObjectHandler {
    public func appendProperty(_ property: String, of interface: String, to reply: BusMessage) throws(BusCallError) {
        throw BusCallError(BusErrorName.unknownProperty, "Unknown property \(property).")
    }
}

/// A D-Bus error to answer a call with: its name and a sentence.
public struct BusCallError: Error, Sendable, Equatable {
    public let name: String
    public let message: String

    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// A call whose arguments could not be read or whose reply could not be built.
    public init(_ failure: BusError) {
        self.init(BusErrorName.invalidArgs, "\(failure)")
    }

    /// One of the timer's own errors (`org.intervald.Timer1.Error.*`).
    public init(_ failure: TimerCommandError) {
        self.init(failure.busErrorName, failure.message)
    }

    /// What a call gets once the object's handler is gone.
    static let unavailable = BusCallError(BusErrorName.failed, "The timer is shutting down.")
}

/// A method call being answered: its message, to read the arguments from, and the means to answer it once.
public final class BusCall {
    /// The call, positioned at its first argument.
    public let message: BusMessage
    /// The method's name.
    public let member: String
    /// The interface the method belongs to.
    public let interface: String
    private let logger: Logger
    private let afterReply: () -> Void

    init(message: BusMessage, interface: String, logger: Logger, afterReply: @escaping () -> Void) {
        self.message = message
        self.member = message.member ?? ""
        self.interface = interface
        self.logger = logger
        self.afterReply = afterReply
    }

    /// Sends the method return, filled by `fill`; a failure to build or send it is logged.
    public func reply(_ fill: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in }) {
        do throws(BusError) {
            let reply = try message.newMethodReturn()
            try fill(reply)
            try reply.send()
        } catch {
            logger.debug(
                "Failed to answer a call, ignoring.", metadata: ["member": "\(member)", "error": "\(error)"])
        }
        afterReply()
    }

    /// Answers with `failure`. The corresponding C function is `sd_bus_reply_method_error`.
    public func fail(_ failure: BusCallError) {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        sd_bus_error_set(&error, failure.name, failure.message)
        let sent = sd_bus_reply_method_error(message.pointer, &error)
        if sent < 0 {
            logger.debug(
                "Failed to answer a call, ignoring.", metadata: ["member": "\(member)", "errno": "\(-sent)"])
        }
        afterReply()
    }

    /// Answers with the outcome of a command: an empty return, or its error.
    public func answer(_ outcome: Result<Void, TimerCommandError>) {
        switch outcome {
        case .success: reply()
        case .failure(let failure): fail(BusCallError(failure))
        }
    }
}

/// One interface exported on a connection from its table (``BusInterface``), with its handler: the one way intervald
/// exports a D-Bus object. The interface stays on the bus for as long as this object lives; create and release it on
/// the connection's queue.
public final class BusObject {
    private let slot: BusSlot

    /// Exports `interface` at its path on `bus`. `handler` is held weakly: calls arriving after it is gone are
    /// answered with `org.freedesktop.DBus.Error.Failed`. `afterReply` runs after each answer given through a
    /// ``BusCall``, so that a connection's driver sends what an answer given outside of sd-bus's dispatch queued.
    /// The corresponding C function is `sd_bus_add_object_vtable` (through `ib_object_add`).
    public init(
        _ interface: BusInterface, on bus: Bus, handler: any BusObjectHandler, logger: Logger,
        afterReply: @escaping () -> Void
    ) throws(BusError) {
        let exported = ExportedInterface(
            interface: interface.name, handler: handler, logger: logger, afterReply: afterReply)
        var handlers = ib_object_handlers(
            method: { context, call, error in
                guard let exported = ExportedInterface.from(context), let call else { return -EINVAL }
                return exported.dispatch(BusMessage(borrowing: call), error: error)
            },
            get_property: { context, property, reply, error in
                guard let exported = ExportedInterface.from(context), let property, let reply else { return -EINVAL }
                return exported.read(String(cString: property), into: BusMessage(borrowing: reply), error: error)
            },
            release: { context in
                guard let context else { return }
                Unmanaged<ExportedInterface>.fromOpaque(context).release()
            })
        let context = Unmanaged.passRetained(exported).toOpaque()
        var slot: OpaquePointer?
        do throws(BusError) {
            _ = try CMembers.with(interface.members) { members, count throws(BusError) in
                try sdCall("sd_bus_add_object_vtable") {
                    ib_object_add(
                        bus.pointer, &slot, interface.path, interface.name, members, count, &handlers, context)
                }
            }
        } catch {
            // ib_object_add does not call release on failure.
            Unmanaged<ExportedInterface>.fromOpaque(context).release()
            throw error
        }
        self.slot = try BusSlot(owningResult: slot, function: "sd_bus_add_object_vtable")
    }
}

/// What the vtable's userdata points to; retained by the slot and released in its destroy callback.
private final class ExportedInterface {
    let interface: String
    weak var handler: (any BusObjectHandler)?
    let logger: Logger
    let afterReply: () -> Void

    init(interface: String, handler: any BusObjectHandler, logger: Logger, afterReply: @escaping () -> Void) {
        self.interface = interface
        self.handler = handler
        self.logger = logger
        self.afterReply = afterReply
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> ExportedInterface? {
        context.map { Unmanaged<ExportedInterface>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Hands a call to the handler; returns 1 (the handler answers it) or sd-bus's negative errno for an error.
    func dispatch(_ message: BusMessage, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let handler else { return Self.set(error, .unavailable) }
        do throws(BusCallError) {
            try handler.handle(BusCall(message: message, interface: interface, logger: logger, afterReply: afterReply))
            return 1
        } catch let failure {
            return Self.set(error, failure)
        }
    }

    func read(_ property: String, into reply: BusMessage, error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        guard let handler else { return Self.set(error, .unavailable) }
        do throws(BusCallError) {
            try handler.appendProperty(property, of: interface, to: reply)
            return 1
        } catch let failure {
            return Self.set(error, failure)
        }
    }

    /// Fills the call's error; returns the negative errno sd-bus expects, which makes it answer with that error.
    private static func set(_ error: UnsafeMutablePointer<sd_bus_error>?, _ failure: BusCallError) -> Int32 {
        sd_bus_error_set(error, failure.name, failure.message)
    }
}

/// An interface's rows as `ib_member`s whose strings live for the duration of one call.
private enum CMembers {
    static func with<R>(
        _ members: [BusInterface.Member], _ body: (UnsafePointer<ib_member>?, Int) throws(BusError) -> R
    ) throws(BusError) -> R {
        // Every string of every row, in one array of C strings freed after `body`.
        var strings: [UnsafeMutablePointer<CChar>?] = []
        defer { for string in strings { free(string) } }
        func keep(_ text: String) -> UnsafePointer<CChar>? {
            let copy = strdup(text)
            strings.append(copy)
            return UnsafePointer(copy)
        }
        func signature(_ arguments: [BusInterface.Argument]) -> String { arguments.map(\.signature).joined() }
        func names(_ arguments: [BusInterface.Argument]) -> String { arguments.map { $0.name + " " }.joined() }

        let rows = members.map { member -> ib_member in
            switch member {
            case .method(let name, let arguments, let results, _):
                ib_member(
                    kind: IB_MEMBER_METHOD, name: keep(name), signature: keep(signature(arguments)),
                    result: keep(signature(results)), names: keep(names(arguments) + names(results)),
                    change: IB_PROPERTY_CONSTANT)
            case .property(let name, let type, let change, _):
                ib_member(
                    kind: IB_MEMBER_PROPERTY, name: keep(name), signature: keep(type), result: nil, names: nil,
                    change: change.cValue)
            case .signal(let name, let arguments, _):
                ib_member(
                    kind: IB_MEMBER_SIGNAL, name: keep(name), signature: keep(signature(arguments)), result: nil,
                    names: keep(names(arguments)), change: IB_PROPERTY_CONSTANT)
            }
        }
        if strings.contains(where: { $0 == nil }) {
            throw BusError(errno: ENOMEM, function: "strdup")
        }
        return try rows.withUnsafeBufferPointer { buffer throws(BusError) in
            try body(buffer.baseAddress, buffer.count)
        }
    }
}

extension BusInterface.PropertyChange {
    fileprivate var cValue: ib_property_change {
        switch self {
        case .constant: IB_PROPERTY_CONSTANT
        case .emitsChange: IB_PROPERTY_EMITS_CHANGE
        case .readTime: IB_PROPERTY_READ_TIME
        }
    }
}

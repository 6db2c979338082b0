import CSystemd
import Glibc
import IntervalRuntime

/// An owning wrapper of an sd-bus connection (`sd_bus *`).
///
/// sd-bus is not thread-safe: use one `Bus` from one thread or one serial queue at a time. The connection
/// is flushed, closed and released when the `Bus` is deinitialised (`sd_bus_flush_close_unref`).
///
/// The calls that wait for the bus daemon's answer or for the socket (call, request and release of a name, a match,
/// flush) run with the process's caught signals deferred (``withCaughtSignalsDeferred(_:)``): a SIGTERM arriving during
/// one is handled after it, instead of failing it. ``wait(timeout:)`` is not: waiting is what a signal may end.
public final class Bus {
    /// The `sd_bus *` this object owns one reference of.
    public let pointer: OpaquePointer

    /// Takes over one reference of `pointer`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        sd_bus_flush_close_unref(pointer)
    }

    /// Connects to the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    ///
    /// The corresponding C function is `sd_bus_open_user_with_description`. The connection is made
    /// at once; authentication completes with the first call that waits for the bus.
    public static func openUser(description: String = "intervald") throws(BusError) -> Bus {
        try open("sd_bus_open_user_with_description") { sd_bus_open_user_with_description($0, description) }
    }

    /// Connects to the system bus. The corresponding C function is `sd_bus_open_system_with_description`.
    public static func openSystem(description: String = "intervald") throws(BusError) -> Bus {
        try open("sd_bus_open_system_with_description") { sd_bus_open_system_with_description($0, description) }
    }

    /// Calls one of sd-bus's `sd_bus_open_*` functions, named `function` in errors, and owns the connection it made.
    private static func open(
        _ function: StaticString, _ body: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(BusError) -> Bus {
        var bus: OpaquePointer?
        try sdCall(function) { body(&bus) }
        guard let bus else {
            throw BusError(errno: EINVAL, function: "\(function)")
        }
        return Bus(owning: bus)
    }

    /// This connection's unique name, e.g. `:1.42`. The corresponding C function is `sd_bus_get_unique_name`.
    public func uniqueName() throws(BusError) -> String {
        var name: UnsafePointer<CChar>?
        try sdCall("sd_bus_get_unique_name") { sd_bus_get_unique_name(pointer, &name) }
        return name.map { String(cString: $0) } ?? ""
    }

    /// Whether the connection is (still) open or being opened. The corresponding C function is `sd_bus_is_open`.
    public var isOpen: Bool {
        sd_bus_is_open(pointer) > 0
    }

    /// Requests a well-known name, without queueing: a name owned by another connection fails with
    /// `EEXIST`. The corresponding C function is `sd_bus_request_name`.
    public func requestName(_ name: String, flags: UInt64 = 0) throws(BusError) {
        try withCaughtSignalsDeferred { () throws(BusError) in
            try sdCall("sd_bus_request_name") { sd_bus_request_name(pointer, name, flags) }
        }
    }

    /// Releases a well-known name. The corresponding C function is `sd_bus_release_name`.
    public func releaseName(_ name: String) throws(BusError) {
        try withCaughtSignalsDeferred { () throws(BusError) in
            try sdCall("sd_bus_release_name") { sd_bus_release_name(pointer, name) }
        }
    }

    /// Requests a well-known name without waiting for the answer, which sd-bus handles (a failure is logged at its
    /// debug level). The corresponding C function is `sd_bus_request_name_async`.
    public func requestNameAsync(_ name: String) throws(BusError) {
        try sdCall("sd_bus_request_name_async") { sd_bus_request_name_async(pointer, nil, name, 0, nil, nil) }
    }

    /// Releases a well-known name without waiting for the answer. The corresponding C function is
    /// `sd_bus_release_name_async`.
    public func releaseNameAsync(_ name: String) throws(BusError) {
        try sdCall("sd_bus_release_name_async") { sd_bus_release_name_async(pointer, nil, name, nil, nil) }
    }

    /// A new method call message. The corresponding C function is `sd_bus_message_new_method_call`.
    public func newMethodCall(
        destination: String?, path: String, interface: String?, member: String
    ) throws(BusError) -> BusMessage {
        var message: OpaquePointer?
        try sdCall("sd_bus_message_new_method_call") {
            withOptionalCString(destination) { destination in
                withOptionalCString(interface) { interface in
                    sd_bus_message_new_method_call(pointer, &message, destination, path, interface, member)
                }
            }
        }
        return try BusMessage(owningResult: message, function: "sd_bus_message_new_method_call")
    }

    /// A new signal message. The corresponding C function is `sd_bus_message_new_signal`.
    public func newSignal(path: String, interface: String, member: String) throws(BusError) -> BusMessage {
        var message: OpaquePointer?
        try sdCall("sd_bus_message_new_signal") {
            sd_bus_message_new_signal(pointer, &message, path, interface, member)
        }
        return try BusMessage(owningResult: message, function: "sd_bus_message_new_signal")
    }

    /// Sends a method call and waits for its reply, processing nothing else meanwhile (other incoming
    /// messages are queued for ``process()``). An error reply is thrown as a ``BusError`` carrying its
    /// D-Bus name and message. `timeout` `nil` means sd-bus's default (25 s).
    /// The corresponding C function is `sd_bus_call`.
    public func call(_ message: BusMessage, timeout: Duration? = nil) throws(BusError) -> BusMessage {
        var reply: OpaquePointer?
        let usec = timeout.map(\.wholeMicroseconds) ?? 0
        try withCaughtSignalsDeferred { () throws(BusError) in
            try sdCall(
                "sd_bus_call", withError: { error in sd_bus_call(pointer, message.pointer, usec, error, &reply) })
        }
        return try BusMessage(owningResult: reply, function: "sd_bus_call")
    }

    /// Sends a method call without waiting: `reply` runs with its reply, or its error, from within ``process()``
    /// (once, unless the connection closes first). The pending call belongs to the connection, which releases
    /// `reply` after it ran or when it closes. The corresponding C function is `sd_bus_call_async`.
    public func callAsync(
        _ message: BusMessage, timeout: Duration? = nil, reply: @escaping (Result<BusMessage, BusError>) -> Void
    ) throws(BusError) {
        let box = Unmanaged.passRetained(PendingReply(reply))
        let usec = timeout.map(\.wholeMicroseconds) ?? 0
        var slot: OpaquePointer?
        do throws(BusError) {
            try sdCall("sd_bus_call_async") {
                sd_bus_call_async(
                    pointer, &slot, message.pointer,
                    { answer, userdata, _ in
                        guard let answer, let userdata else { return 0 }
                        let pending = Unmanaged<PendingReply>.fromOpaque(userdata).takeUnretainedValue()
                        if let error = sd_bus_message_get_error(answer), sd_bus_error_is_set(error) != 0 {
                            pending.reply(
                                .failure(
                                    BusError(
                                        errno: sd_bus_error_get_errno(error), function: "sd_bus_call_async",
                                        name: error.pointee.name.map { String(cString: $0) },
                                        message: error.pointee.message.map { String(cString: $0) })))
                        } else {
                            pending.reply(.success(BusMessage(borrowing: answer)))
                        }
                        return 0
                    }, box.toOpaque(), usec)
            }
        } catch {
            box.release()
            throw error
        }
        // The connection owns the pending call from here: the box goes with the slot, answered or not.
        sd_bus_slot_set_destroy_callback(slot) { userdata in
            guard let userdata else { return }
            Unmanaged<PendingReply>.fromOpaque(userdata).release()
        }
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
    }

    /// Queues a message for sending and writes as much as the socket takes now.
    /// The corresponding C function is `sd_bus_send`.
    public func send(_ message: BusMessage) throws(BusError) {
        try sdCall("sd_bus_send") { sd_bus_send(pointer, message.pointer, nil) }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for `names` of `interface` at `path`,
    /// reading their values through the object's vtable getters. Every name must be a property declared
    /// with `SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE` (or `_INVALIDATION`); an empty list emits all of them.
    /// The corresponding C function is `sd_bus_emit_properties_changed_strv`.
    public func emitPropertiesChanged(path: String, interface: String, names: [String]) throws(BusError) {
        // A NULL-terminated char ** whose strings live until the call returns.
        var cStrings: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) }
        defer { for string in cStrings { free(string) } }
        if cStrings.contains(where: { $0 == nil }) {
            throw BusError(errno: ENOMEM, function: "strdup")
        }
        cStrings.append(nil)
        try sdCall("sd_bus_emit_properties_changed_strv") {
            cStrings.withUnsafeMutableBufferPointer { buffer in
                sd_bus_emit_properties_changed_strv(pointer, path, interface, buffer.baseAddress)
            }
        }
    }

    /// Processes at most one pending piece of work (reading, writing, dispatching one message).
    /// Returns `true` if it did something (call again), `false` when there is nothing to do now.
    /// Must not be called from within a callback that sd-bus is running (it fails with `EBUSY`).
    /// The corresponding C function is `sd_bus_process`.
    @discardableResult
    public func process() throws(BusError) -> Bool {
        try sdCall("sd_bus_process") { sd_bus_process(pointer, nil) } > 0
    }

    /// Waits until the connection has something to process, or `timeout` passes (`nil`: no limit).
    /// The corresponding C function is `sd_bus_wait`.
    public func wait(timeout: Duration?) throws(BusError) {
        let usec = timeout.map(\.wholeMicroseconds) ?? UInt64.max
        try sdCall("sd_bus_wait") { sd_bus_wait(pointer, usec) }
    }

    /// Writes all queued outgoing messages, blocking until done. The corresponding C function is `sd_bus_flush`.
    public func flush() throws(BusError) {
        try withCaughtSignalsDeferred { () throws(BusError) in
            try sdCall("sd_bus_flush") { sd_bus_flush(pointer) }
        }
    }

    /// The socket to poll. The corresponding C function is `sd_bus_get_fd`.
    public func fileDescriptor() throws(BusError) -> Int32 {
        try sdCall("sd_bus_get_fd") { sd_bus_get_fd(pointer) }
    }

    /// The `poll` events (`POLLIN`, `POLLOUT`) to wait for now. The corresponding C function is `sd_bus_get_events`.
    public func events() throws(BusError) -> Int32 {
        try sdCall("sd_bus_get_events") { sd_bus_get_events(pointer) }
    }

    /// The absolute CLOCK_MONOTONIC time in microseconds by which ``process()`` must be called again
    /// even without I/O (0: right away, e.g. messages are already queued), or `nil` for no deadline.
    /// The corresponding C function is `sd_bus_get_timeout`.
    public func timeout() throws(BusError) -> UInt64? {
        var usec: UInt64 = 0
        try sdCall("sd_bus_get_timeout") { sd_bus_get_timeout(pointer, &usec) }
        return usec == UInt64.max ? nil : usec
    }

    /// Subscribes to messages matching a D-Bus match rule, e.g.
    /// `type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.example'`.
    /// `callback` runs from within ``process()``; the match lasts as long as the returned slot.
    /// The corresponding C function is `sd_bus_add_match`.
    public func addMatch(
        _ rule: String, callback: sd_bus_message_handler_t, userdata: UnsafeMutableRawPointer?
    ) throws(BusError) -> BusSlot {
        var slot: OpaquePointer?
        try withCaughtSignalsDeferred { () throws(BusError) in
            try sdCall("sd_bus_add_match") { sd_bus_add_match(pointer, &slot, rule, callback, userdata) }
        }
        return try BusSlot(owningResult: slot, function: "sd_bus_add_match")
    }

    /// Subscribes to the bus daemon's `NameOwnerChanged` for `name` alone: a match on every one would wake the process
    /// for each client that comes and goes on the bus. `callback` reads it with ``BusMessage/readNameOwnerChange()``.
    public func matchNameOwnerChanged(
        of name: String, callback: sd_bus_message_handler_t, userdata: UnsafeMutableRawPointer?
    ) throws(BusError) -> BusSlot {
        try addMatch(
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'",
            callback: callback, userdata: userdata)
    }

    /// Subscribes to signals; `nil` components match anything. `callback` runs from within ``process()``;
    /// the match lasts as long as the returned slot. The corresponding C function is `sd_bus_match_signal`.
    public func matchSignal(
        sender: String?, path: String?, interface: String?, member: String?,
        callback: sd_bus_message_handler_t, userdata: UnsafeMutableRawPointer?
    ) throws(BusError) -> BusSlot {
        var slot: OpaquePointer?
        try sdCall("sd_bus_match_signal") {
            withOptionalCString(sender) { sender in
                withOptionalCString(path) { path in
                    withOptionalCString(interface) { interface in
                        withOptionalCString(member) { member in
                            sd_bus_match_signal(pointer, &slot, sender, path, interface, member, callback, userdata)
                        }
                    }
                }
            }
        }
        return try BusSlot(owningResult: slot, function: "sd_bus_match_signal")
    }
}

/// What ``Bus/callAsync(_:timeout:reply:)`` hands sd-bus as the pending call's userdata.
private final class PendingReply {
    let reply: (Result<BusMessage, BusError>) -> Void

    init(_ reply: @escaping (Result<BusMessage, BusError>) -> Void) {
        self.reply = reply
    }
}

/// An owning wrapper of an `sd_bus_slot *` (an exported object, a match, a pending call): the registration
/// lasts until the slot is deinitialised. The corresponding C function is `sd_bus_slot_unref`.
public final class BusSlot {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    init(owningResult pointer: OpaquePointer?, function: StaticString) throws(BusError) {
        guard let pointer else { throw BusError(errno: EINVAL, function: "\(function)") }
        self.pointer = pointer
    }

    deinit {
        sd_bus_slot_unref(pointer)
    }
}

/// Calls `body` with `string` as a C string, or with `NULL` for `nil`; the pointer lives until `body` returns.
@inline(__always)
internal func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

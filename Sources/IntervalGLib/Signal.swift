internal import CGio

/// A GObject signal and the Swift type of its handler, which follows the signal's C arguments: `on(button, .clicked)`
/// takes a `() -> Void`, `on(dialog, .response)` a `(String) -> Void`. A handler of another type does not compile, so
/// none can be connected that GLib would call with arguments it does not take. The signals are named where they are
/// used (the window's GtkSignals.swift, IntervalWatch's WatchMonitor).
public struct Signal<Handler>: Sendable {
    public let name: String

    public init(name: String) { self.name = name }
}

/// Connects `callback` to `signal`, called through `thunk` (a C function whose last argument is the callback's
/// ``ClosureBox``), and held until the handler is disconnected or the instance finalised; the handler's id, for
/// `g_signal_handler_disconnect` where the instance outlives what the handler serves.
public func connectSignal(
    _ instance: UnsafeMutableRawPointer, _ signal: String, _ thunk: @convention(c) () -> Void, _ callback: Any
) -> UInt {
    g_signal_connect_data(
        instance, signal, thunk, ClosureBox.retained(callback), { data, _ in ClosureBox.release(data) },
        GConnectFlags(0))
}

@discardableResult
public func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Void>, _ callback: @escaping () -> Void)
    -> UInt
{
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        ClosureBox.from(data, as: (() -> Void).self)?()
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
public func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(OpaquePointer?) -> Void>,
    _ callback: @escaping (OpaquePointer?) -> Void
) -> UInt {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((OpaquePointer?) -> Void).self)?(argument)
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
public func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(String) -> Void>, _ callback: @escaping (String) -> Void
) -> UInt {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((String) -> Void).self)?(argument.map { String(cString: $0) } ?? "")
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
public func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32) -> Void>, _ callback: @escaping (Int32) -> Void
) -> UInt {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((Int32) -> Void).self)?(argument)
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
public func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Bool>, _ callback: @escaping () -> Bool)
    -> UInt
{
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        (ClosureBox.from(data, as: (() -> Bool).self)?() ?? false) ? 1 : 0
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
public func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32, Int32) -> Void>,
    _ callback: @escaping (Int32, Int32) -> Void
) -> UInt {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, width, height, data in
        ClosureBox.from(data, as: ((Int32, Int32) -> Void).self)?(width, height)
    }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

/// What a GFileMonitor says happened (GFileMonitorEvent), of the events its watchers act on.
public struct FileMonitorEvent: Equatable, Sendable {
    let rawValue: UInt32

    public static let changesDone = Self(rawValue: G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT.rawValue)
    public static let created = Self(rawValue: G_FILE_MONITOR_EVENT_CREATED.rawValue)
    public static let deleted = Self(rawValue: G_FILE_MONITOR_EVENT_DELETED.rawValue)
}

extension Signal where Handler == (FileMonitorEvent) -> Void {
    /// GFileMonitor's `changed(file, other_file, event_type)`, with the event.
    public static let fileChanged = Self(name: "changed")
}

@discardableResult
public func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(FileMonitorEvent) -> Void>,
    _ callback: @escaping (FileMonitorEvent) -> Void
) -> UInt {
    let thunk:
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, GFileMonitorEvent, UnsafeMutableRawPointer?
        ) -> Void = { _, _, _, event, data in
            ClosureBox.from(data, as: ((FileMonitorEvent) -> Void).self)?(FileMonitorEvent(rawValue: event.rawValue))
        }
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

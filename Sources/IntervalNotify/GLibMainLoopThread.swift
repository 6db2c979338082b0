import CLibNotify
import CNotifyShims
import Dispatch
import Glibc
import IntervalRuntime
import Logging

/// The thread that runs GLib's default main context, where every libnotify and GObject call happens.
///
/// `g_main_loop_run` on the main thread would starve `DispatchQueue.main`, so the loop gets a `Thread` of its own.
/// That thread acquires the default `GMainContext` for its whole life and calls `notify_init` there; libnotify's
/// D-Bus proxy and its signals (action invoked, notification closed) therefore live on it too.
///
/// There is one per process, because both the default main context and libnotify's state are process-wide:
/// get it with ``shared(appName:logger:)``. Work reaches it through ``invoke(_:)``.
public final class GLibMainLoopThread: Sendable {
    private enum State: Sendable {
        case starting, running, stopping, stopped
    }

    /// A `GMainLoop`, whose `g_main_loop_quit`, `ref` and `unref` are thread-safe.
    private struct MainLoopPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private static let current = Locked<GLibMainLoopThread?>(nil)

    private let state = Locked(State.starting)
    private let mainLoop: MainLoopPointer
    private let exited = DispatchGroup()
    private let logger: Logger

    /// Returns the process's GLib thread, starting it (and calling `notify_init(appName)` on it) if it is not running.
    ///
    /// Blocks until the thread runs. After ``shutdown()``, the next call starts a new thread.
    public static func shared(appName: String = "intervald", logger: Logger) -> GLibMainLoopThread {
        current.withLock { current in
            if let running = current {
                if running.isRunning {
                    return running
                }
                running.shutdown()  // A thread that is still stopping must let go of the context first.
            }
            let started = GLibMainLoopThread(appName: appName, logger: logger)
            current = started
            return started
        }
    }

    /// Shuts down the process's GLib thread if one runs (see ``shutdown()``), without starting one.
    public static func shutdownShared() {
        let running = current.withLock { $0 }
        running?.shutdown()
    }

    private init(appName: String, logger: Logger) {
        self.logger = logger
        // The corresponding C function is `g_main_loop_new`; NULL is the default main context.
        mainLoop = MainLoopPointer(pointer: g_main_loop_new(nil, 0))
        let ready = DispatchSemaphore(value: 0)
        exited.enter()
        let started = Self.startThread { [self] in
            _ = in_set_current_thread_name("intervald-glib")
            run(appName: appName, ready: ready)
        }
        if started {
            ready.wait()
        } else {
            logger.error("Failed to start the GLib thread: notifications are disabled.")
            state.withLock { $0 = .stopped }
            exited.leave()
        }
    }

    deinit {
        g_main_loop_unref(mainLoop.pointer)
    }

    /// Whether the loop accepts work.
    public var isRunning: Bool {
        state.withLock { $0 == .running }
    }

    /// Whether the caller is the GLib thread (the owner of the default main context).
    public var isCurrentThread: Bool {
        g_main_context_is_owner(g_main_context_default()) != 0
    }

    /// Runs `body` on the GLib thread, after the work queued before it. Never runs it inline, not even when called
    /// on the GLib thread, so it is safe from inside a libnotify callback.
    ///
    /// - Returns: `false` if the loop is shut down; `body` is dropped then.
    @discardableResult
    public func invoke(_ body: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state == .running else {
                return false
            }
            // Queued under the lock, so that shutdown() sees every accepted closure ahead of its quit.
            post(body)
            return true
        }
    }

    /// Runs `body` on the GLib thread when CLOCK_BOOTTIME reaches `deadline` (µs), to the microsecond: a timerfd wakes
    /// the loop, where GLib's own timeouts would wake it on whole milliseconds. Call it on the GLib thread.
    ///
    /// - Returns: the source's id for `in_main_context_cancel`, or nil when no timer could be made (then `body` never
    ///   runs).
    public func invoke(at deadline: Int64, _ body: @escaping @Sendable () -> Void) -> UInt32? {
        let id = in_main_context_post_at(
            nil, gint64(deadline), Self.runBox, Unmanaged.passRetained(InvocationBox(body)).toOpaque(), Self.releaseBox)
        return id == 0 ? nil : id
    }

    /// Runs `body` on the GLib thread and waits for its result; runs it inline if the caller is the GLib thread.
    ///
    /// For tests and for shutdown paths: the GLib thread can be blocked by a hung notification server for as long
    /// as a D-Bus call's timeout (25 s).
    ///
    /// - Returns: `nil` if the loop is shut down.
    public func invokeAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        if isCurrentThread {
            return body()
        }
        let result = ResultSlot<T>()
        let done = DispatchSemaphore(value: 0)
        let queued = invoke {
            result.value.withLock { $0 = body() }
            done.signal()
        }
        guard queued else {
            return nil
        }
        done.wait()
        return result.value.withLock { $0 }
    }

    /// Quits the loop and waits for the thread to end, after it has run the work queued before this call and
    /// called `notify_uninit`. Later ``invoke(_:)`` calls return `false`. Idempotent.
    ///
    /// Called on the GLib thread itself, it only asks the loop to quit and returns.
    public func shutdown() {
        let quit = state.withLock { state -> Bool in
            guard state == .running else {
                return false
            }
            state = .stopping
            let loop = mainLoop
            post { g_main_loop_quit(loop.pointer) }
            return true
        }
        if quit {
            logger.debug("Stopping the GLib main loop thread.")
        }
        if !isCurrentThread {
            exited.wait()
        }
    }

    private func post(_ body: @escaping @Sendable () -> Void) {
        in_main_context_post(nil, Self.runBox, Unmanaged.passRetained(InvocationBox(body)).toOpaque(), Self.releaseBox)
    }

    /// The C callback of a retained ``InvocationBox``: runs its body.
    private static let runBox: in_callback = { context in
        guard let context else { return }
        Unmanaged<InvocationBox>.fromOpaque(context).takeUnretainedValue().body()
    }

    /// The destroy-notify of a retained ``InvocationBox``: releases it.
    private static let releaseBox: GDestroyNotify = { context in
        guard let context else { return }
        Unmanaged<InvocationBox>.fromOpaque(context).release()
    }

    /// Runs `body` on a new detached POSIX thread (Foundation's `Thread` would load all of Foundation for this).
    private static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(InvocationBox(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<InvocationBox>.fromOpaque(context).takeRetainedValue().body()
                return nil
            }, box)
        guard result == 0 else {
            Unmanaged<InvocationBox>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The thread's body.
    private func run(appName: String, ready: DispatchSemaphore) {
        defer { exited.leave() }
        let context = g_main_context_default()
        // Owning the context for the thread's whole life means no other thread can ever acquire it and run
        // GLib callbacks (g_main_context_invoke would do exactly that with an unowned context).
        guard g_main_context_acquire(context) != 0 else {
            logger.error("Failed to acquire the GLib main context: another thread runs it, notifications are disabled.")
            state.withLock { $0 = .stopped }
            ready.signal()
            return
        }
        if notify_init(appName) == 0 {
            logger.error("Failed to initialise libnotify, ignoring.", metadata: ["app": "\(appName)"])
        }
        state.withLock { $0 = .running }
        ready.signal()
        logger.debug("GLib main loop thread running.")

        g_main_loop_run(mainLoop.pointer)

        // Run whatever was accepted before shutdown() (a final close, say). Bounded in case a source stays ready.
        var iterations = 0
        while iterations < 10_000, g_main_context_iteration(context, 0) != 0 {
            iterations += 1
        }
        state.withLock { $0 = .stopped }
        notify_uninit()
        g_main_context_release(context)
        logger.debug("GLib main loop thread stopped.")
    }
}

/// A closure on its way to the GLib thread, retained by the GSource that runs it.
private final class InvocationBox {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

private final class ResultSlot<T: Sendable>: Sendable {
    let value = Locked<T?>(nil)
}

/// A value that only the GLib thread touches, the way swift-nio's `NIOLoopBound` ties a value to its event loop.
struct GLibThreadBound<Value: AnyObject>: @unchecked Sendable {
    private let _value: Value
    private let thread: GLibMainLoopThread

    init(_ value: Value, thread: GLibMainLoopThread) {
        _value = value
        self.thread = thread
    }

    /// The value; only on the GLib thread.
    var value: Value {
        assert(thread.isCurrentThread, "GLib-bound state touched off the GLib thread")
        return _value
    }

    /// The value, on any thread: only once the GLib thread has ended and cannot touch it any more.
    var valueAfterShutdown: Value {
        _value
    }
}

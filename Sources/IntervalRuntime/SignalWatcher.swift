import CRuntimeShims
import Dispatch
import Glibc

/// Delivers POSIX signals as events on a queue instead of in an async-signal handler.
///
/// Start-up order is part of the contract (systemd's daemons block their signals first thing in `main`): `catching`
/// runs before anything else exists, so a SIGTERM that arrives while the daemon is still setting up, or the instant
/// its bus name appears, waits in a pipe instead of killing it; `watch` later delivers what waited and what comes.
public final class SignalWatcher: @unchecked Sendable {
    private let pipe: Int32
    private var source: DispatchSourceRead?

    private init(pipe: Int32) {
        self.pipe = pipe
    }

    /// Catches `signals` from now on; call once per process, first thing in `main`.
    public static func catching(_ signals: [Int32]) throws(FileError) -> SignalWatcher {
        let result = signals.withUnsafeBufferPointer { ir_signal_pipe_open($0.baseAddress, $0.count) }
        guard result >= 0 else { throw FileError(operation: "catch", path: "the shutdown signals", errno: -result) }
        return SignalWatcher(pipe: result)
    }

    /// Calls `handler` on `queue` with the signal number for each signal caught, those that arrived before first.
    public func watch(on queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void) {
        source?.cancel()
        let source = DispatchSource.makeReadSource(fileDescriptor: pipe, queue: queue)
        source.setEventHandler { [pipe] in
            var numbers = [UInt8](repeating: 0, count: 16)
            while true {
                let count = numbers.withUnsafeMutableBytes { read(pipe, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                for number in numbers[..<count] { handler(Int32(number)) }
            }
        }
        source.activate()
        self.source = source
    }

    /// Stops delivering; signals are still caught (and dropped), never given their default action again. The pipe
    /// stays open: its handler writes to it for the rest of the process.
    public func stopWatching() {
        source?.cancel()
        source = nil
    }

    deinit {
        source?.cancel()
    }
}

/// Runs `body` (a blocking call) with the process's caught signals deferred on this thread: they reach their handler
/// through another thread or once `body` returns, and never interrupt it. Costs nothing where no signal is caught.
@discardableResult
public func withCaughtSignalsDeferred<Value, Failure: Error>(
    _ body: () throws(Failure) -> Value
) throws(Failure) -> Value {
    var previous = sigset_t()
    let deferred = ir_defer_caught_signals(&previous)
    defer { ir_restore_signal_mask(deferred, &previous) }
    return try body()
}

/// `exit(status)` for the first caller only; a later caller, on any thread, waits for the process to end. The daemon
/// can reach an exit from its queue, a watchdog timer and the GLib thread's shutdown at once.
public func exitOnce(_ status: Int32) -> Never {
    ir_exit_once(status)
}

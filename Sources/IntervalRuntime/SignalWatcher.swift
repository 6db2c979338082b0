import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Delivers POSIX signals as events on a queue instead of in an async-signal handler.
///
/// The signals' default actions are turned off while the watcher lives; "Dispatch sources retain their event handlers
/// until they are cancelled", so it cancels them in `deinit`.
public final class SignalWatcher: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    /// Calls `handler` on `queue` with the signal number each time one of `signals` arrives.
    public init(_ signals: [Int32], queue: DispatchQueue, handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.activate()
            sources.append(source)
        }
    }

    deinit {
        for source in sources {
            source.cancel()
        }
    }
}

import Dispatch
import Logging

/// Writes the daemon's records (the state file and the history) on a serial queue of its own, in the order they are
/// asked for: each write `fsync`s, and a slow disk must never hold the queue that times cues.
public final class RecordWriter: Sendable {
    private let queue = DispatchQueue(label: "intervald.records", qos: .utility)
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Runs `body` on the writer's queue; a failure is logged as `failure` and otherwise ignored. Does not block.
    public func write(failure: Logger.Message, _ body: @escaping @Sendable () throws -> Void) {
        queue.async { [logger] in
            do {
                try body()
            } catch {
                logger.warning(failure, metadata: ["error": "\(error)"])
            }
        }
    }

    /// Waits until everything asked for before is written.
    public func drain() {
        queue.sync {}
    }
}

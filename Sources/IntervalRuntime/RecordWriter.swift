import Dispatch
import Logging

/// Writes the daemon's records (the state file and the history) off the queue that times cues, in the order they are
/// asked for, in two steps: each record is put in place (readable by every process) on one serial queue, and made
/// durable (the `fsync`s that make it survive a power cut) after, on another. A slow disk never holds the queue that
/// times cues, and what waits for a record to be readable (a call's reply) does not wait for the disk as well.
public final class RecordWriter: Sendable {
    private let placing = DispatchQueue(label: "intervald.records", qos: .utility)
    private let syncing = DispatchQueue(label: "intervald.records.sync", qos: .utility)
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Runs `body` on the writer's queue, then what it leaves to sync; a failure of either is logged as `failure` and
    /// otherwise ignored. Does not block.
    public func write(failure: Logger.Message, _ body: @escaping @Sendable () throws -> PendingSync) {
        placing.async { [logger, syncing] in
            let pending: PendingSync
            do {
                pending = try body()
            } catch {
                logger.warning(failure, metadata: ["error": "\(error)"])
                return
            }
            syncing.async {
                do throws(FileError) {
                    try pending.perform()
                } catch {
                    logger.warning(failure, metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Runs `work` once everything asked for before is in place, perhaps not yet durable. Does not block.
    public func whenPlaced(_ work: @escaping @Sendable () -> Void) {
        placing.async(execute: work)
    }

    /// Waits until everything asked for before is in place, perhaps not yet durable.
    public func waitUntilPlaced() {
        placing.sync {}
    }

    /// Waits until everything asked for before is in place and durable.
    public func drain() {
        placing.sync {}
        syncing.sync {}
    }
}

import Dispatch
import IntervalCore
import Logging

/// `PropertiesChanged` for a sensor's properties at most once a second (docs/reference.md §3): a change within the
/// second is announced at its end. On the session's queue only, hence `@unchecked Sendable`.
final class ThrottledAnnouncement: @unchecked Sendable {
    private let names: [String]
    private let queue: DispatchQueue
    private let server: TimerBusServer
    private let logger: Logger
    /// When the properties were last announced (µs, monotonic), and whether a later announcement is waiting.
    private var announced: Int64 = 0
    private var waiting = false

    init(_ names: [String], queue: DispatchQueue, server: TimerBusServer, logger: Logger) {
        (self.names, self.queue, self.server, self.logger) = (names, queue, server, logger)
    }

    func announce() {
        guard !waiting else { return }
        let now = Int64(monotonicMicroseconds())
        let wait = announced + 1_000_000 - now
        guard wait > 0 else { return emit(at: now) }
        waiting = true
        queue.asyncAfter(deadline: .now() + .microseconds(Int(wait))) { [self] in
            waiting = false
            emit(at: Int64(monotonicMicroseconds()))
        }
    }

    private func emit(at now: Int64) {
        announced = now
        do {
            try server.emitPropertiesChanged(names)
        } catch {
            logger.warning("Failed to emit PropertiesChanged, ignoring.", metadata: ["error": "\(error)"])
        }
    }
}

import CSystemd
import Dispatch
import Glibc
import Logging

/// Serves a ``Bus`` on one serial `DispatchQueue`: a read source on `sd_bus_get_fd` that calls
/// `sd_bus_process` until it returns 0, a write source only while `sd_bus_get_events` asks for `POLLOUT`,
/// and a timer for `sd_bus_get_timeout` (absolute CLOCK_MONOTONIC). Every sd-bus call of the connection
/// must then happen on `queue`; after sending outside of ``processPending()`` call ``updateInterest()``.
///
/// Reports the end of the connection (the bus daemon went away, or an sd-bus error) once through
/// `onDisconnect`, on `queue`, and stops serving.
final class BusDispatchDriver: @unchecked Sendable {
    let bus: Bus
    let queue: DispatchQueue
    private let logger: Logger
    private let onDisconnect: @Sendable (BusError) -> Void

    /// The descriptor the sources watch while the driver serves the bus.
    private var watched: WatchedDescriptor?
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var timer: DispatchSourceTimer?
    private var timerDeadline: UInt64?
    private var stopped = false

    init(bus: Bus, queue: DispatchQueue, logger: Logger, onDisconnect: @escaping @Sendable (BusError) -> Void) {
        self.bus = bus
        self.queue = queue
        self.logger = logger
        self.onDisconnect = onDisconnect
    }

    deinit {
        cancelSources()
    }

    /// Creates and activates the sources, then processes once on `queue`: messages may already be buffered
    /// (e.g. after a synchronous `sd_bus_request_name`), and the socket would not wake us for them.
    func start() throws(BusError) {
        let watched = try WatchedDescriptor(duplicating: bus.fileDescriptor())
        self.watched = watched

        let read = DispatchSource.makeReadSource(fileDescriptor: watched.fd, queue: queue)
        read.setEventHandler { [weak self] in self?.processPending() }
        read.setCancelHandler { watched.keep() }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.timerDeadline = nil
            self.processPending()
        }
        timer.schedule(deadline: .distantFuture, leeway: .milliseconds(1))

        readSource = read
        self.timer = timer
        read.activate()
        timer.activate()
        queue.async { [weak self] in self?.processPending() }
    }

    /// Messages handled before the queue is given back: a flood of calls must not hold the queue that times cues, so
    /// after this many the rest are processed in a later block, behind a timer that fired meanwhile.
    private static let batch = 16

    /// Runs `sd_bus_process` until it has nothing left to do (yielding the queue every ``batch`` messages), then
    /// re-arms the sources.
    func processPending() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else { return }
        do {
            var handled = 0
            while try bus.process() {
                if stopped { return }
                handled += 1
                if handled == Self.batch {
                    queue.async { [weak self] in self?.processPending() }
                    return
                }
            }
        } catch {
            disconnected(error)
            return
        }
        updateInterest()
    }

    /// Re-arms the write source and the timer from `sd_bus_get_events` and `sd_bus_get_timeout`.
    /// Call after queueing messages outside of ``processPending()`` (e.g. emitting a signal from a timer).
    func updateInterest() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else { return }
        if !bus.isOpen {
            disconnected(BusError(errno: ENOTCONN, function: "sd_bus_is_open"))
            return
        }
        let events: Int32
        let deadline: UInt64?
        do {
            events = try bus.events()
            deadline = try bus.timeout()
        } catch {
            disconnected(error)
            return
        }

        if events & Int32(POLLOUT) != 0 {
            if writeSource == nil, let watched {
                logger.trace("Waiting for the bus socket to take more output.")
                let write = DispatchSource.makeWriteSource(fileDescriptor: watched.fd, queue: queue)
                write.setEventHandler { [weak self] in self?.processPending() }
                write.setCancelHandler { watched.keep() }
                writeSource = write
                write.activate()
            }
        } else if let write = writeSource {
            writeSource = nil
            write.cancel()
        }

        if deadline != timerDeadline, let timer {
            timerDeadline = deadline
            if let deadline {
                let now = monotonicMicroseconds()
                let delay = deadline > now ? deadline - now : 0
                if delay == 0 {
                    // Work is due now (e.g. messages already queued): do it after this block.
                    timerDeadline = nil
                    queue.async { [weak self] in self?.processPending() }
                } else {
                    let nanoseconds = delay > UInt64(Int.max / 1_000) ? Int.max : Int(delay) * 1_000
                    timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), leeway: .microseconds(100))
                }
            } else {
                timer.schedule(deadline: .distantFuture, leeway: .milliseconds(1))
            }
        }
    }

    /// Stops serving the bus (the sources are cancelled; the bus stays open until released).
    func stop() {
        stopped = true
        cancelSources()
    }

    private func disconnected(_ error: BusError) {
        guard !stopped else { return }
        logger.error(
            "Lost the connection to the session bus.",
            metadata: ["error": "\(error)", "errno": "\(error.errno)"])
        stop()
        onDisconnect(error)
    }

    private func cancelSources() {
        // The sources' cancel handlers hold it until libdispatch has let go of it.
        watched = nil
        readSource?.cancel()
        readSource = nil
        writeSource?.cancel()
        writeSource = nil
        timer?.cancel()
        timer = nil
    }
}

/// The bus's socket, duplicated for the dispatch sources and closed only once the last of them is gone. libdispatch
/// takes a cancelled source's descriptor out of its poll set later, on its own thread, by number: a descriptor
/// closed before that (sd-bus closes its own at once, and a closed connection at any moment) may by then number
/// another file, a signal pipe or the next connection, whose registration that late removal would take instead.
private final class WatchedDescriptor: Sendable {
    let fd: Int32

    init(duplicating original: Int32) throws(BusError) {
        fd = fcntl(original, F_DUPFD_CLOEXEC, 3)
        guard fd >= 0 else { throw BusError(errno: errno, function: "fcntl(F_DUPFD_CLOEXEC)") }
    }

    /// Called from a source's cancel handler, which holds the descriptor open until libdispatch releases it.
    func keep() {}

    deinit {
        close(fd)
    }
}

import Dispatch
import FoundationEssentials
import Glibc
import IntervalCore
import IntervalRuntime
import Logging
import Synchronization

/// What ``SoundOutput`` tells the duck about the schedule; ``MusicDucker``, or a test's recorder.
protocol MusicDucking: AnyObject, Sendable {
    /// A cue is due `delay` µs from now: lower the music just before it.
    func expect(after delay: Int64)
    /// The cues expected later will not come (the schedule changed); a duck under way goes on.
    func dropExpected()
    /// Nothing plays any more (a pause, a stop): the music comes back over the fade, as after a cue.
    func releaseAll()
    /// Brings every lowered stream back over the fade and waits (at most `timeout`) until it is back, then (at most a
    /// second each) until the server has done it and lists no stream this process plays: before the process exits.
    func restoreAndWait(timeout: DispatchTimeInterval)
    /// Waits (at most `timeout`) until the music is back by itself, then puts back whatever is still down.
    func finish(timeout: DispatchTimeInterval)
}

extension MusicDucking {
    func restoreAndWait() {
        restoreAndWait(timeout: .seconds(1))
    }
}

/// Lowers the other playback streams while a cue sounds or speaks (docs/reference.md §11), through libpulse, on a
/// queue of its own: never on the queue that times cues, which only hands it the schedule.
///
/// ``DuckTimeline`` decides when the music is down, ``DuckedStreams`` what each lowered stream goes back to; this
/// applies both to the server's streams as ``PulseStreams`` reports them. While streams are lowered, a record of them
/// is kept in `recordPath` (written on a queue of its own ahead of a foreseen cue, and always before they are lowered;
/// removed once they are back and no cue is near), so that a daemon that crashed mid-duck restores them at its next
/// start; a lost connection to the server is treated the same way at the next connection. No audio server: nothing
/// happens; while a workout runs, the connection is tried again after a cue (at most every 0.5 s, doubling up to
/// 30 s), never at its instant, and never while the daemon is idle.
public final class MusicDucker: MusicDucking, @unchecked Sendable {
    /// The least time between two connection attempts at first; doubled after each failed one up to
    /// ``reconnectionMaximum``.
    static let reconnectionMinimum: Int64 = 500_000
    static let reconnectionMaximum: Int64 = 30_000_000
    /// How long after the session's word a connection is tried: after the cue's instant, not at it.
    static let reconnectionDelay: DispatchTimeInterval = .milliseconds(100)
    /// The longest a sound waits for the music to go down.
    static let holdWait: DispatchTimeInterval = .milliseconds(50)

    private let queue = DispatchQueue(label: "intervald.duck", qos: .userInitiated)
    private let logger: Logger
    private let recordPath: String?
    private let ownProcess = getpid()
    private let tokens = Atomic(0)
    // Confined to `queue`.
    private var streams: PulseStreams?
    private var connected = false
    private var known: [UInt32: PlaybackStream] = [:]
    private var timeline = DuckTimeline()
    private var ducked: DuckedStreams
    private let loudnessPercent: Int
    private var level = DuckTimeline.Level.normal
    private var timer: DispatchSourceTimer?
    /// Streams lowered by an earlier process or connection, to restore once connected.
    private var toRestore: [DuckRecord.Stream] = []
    /// Volumes ``restoreRecorded()`` set that the server has not reported yet: if a cue lowers the stream meanwhile,
    /// the report is ours, not the user's.
    private var restoresInFlight: [UInt32: [UInt32]] = [:]
    private var connecting = false
    private var reconnectionScheduled = false
    /// When a connection was last tried, and how long to wait after it before the next.
    private var lastAttempt: Int64 = 0
    private var reconnectionInterval = MusicDucker.reconnectionMinimum
    private var failing = false
    /// Who waits for the music to be back (``finish(timeout:)``).
    private var whenBack: [DispatchSemaphore] = []
    /// Who waits for the server to list no stream of this process (``finish(timeout:)``).
    private var whenOwnStreamsGone: [DispatchSemaphore] = []
    /// Volume requests sent and not yet answered.
    private let pendingRequests = DispatchGroup()
    /// Writes the record, in order, off `queue`: a synced write took up to 130 ms on a busy machine, and the volume
    /// request it preceded on `queue` reached the server after the cue's sound.
    private let records = DispatchQueue(label: "intervald.duck.record", qos: .utility)
    /// Record writes handed to `records` and not yet done.
    private let recordWrites = DispatchGroup()
    /// What the record says once those writes are done (confined to `queue`).
    private var recorded: [DuckRecord.Stream] = []
    /// Levels set on the streams that the server has not answered yet: a fade's steps wait for it.
    private var unanswered = 0
    /// Counts connections, so that an answer from before a reconnection does not count.
    private var connection = 0

    /// - Parameters:
    ///   - loudnessPercent: how loud lowered streams are (`[sound] duck`); 100 only restores a crashed duck's streams.
    ///   - recordPath: where the lowered streams are recorded while down; nil: no record (`intervalctl run`).
    public init(loudnessPercent: Int, recordPath: String?, logger: Logger) {
        self.loudnessPercent = loudnessPercent
        self.recordPath = recordPath
        self.logger = logger
        ducked = DuckedStreams(loudnessPercent: loudnessPercent)
        queue.async { [self] in
            if let recordPath {
                toRestore = DuckRecord.load(recordPath, logger: logger)
                recorded = toRestore
            }
            connect()
        }
    }

    /// Whether a record of lowered streams is in `path`, left by a process that ended mid-duck.
    public static func recordExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// A sound or phrase is about to begin: the music goes down until ``release(_:)``. Returns the hold's token once
    /// the server has lowered the streams (at most ``holdWait``): at once when an expected cue put them down already;
    /// otherwise (a start, a skip) a round trip, so that the sound's first sample is not over full music.
    func hold() -> Int {
        let token = tokens.add(1, ordering: .relaxed).newValue
        queue.sync {
            timeline.hold(token, at: Self.now())
            update()
        }
        _ = pendingRequests.wait(timeout: .now() + Self.holdWait)
        return token
    }

    /// The sound or phrase of `token` has ended: the music comes back, unless another holds it or a cue is near.
    func release(_ token: Int) {
        queue.async { [self] in
            timeline.release(token)
            update()
        }
    }

    func expect(after delay: Int64) {
        let instant = Self.now() + delay
        queue.async { [self] in
            timeline.expect(cueAt: instant)
            update()
        }
    }

    func dropExpected() {
        queue.async { [self] in
            timeline.dropExpected(at: Self.now())
            update()
        }
    }

    func releaseAll() {
        queue.async { [self] in
            timeline.releaseAll(at: Self.now())
            update()
        }
    }

    /// Brings every lowered stream back over the fade, as after a cue, and waits (at most `timeout`) until it is back,
    /// then as ``finish(timeout:)`` does: before the process exits.
    public func restoreAndWait(timeout: DispatchTimeInterval) {
        releaseAll()
        finish(timeout: timeout)
    }

    /// Waits (at most `timeout`) until the music is back by itself (the last sound has ended and the fade is done),
    /// then puts back at once whatever is still down and waits (at most a second each) until the server has done it
    /// and lists no stream of this process: the end of `intervalctl run`, and of the daemon.
    public func finish(timeout: DispatchTimeInterval) {
        let back = DispatchSemaphore(value: 0)
        queue.async { [self] in
            if level == .normal { back.signal() } else { whenBack.append(back) }
        }
        _ = back.wait(timeout: .now() + timeout)
        queue.sync {
            timeline.reset()
            update()
        }
        let second = DispatchTimeInterval.seconds(1)
        _ = pendingRequests.wait(timeout: .now() + second)
        _ = recordWrites.wait(timeout: .now() + second)
        // A cue sound cut just before (Stop, Ctrl-C, SIGTERM) is torn down by the server after the request: PipeWire's
        // pulse server (0.3.65) crashes when its client leaves in the midst of that (docs/reliability.md). Whoever
        // leaves next waits until the server lists no stream of this process.
        let gone = DispatchSemaphore(value: 0)
        queue.async { [self] in
            if hasOwnStream { whenOwnStreamsGone.append(gone) } else { gone.signal() }
        }
        _ = gone.wait(timeout: .now() + second)
    }

    /// Whether the server lists a stream this process plays (a cue sound); false when not connected.
    private var hasOwnStream: Bool {
        connected && known.values.contains { $0.processID == ownProcess }
    }

    // MARK: On `queue`

    private static func now() -> Int64 {
        BootClock.microseconds()
    }

    /// Applies the timeline's level at this instant and wakes up at its next change.
    private func update() {
        let now = Self.now()
        connectSoonIfLost(now: now)
        let wanted = timeline.level(at: now, unanswered: unanswered)
        if wanted != level {
            apply(wanted, from: level)
            level = wanted
        }
        if level == .normal {
            for waiter in whenBack { waiter.signal() }
            whenBack = []
        }
        saveRecord()
        timer?.cancel()
        timer = nil
        guard let next = timeline.nextChange(after: now) else { return }
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        timer.schedule(deadline: .now() + .microseconds(Int(next - now)), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in self?.update() }
        timer.activate()
        self.timer = timer
    }

    private func apply(_ wanted: DuckTimeline.Level, from current: DuckTimeline.Level) {
        switch wanted {
        case .lowered:
            var changes: [(index: UInt32, volume: [UInt32])] = []
            if case .restoring = current { changes = ducked.volumes(restored: 0) }
            for stream in lowerableStreams {
                if let volume = ducked.lower(stream, inFlight: restoresInFlight[stream.index]) {
                    changes.append((stream.index, volume))
                }
            }
            recordBeforeLowering()
            set(changes)
        case .restoring(let progress):
            set(ducked.volumes(restored: progress))
        case .normal:
            set(ducked.restoreAll())
        }
    }

    /// The streams a duck lowers, in index order.
    private var lowerableStreams: [PlaybackStream] {
        known.values.sorted { $0.index < $1.index }.filter { $0.isLowered(byDucksOf: ownProcess) }
    }

    private func set(_ changes: [(index: UInt32, volume: [UInt32])]) {
        guard let streams, connected, !changes.isEmpty else { return }
        unanswered += 1
        let (connection, toQueue) = (connection, streams.toQueue)
        for (number, change) in changes.enumerated() {
            pendingRequests.enter()
            let last = number == changes.count - 1
            // The server answers a connection's requests in order: the last answer is the whole step's.
            streams.setVolume(change.index, to: change.volume) { [weak self, pendingRequests] in
                pendingRequests.leave()
                if last, let self { toQueue { self.answered(on: connection) } }
            }
        }
    }

    private func answered(on connection: Int) {
        guard connection == self.connection else { return }
        unanswered -= 1
        if case .restoring = level { update() }
    }

    /// With no connection, tries again ``reconnectionDelay`` from now, unless the last attempt was less than
    /// ``reconnectionInterval`` ago. Only the session's calls lead here: an idle daemon with no audio server never
    /// wakes up for it.
    private func connectSoonIfLost(now: Int64) {
        guard !connected, !connecting, !reconnectionScheduled, now - lastAttempt >= reconnectionInterval else { return }
        reconnectionScheduled = true
        queue.asyncAfter(deadline: .now() + Self.reconnectionDelay) { [weak self] in
            guard let self else { return }
            reconnectionScheduled = false
            if !connected, !connecting { connect() }
        }
    }

    private func connect() {
        connecting = true
        lastAttempt = Self.now()
        if streams == nil {
            streams = PulseStreams(queue: queue) { [weak self] event in self?.handle(event) }
        }
        streams?.connect()
    }

    private func handle(_ event: PulseStreams.Event) {
        switch event {
        case .connected(let playing):
            connected = true
            connecting = false
            reconnectionInterval = Self.reconnectionMinimum
            if failing { logger.notice("Connected to the audio server again: the music is lowered under cues.") }
            failing = false
            known = Dictionary(playing.map { ($0.index, $0) }, uniquingKeysWith: { $1 })
            restoreRecorded()
            if level == .lowered { apply(.lowered, from: .lowered) }
        case .changed(let stream):
            guard connected else { return }
            known[stream.index] = stream
            if let restore = restoresInFlight[stream.index], StreamVolume.matches(restore, stream.volume) {
                restoresInFlight[stream.index] = nil
            }
            if ducked.entries[stream.index] != nil {
                if ducked.observe(stream.index, volume: stream.volume) {
                    logger.debug(
                        "A lowered stream's volume was changed: keeping it.", metadata: ["stream": "\(stream.index)"])
                    saveRecord()
                }
            } else if level == .lowered, stream.isLowered(byDucksOf: ownProcess),
                let volume = ducked.lower(stream, inFlight: restoresInFlight[stream.index])
            {
                recordBeforeLowering()
                set([(stream.index, volume)])
            } else {
                // A stream an expected cue will lower, at a volume of its own now.
                saveRecord()
            }
        case .removed(let index):
            known[index] = nil
            restoresInFlight[index] = nil
            if ducked.entries[index] != nil {
                ducked.remove(index)
                saveRecord()
            }
            if !hasOwnStream {
                for waiter in whenOwnStreamsGone { waiter.signal() }
                whenOwnStreamsGone = []
            }
        case .disconnected(let reason):
            let wasConnected = connected
            connected = false
            connecting = false
            unanswered = 0
            connection += 1
            known = [:]
            restoresInFlight = [:]
            for waiter in whenOwnStreamsGone { waiter.signal() }
            whenOwnStreamsGone = []
            // What is still down is restored at the next connection, if the streams are still there and still ours.
            toRestore += DuckRecord.streams(of: ducked)
            ducked = DuckedStreams(loudnessPercent: loudnessPercent)
            if !failing {
                failing = true
                logger.info(
                    wasConnected
                        ? "Lost the audio server; connecting again after the next cue."
                        : "No audio server: the music is not lowered.",
                    metadata: ["error": "\(reason)"])
            }
            reconnectionInterval =
                wasConnected ? Self.reconnectionMinimum : min(reconnectionInterval * 2, Self.reconnectionMaximum)
        }
    }

    /// Puts back the streams an earlier process or connection lowered and left down: those that still exist, are
    /// played by the same process and still have a volume the duck could have left.
    private func restoreRecorded() {
        guard !toRestore.isEmpty else { return }
        var changes: [(index: UInt32, volume: [UInt32])] = []
        for recorded in toRestore {
            guard let stream = known[recorded.index], stream.processID == recorded.processID,
                DuckedStreams.isOurs(stream.volume, recorded: recorded.entry)
            else { continue }
            changes.append((recorded.index, recorded.original))
            known[recorded.index]?.volume = recorded.original
            restoresInFlight[recorded.index] = recorded.original
        }
        if !changes.isEmpty {
            logger.notice(
                "Restored the volume of streams lowered by a duck that did not end.",
                metadata: ["streams": "\(changes.map(\.index))"])
        }
        toRestore = []
        set(changes)
        saveRecord()
    }

    /// Hands `records` the record as it should be now, unless it says that already: the streams lowered, those an
    /// expected cue will lower within ``DuckTimeline/recordLead`` (so that the lowering finds them on disk), and
    /// those an earlier process left down; removed when there are none. Does not wait.
    private func saveRecord() {
        guard let recordPath else { return }
        var wanted = ducked
        if timeline.lowersSoon(at: Self.now()) {
            for stream in lowerableStreams { _ = wanted.lower(stream) }
        }
        let streams = DuckRecord.streams(of: wanted) + toRestore
        guard streams != recorded else { return }
        recorded = streams
        recordWrites.enter()
        records.async { [logger, recordWrites] in
            DuckRecord.save(streams, to: recordPath, logger: logger)
            recordWrites.leave()
        }
    }

    /// Waits until the record on disk lists every lowered stream as ``ducked`` has it, writing it unless it was
    /// written ahead: before the streams' volumes are set, so that a crash after that finds them in the record.
    private func recordBeforeLowering() {
        guard recordPath != nil else { return }
        if !DuckRecord.streams(of: ducked).allSatisfy(recorded.contains) { saveRecord() }
        recordWrites.wait()
    }
}

/// The record of lowered streams in the state directory (docs/reference.md §5): `ducked.json`.
enum DuckRecord {
    struct Stream: Codable, Equatable {
        var index: UInt32
        var processID: Int32?
        var original: [UInt32]
        var lowered: [UInt32]

        var entry: DuckedStreams.Entry {
            DuckedStreams.Entry(processID: processID, original: original, lowered: lowered)
        }
    }

    /// A record is a few numbers per stream.
    static let sizeLimit = 1 << 20

    static func streams(of ducked: DuckedStreams) -> [Stream] {
        ducked.entries.keys.sorted().compactMap { index in
            ducked.entries[index].map {
                Stream(index: index, processID: $0.processID, original: $0.original, lowered: $0.lowered)
            }
        }
    }

    static func save(_ streams: [Stream], to path: String, logger: Logger) {
        do throws(FileError) {
            if streams.isEmpty {
                try FileBytes.remove(path)
                return
            }
            guard let data = try? JSONEncoder().encode(streams) else { return }
            try FileBytes.makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            try FileBytes.replace(path, with: Array(data))
        } catch {
            if error.errno != ENOENT {
                logger.warning("Failed to record the lowered streams, ignoring.", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The streams recorded in `path`; none if there is no record. An unreadable record is logged and removed.
    static func load(_ path: String, logger: Logger) -> [Stream] {
        do throws(FileError) {
            let bytes = try FileBytes.read(path, limit: sizeLimit)
            guard let streams = try? JSONDecoder().decode([Stream].self, from: Data(bytes)) else {
                logger.warning("Ignoring an unreadable record of lowered streams.", metadata: ["path": "\(path)"])
                _ = try? FileBytes.remove(path)
                return []
            }
            return streams
        } catch {
            if error.errno != ENOENT {
                logger.warning("Failed to read the record of lowered streams.", metadata: ["error": "\(error)"])
            }
            return []
        }
    }
}

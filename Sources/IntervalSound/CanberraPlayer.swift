import CCanberra
import Dispatch
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// Plays cue sounds through libcanberra (docs/reference.md §4b) on a serial queue of its own, never on the queue that
/// times cues.
///
/// The sounds are loaded into the audio server ahead (`ca_context_cache`), so that a cue's onset costs one request.
/// Sounds may be timed ahead (countdown pips) with strict timers on the same queue; ``cut()`` cancels them and the
/// sound playing. No audio server, or one that goes away, is logged once, and the log says when sound is back. A
/// server that goes away is reconnected to at once, for a server that restarts between two cues. With no server, a
/// sound is dropped and the connection is tried again ``reconnectionDelay`` after it, at most every
/// ``reconnectionInterval``: never at a cue's instant, where a failing connection (canberra tries each of its audio
/// drivers, with threads of their own) took about as much CPU as the whole cue and shared the machine's cores with
/// the cue's `SegmentStarted` on its way through the bus (docs/reference.md §6).
public final class CanberraPlayer: @unchecked Sendable {
    /// Every cue sound plays under this id, so that one `ca_context_cancel` cuts it.
    private static let cueID: UInt32 = 1
    /// How long after a sound that found no audio server the connection is tried again: after the cue's instant.
    static let reconnectionDelay: DispatchTimeInterval = .milliseconds(100)
    /// The least time between two connection attempts, ns: the sound is back this long after the server at most.
    static let reconnectionInterval: UInt64 = 5_000_000_000

    private let work = TimedQueue(label: "intervald.sound", qos: .userInteractive, leeway: .nanoseconds(0))
    private var queue: DispatchQueue { work.queue }
    private let logger: Logger
    /// canberra's volume, in decibels as text.
    private let volume: String
    private let preload: [String]
    /// Lowers the music while each sound plays; nil: no ducking.
    private let ducker: MusicDucker?
    // Confined to `queue`.
    private var context: OpaquePointer?
    /// Sounds of intervald's theme replaced by the freedesktop theme's, when intervald's is not installed.
    private var replacements: [String: String] = [:]
    /// A failure has been logged and no sound has played since: stay quiet.
    private var failing = false
    /// Sounds that cannot be played (logged once each).
    private var unplayableSounds: Set<String> = []
    /// When a context was last opened or tried, on Dispatch's uptime clock (ns).
    private var lastConnectionAttempt: UInt64 = 0
    private var reconnectionScheduled = false

    /// - Parameters:
    ///   - volume: percent of the sounds' own loudness, 1–100.
    ///   - preload: sounds (theme event ids or files) to load into the server now.
    ///   - ducker: lowers the music from each sound's start to its end (docs/reference.md §11).
    public init(volume: Int, preload: [String], ducker: MusicDucker? = nil, logger: Logger) {
        self.logger = logger
        self.ducker = ducker
        let fraction = Double(min(max(volume, 1), 100)) / 100
        self.volume = "\(20 * log10(fraction))"
        self.preload = preload
        queue.async { [self] in _ = openContext() }
    }

    deinit {
        if let context { ca_context_destroy(context) }
    }

    /// Plays `sound` (a theme event id or a file) `delay` microseconds from now. Does not block.
    public func play(_ sound: String, after delay: Int64) {
        work.run(after: delay) { [weak self] in self?.playNow(sound) }
    }

    /// Cuts the sound playing and drops the ones timed ahead. Does not block.
    public func cut() {
        work.dropTimed { [self] in
            if let context { _ = ca_context_cancel(context, Self.cueID) }
        }
    }

    /// Waits until the work asked for before has been done.
    public func flush() {
        work.flush()
    }

    /// Plays `sound` and waits until it has finished (`intervalctl test-sound`, Preferences' play buttons): nil when
    /// it played, else why it could not: no audio server when no context could be opened (canberra then says only
    /// "Invalid state"), else the sound's fault in canberra's words ("Not found").
    public func playToEnd(_ sound: String) -> SoundFailure? {
        let finished = DispatchSemaphore(value: 0)
        let (result, connected) = queue.sync { (playNow(sound) { finished.signal() }, context != nil) }
        guard result == Int32(CA_SUCCESS) else { return connected ? .sound(Self.errorText(result)) : .noAudioServer }
        finished.wait()
        return nil
    }

    /// Whether an audio server can be reached now: a context opens. For a phrase speech-dispatcher never began, which
    /// it does not say why.
    public static func reachesAudioServer() -> Bool {
        guard case .success(let context) = openedContext() else { return false }
        ca_context_destroy(context)
        return true
    }

    // MARK: On `queue`

    /// Plays `sound`, holding the music down until it ends; `ended` runs (on canberra's thread) once it has ended or
    /// was cut. canberra's result: anything but `CA_SUCCESS`, and `ended` does not run.
    @discardableResult
    private func playNow(_ sound: String, ended: (@Sendable () -> Void)? = nil) -> Int32 {
        guard ducker != nil || ended != nil else {
            return play(sound) { context, properties in
                ca_context_play_full(context, Self.cueID, properties, nil, nil)
            }
        }
        let hold = ducker.map { ducker in (ducker, ducker.hold()) }
        let box = Unmanaged.passRetained(
            EndOfSound {
                if let (ducker, token) = hold { ducker.release(token) }
                ended?()
            }
        ).toOpaque()
        let result = play(sound) { context, properties in
            ca_context_play_full(
                context, Self.cueID, properties,
                { _, _, _, box in
                    guard let box else { return }
                    Unmanaged<EndOfSound>.fromOpaque(box).takeRetainedValue().body()
                }, box)
        }
        if result != Int32(CA_SUCCESS) {
            Unmanaged<EndOfSound>.fromOpaque(box).release()
            if let (ducker, token) = hold { ducker.release(token) }
        }
        return result
    }

    /// Plays or caches `sound` with `request`: through an open context (re-opened once if the server went away), with
    /// the freedesktop theme's sound when intervald's theme is not installed. Logs a failure once.
    private func play(_ sound: String, _ request: (OpaquePointer, OpaquePointer) -> Int32) -> Int32 {
        var result = perform(replacements[sound] ?? sound, request)
        if result == Int32(CA_ERROR_NOTFOUND), replacements[sound] == nil, let cue = SoundCue.ofDefaultSound(sound) {
            if replacements.isEmpty {
                logger.info(
                    "intervald's sound theme is not installed, playing the freedesktop theme's sounds instead.",
                    metadata: ["sound": "\(sound)", "instead": "\(cue.freedesktopFallback)"])
            }
            replacements[sound] = cue.freedesktopFallback
            result = perform(cue.freedesktopFallback, request)
        }
        if result == Int32(CA_SUCCESS) {
            if failing { logger.notice("Sound is back.") }
            failing = false
        } else if Self.unplayable(result) {
            // This sound's own fault (no such file or theme sound, a format canberra cannot read): the server is
            // fine, and the other sounds play; said once per sound.
            if unplayableSounds.insert(sound).inserted {
                logger.warning(
                    "Failed to load a sound, ignoring it.",
                    metadata: ["sound": "\(sound)", "error": "\(Self.errorText(result))"])
            }
        } else if !failing, result != Int32(CA_ERROR_CANCELED) {
            failing = true
            logger.warning(
                "Failed to play a sound, ignoring.",
                metadata: ["sound": "\(sound)", "error": "\(Self.errorText(result))"])
        }
        return result
    }

    private func perform(_ sound: String, _ request: (OpaquePointer, OpaquePointer) -> Int32) -> Int32 {
        guard let context else {
            reconnectLater()
            return Int32(CA_ERROR_STATE)
        }
        guard let properties = Self.properties(for: sound, volume: volume) else { return Int32(CA_ERROR_OOM) }
        defer { ca_proplist_destroy(properties) }
        let first = request(context, properties)
        guard Self.lostServer(first) else { return first }
        // The audio server went away: a new context connects to it if it is already back (a restart).
        guard let reopened = openContext() else { return first }
        return request(reopened, properties)
    }

    /// Tries to connect again ``reconnectionDelay`` from now, unless an attempt is due already or the last one was
    /// less than ``reconnectionInterval`` ago (the next sound after that asks again).
    private func reconnectLater() {
        let sinceLastAttempt = DispatchTime.now().uptimeNanoseconds - lastConnectionAttempt
        guard !reconnectionScheduled, sinceLastAttempt >= Self.reconnectionInterval else { return }
        reconnectionScheduled = true
        queue.asyncAfter(deadline: .now() + Self.reconnectionDelay) { [weak self] in
            guard let self else { return }
            reconnectionScheduled = false
            if context == nil { _ = openContext() }
        }
    }

    /// Creates and opens a new context and loads the cue sounds into the server; nil when there is no audio server.
    private func openContext() -> OpaquePointer? {
        if let old = context {
            ca_context_destroy(old)
            context = nil
        }
        lastConnectionAttempt = DispatchTime.now().uptimeNanoseconds
        logger.debug("Connecting to the audio server.")
        let created: OpaquePointer
        switch Self.openedContext() {
        case .success(let opened): created = opened
        case .failure(let error):
            if !failing, let code = error.code {
                failing = true
                // One calm line: a session without an audio server (a headless one, a server still starting) is
                // common, and the workout goes on without sound.
                logger.notice(
                    "No audio server answers: cues are silent until one does.",
                    metadata: ["reason": "\(Self.errorText(code))"])
            }
            return nil
        }
        context = created
        for sound in preload {
            _ = play(sound) { context, properties in ca_context_cache_full(context, properties) }
        }
        return created
    }

    /// canberra's error code (nil: no context could be made).
    private struct ContextError: Error {
        let code: Int32?
    }

    /// A new context with intervald's names, connected to the audio server.
    private static func openedContext() -> Result<OpaquePointer, ContextError> {
        var created: OpaquePointer?
        guard ca_context_create(&created) == Int32(CA_SUCCESS), let created else {
            return .failure(ContextError(code: nil))
        }
        if let properties = proplist([
            (CA_PROP_APPLICATION_NAME, "intervald"), (CA_PROP_APPLICATION_ID, BusNames.service),
            (CA_PROP_CANBERRA_XDG_THEME_NAME, "intervald"),
        ]) {
            _ = ca_context_change_props_full(created, properties)
            ca_proplist_destroy(properties)
        }
        let opened = ca_context_open(created)
        guard opened == Int32(CA_SUCCESS) else {
            ca_context_destroy(created)
            return .failure(ContextError(code: opened))
        }
        return .success(created)
    }

    /// Errors after which a new context may succeed: the server is gone, restarting, or was never reached.
    private static func lostServer(_ result: Int32) -> Bool {
        let codes = [
            CA_ERROR_STATE, CA_ERROR_DISCONNECTED, CA_ERROR_IO, CA_ERROR_NODRIVER, CA_ERROR_SYSTEM, CA_ERROR_DESTROYED,
            CA_ERROR_NOTAVAILABLE, CA_ERROR_INTERNAL, CA_ERROR_FORKED,
        ]
        return codes.contains { Int32($0) == result }
    }

    /// Errors that are the sound's own, not the server's.
    private static func unplayable(_ result: Int32) -> Bool {
        let codes = [CA_ERROR_NOTFOUND, CA_ERROR_CORRUPT, CA_ERROR_NOTSUPPORTED, CA_ERROR_ACCESS, CA_ERROR_TOOBIG]
        return codes.contains { Int32($0) == result }
    }

    /// The properties that name `sound`: its event id, and its file when it is one. Cached permanently, so that the
    /// second play of a sound the server lost is fast again.
    private static func properties(for sound: String, volume: String) -> OpaquePointer? {
        let isFile = sound.contains("/")
        var entries = [
            (CA_PROP_EVENT_ID, isFile ? fileEventID(sound) : sound), (CA_PROP_CANBERRA_CACHE_CONTROL, "permanent"),
            (CA_PROP_CANBERRA_VOLUME, volume), (CA_PROP_MEDIA_ROLE, "event"),
        ]
        if isFile { entries.append((CA_PROP_MEDIA_FILENAME, sound)) }
        return proplist(entries)
    }

    /// The name a file's sound is cached under in the server: canberra refuses an event id with `/` or `:`, so the
    /// path is hashed (64-bit FNV-1a).
    static func fileEventID(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "intervald-file-" + String(hash, radix: 16)
    }

    /// The corresponding C functions are `ca_proplist_create` and `ca_proplist_sets`.
    private static func proplist(_ entries: [(String, String)]) -> OpaquePointer? {
        var list: OpaquePointer?
        guard ca_proplist_create(&list) == Int32(CA_SUCCESS), let list else { return nil }
        for (key, value) in entries { _ = ca_proplist_sets(list, key, value) }
        return list
    }

    /// The corresponding C function is `ca_strerror`.
    static func errorText(_ code: Int32) -> String {
        ca_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}

/// What runs when a sound has ended, as canberra's callback data.
private final class EndOfSound {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

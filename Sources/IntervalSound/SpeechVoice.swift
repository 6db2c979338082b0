import CSpeechd
import Dispatch
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// Speaks cues through speech-dispatcher (libspeechd, docs/reference.md §4b) on a serial queue of its own.
///
/// Speech is slow to start: the first utterance starts the speech service and its synthesizer (seconds), later ones
/// take a few hundred milliseconds before the first word is heard. So the connection is made once, at start-up, and
/// each phrase is started early by the latency measured on the phrases before it (speech-dispatcher's "begin"
/// events), so that its first word lands on the change. No speech service is logged once; the next phrase tries again.
public final class SpeechVoice: @unchecked Sendable {
    private let work = TimedQueue(label: "intervald.voice", qos: .userInitiated, leeway: .milliseconds(1))
    private var queue: DispatchQueue { work.queue }
    private let logger: Logger
    private let language: String
    private let rate: Int
    /// Lowers the music from each phrase's start to its end (docs/reference.md §11); nil: no ducking.
    private let ducker: MusicDucker?
    // Confined to `queue`.
    private var connection: SpeechConnection?
    private var failing = false
    /// Whether a voice of `language` is installed: assumed until the voices are looked up (once per process, after
    /// the first connection), which takes speech-dispatcher seconds.
    private var speaksLanguage = true
    private var voicesLookedUp = false

    /// - Parameter language: the voice's language; by default the language the phrases are translated into
    ///   (``Localization/language``, docs/reference.md §9).
    public init(language: String?, rate: Int, ducker: MusicDucker? = nil, logger: Logger) {
        self.language = language ?? Localization.language
        self.rate = rate
        self.ducker = ducker
        self.logger = logger
        // libspeechd writes to its socket with plain write(2): a speech service that died mid-workout would raise
        // SIGPIPE and end the process. The write's error is handled (a new connection), so the signal is not wanted.
        signal(SIGPIPE, SIG_IGN)
        queue.async { [self] in connect() }
    }

    deinit {
        connection?.close()
    }

    /// Makes the speech service this process starts (libspeechd starts it with this process's environment when none
    /// runs) play with the media role `event`, as cue sounds do, so that ducks never lower it. A `PULSE_PROP` of the
    /// user's is left alone. Call it before any thread starts: it sets the environment.
    public static func tagSpeechServiceStreams() {
        setenv("PULSE_PROP", "media.role=event", 0)
    }

    /// Says `text` so that it is heard `delay` microseconds from now (at once if that is sooner than speech can
    /// start), or `english` if no voice of the language is installed (docs/reference.md §9). Does not block.
    public func say(_ text: String, orInEnglish english: String, after delay: Int64) {
        work.run(after: delay - SpeechLatency.shared.lead) { [weak self] in
            _ = self?.speak(text, orInEnglish: english)
        }
    }

    /// Silences what is being said and drops what was timed ahead. Does not block.
    public func cut() {
        work.dropTimed { [self] in
            connection?.cancel()
        }
    }

    /// Waits until the work asked for before has been done.
    public func flush() {
        work.flush()
    }

    /// Says `text` now and waits until it has been said (`intervalctl test-sound`, Preferences' Speak), at most
    /// `timeout` seconds: nil when it was, else why not.
    public func sayToEnd(_ text: String, orInEnglish english: String, timeout: Int = 15) -> SoundFailure? {
        let ended = DispatchSemaphore(value: 0)
        let id: Int
        switch queue.sync(execute: { speak(text, orInEnglish: english) }) {
        case .success(let said): id = said
        case .failure(let failure): return failure
        }
        SpeechLatency.shared.whenEnded(id: id) { ended.signal() }
        guard ended.wait(timeout: .now() + .seconds(timeout)) == .timedOut else { return nil }
        // speech-dispatcher takes a phrase it cannot play (its audio output failed) and never says so: the phrase
        // just does not begin. No audio server is the usual reason.
        return CanberraPlayer.reachesAudioServer() ? .notSpoken : .noAudioServer
    }

    // MARK: On `queue`

    /// The phrase's id, or why it could not be handed to speech-dispatcher.
    private func speak(_ text: String, orInEnglish english: String) -> Result<Int, SoundFailure> {
        let connection: SpeechConnection
        switch self.connection.map(Result.success) ?? connect() {
        case .success(let connected): connection = connected
        case .failure(let failure): return .failure(failure)
        }
        var id = connection.say(speaksLanguage ? text : english)
        if id < 0 {
            // The service went away (it exits when idle, or was restarted): connect to a new one, once.
            connection.close()
            self.connection = nil
            switch connect() {
            case .success(let reconnected): id = reconnected.say(speaksLanguage ? text : english)
            case .failure(let failure): return .failure(failure)
            }
        }
        if id < 0 {
            report("Failed to speak, ignoring.", error: "speech-dispatcher refused the message")
            return .failure(.notSpoken)
        }
        SpeechLatency.shared.said(id: Int(id), at: BootClock.microseconds())
        if let ducker {
            let token = ducker.hold()
            SpeechLatency.shared.whenEnded(id: Int(id)) { ducker.release(token) }
        }
        if failing { logger.notice("Speech is back.") }
        failing = false
        return .success(Int(id))
    }

    /// Loads libspeechd the first time, then connects with `spd_open2`, which starts the user's speech-dispatcher if
    /// none runs.
    @discardableResult
    private func connect() -> Result<SpeechConnection, SoundFailure> {
        let library: SpeechLibrary
        switch SpeechLibrary.loaded {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            report("Failed to load libspeechd, ignoring.", error: "\(failure)")
            return .failure(failure)
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let opened = library.open2("intervald", "cues", nil, SPD_MODE_THREADED, nil, 1, &error) else {
            let reason = error.map { String(cString: $0) } ?? ""
            report("Failed to connect to speech-dispatcher, ignoring.", error: reason)
            free(error)
            return .failure(.speechUnreachable(reason))
        }
        opened.pointee.callback_begin = { id, _, _ in
            SpeechLatency.shared.begun(id: Int(id), at: BootClock.microseconds())
        }
        opened.pointee.callback_end = { id, _, _ in SpeechLatency.shared.ended(id: Int(id)) }
        opened.pointee.callback_cancel = { id, _, _ in SpeechLatency.shared.ended(id: Int(id)) }
        for event in [SPD_BEGIN, SPD_END, SPD_CANCEL] { _ = library.setNotificationOn(opened, event) }
        SpeechLatency.shared.connected()
        let connection = SpeechConnection(library: library, handle: opened)
        self.connection = connection
        if !connection.setLanguage(speaksLanguage ? language : "en") { useEnglish() }
        if rate != 0 { _ = library.setVoiceRate(opened, Int32(min(max(rate, -100), 100))) }
        if !voicesLookedUp {
            voicesLookedUp = true
            lookUpVoices()
        }
        return .success(connection)
    }

    /// Looks up whether a voice of `language` is installed, on a connection and a thread of its own: speech-dispatcher
    /// lists every voice of its synthesizer (espeak-ng: over 13,000, in about 2 s), which must not hold up a phrase.
    /// English needs no look-up: it is what a missing voice falls back to.
    private func lookUpVoices() {
        guard SpokenCues.primarySubtag(language) != "en" else { return }
        let language = language
        DispatchQueue.global(qos: .utility).async { [weak self] in
            let found = SpokenCues.hasVoice(for: language, among: Self.voiceLanguages())
            guard let voice = self else { return }
            voice.queue.async { voice.lookedUpVoices(found: found) }
        }
    }

    private func lookedUpVoices(found: Bool) {
        if found {
            logger.debug("The voice speaks the language.", metadata: ["language": "\(language)"])
        } else {
            useEnglish()
        }
    }

    /// From now on, speaks each phrase's English with an English voice; says so once in the log (docs/reference.md §9).
    private func useEnglish() {
        guard speaksLanguage else { return }
        speaksLanguage = false
        _ = connection?.setLanguage("en")
        logger.warning("No voice for the language, speaking English.", metadata: ["language": "\(language)"])
    }

    /// The languages of the synthesizer's voices, as speech-dispatcher lists them ("de", "fr-FR"); empty if it lists
    /// none or cannot be reached.
    private static func voiceLanguages() -> [String] {
        guard case .success(let library) = SpeechLibrary.loaded,
            let connection = library.open2("intervald", "voices", nil, SPD_MODE_SINGLE, nil, 0, nil)
        else { return [] }
        defer { library.close(connection) }
        guard let voices = library.listSynthesisVoices(connection) else { return [] }
        defer { library.freeVoices(voices) }
        var languages: [String] = []
        var index = 0
        while let voice = voices[index] {
            if let language = voice.pointee.language { languages.append(String(cString: language)) }
            index += 1
        }
        return languages
    }

    private func report(_ message: Logger.Message, error: String) {
        guard !failing else { return }
        failing = true
        logger.warning(message, metadata: ["error": "\(error)"])
    }
}

/// How long speech takes from `spd_say` to its first sound, learned from speech-dispatcher's "begin" events, and who
/// waits for a phrase's end. They arrive on libspeechd's own thread through C callbacks without a context pointer,
/// hence one shared instance.
final class SpeechLatency: Sendable {
    static let shared = SpeechLatency()

    private struct State {
        var said: [Int: Int64] = [:]
        var begun: [Int: Int64] = [:]
        var endWaiters: [Int: [@Sendable () -> Void]] = [:]
        var ended: Set<Int> = []
        /// A guess until the first phrase is measured: espeak-ng through speech-dispatcher, warm.
        var lead: Int64 = 100_000
        /// The first phrase after connecting may start the service and its synthesizer (seconds): not a measure.
        var startingUp = true
    }

    private let state = Locked(State())

    /// Microseconds to start a phrase ahead of when it should be heard.
    var lead: Int64 { state.withLock { $0.lead } }

    /// A new connection: its first phrase's latency is the service's start-up, not speech's.
    func connected() {
        state.withLock { $0.startingUp = true }
    }

    func said(id: Int, at instant: Int64) {
        state.withLock { state in
            if let begin = state.begun.removeValue(forKey: id) {
                Self.learn(begin - instant, into: &state)
            } else {
                state.said[id] = instant
            }
        }
    }

    func begun(id: Int, at instant: Int64) {
        state.withLock { state in
            if let said = state.said.removeValue(forKey: id) {
                Self.learn(instant - said, into: &state)
            } else if state.begun.count < 64 {
                state.begun[id] = instant
            }
        }
    }

    func ended(id: Int) {
        let waiters = state.withLock { state in
            state.said[id] = nil
            guard let waiters = state.endWaiters.removeValue(forKey: id) else {
                if state.ended.count < 64 { state.ended.insert(id) }
                return [] as [@Sendable () -> Void]
            }
            return waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Runs `body` once phrase `id` has ended or was cancelled (at once if it already has).
    func whenEnded(id: Int, _ body: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            guard state.ended.remove(id) == nil else { return true }
            state.endWaiters[id, default: []].append(body)
            return false
        }
        if already { body() }
    }

    /// A moving average, bounded so that one phrase that waited behind another cannot push the next ones far ahead.
    private static func learn(_ latency: Int64, into state: inout State) {
        guard !state.startingUp else {
            state.startingUp = false
            return
        }
        let bounded = min(max(latency, 20_000), 1_500_000)
        state.lead = (state.lead * 3 + bounded) / 4
    }
}

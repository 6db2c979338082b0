import IntervalCore
import Logging

/// What ``SoundOutput`` plays and speaks through: libcanberra's sounds (``CanberraPlayer``), the voice
/// (``SpeechVoice``), or a test's recorder. Each works on a queue of its own and never blocks the caller.
protocol CueChannel: AnyObject {
    /// Cuts what plays and what is waiting to.
    func cut()
    /// Waits until what was asked for has started.
    func flush()
}

protocol CuePlaying: CueChannel {
    /// Plays a sound (a theme event id or a file) `delay` µs from now.
    func play(_ text: String, after delay: Int64)
}

protocol CueSpeaking: CueChannel {
    /// Says `text`, or `english` where no voice of the language is installed, `delay` µs from now.
    func say(_ text: String, orInEnglish english: String, after delay: Int64)
}

extension CanberraPlayer: CuePlaying {}

extension SpeechVoice: CueSpeaking {}

/// The workout's sounds (docs/reference.md §4b) as an output of a ``WorkoutSession``: the segment's sound at each
/// change, countdown pips, the finish sound, and, when asked, the voice. `handle` only hands the work over: playing and
/// speaking happen on threads of their own.
public final class SoundOutput: WorkoutOutput {
    private let settings: SoundSettings
    private let player: (any CuePlaying)?
    private let voice: (any CueSpeaking)?
    /// Confined to the session's queue, like every output.
    private var spoken: SpokenCues

    public convenience init(settings: SoundSettings, logger: Logger) {
        self.init(
            settings: settings,
            player: settings.enabled
                ? CanberraPlayer(volume: settings.volume, preload: settings.allSounds, logger: logger) : nil,
            voice: settings.voice
                ? SpeechVoice(language: settings.voiceLanguage, rate: settings.voiceRate, logger: logger) : nil)
    }

    /// With `player` and `voice` in place of libcanberra and speech-dispatcher (nil: off).
    init(settings: SoundSettings, player: (any CuePlaying)?, voice: (any CueSpeaking)?) {
        self.settings = settings
        spoken = SpokenCues(halfway: settings.voiceHalfway)
        self.player = player
        self.voice = voice
    }

    /// Waits until every sound and phrase asked for so far has been handed to the audio server and the speech
    /// service, which play them on after this process exits; for `intervalctl run`, before it exits. Sounds and
    /// phrases timed for later are not waited for.
    public func flush() {
        player?.flush()
        voice?.flush()
    }

    public func handle(_ moment: WorkoutMoment) {
        if let player {
            let sounds = CueSounds.actions(for: moment, settings: settings)
            if sounds.cut { player.cut() }
            for cue in sounds.cues { player.play(cue.text, after: cue.delay) }
        }
        if let voice {
            let phrases = spoken.actionsWithEnglish(for: moment)
            if phrases.actions.cut { voice.cut() }
            for (phrase, english) in zip(phrases.actions.cues, phrases.english) {
                voice.say(phrase.text, orInEnglish: english, after: phrase.delay)
            }
        }
    }
}

import IntervalCore
import Logging

/// The workout's sounds (spec §4b) as an output of a ``WorkoutSession``: the segment's sound at each change,
/// countdown pips, the finish sound, and, when asked, the voice. `handle` only hands the work over: playing and
/// speaking happen on threads of their own.
public final class SoundOutput: WorkoutOutput {
    private let settings: SoundSettings
    private let player: CanberraPlayer?
    private let voice: SpeechVoice?
    /// Confined to the session's queue, like every output.
    private var spoken: SpokenCues

    public init(settings: SoundSettings, logger: Logger) {
        self.settings = settings
        spoken = SpokenCues(halfway: settings.voiceHalfway)
        player =
            settings.enabled
            ? CanberraPlayer(volume: settings.volume, preload: settings.allSounds, logger: logger) : nil
        voice =
            settings.voice
            ? SpeechVoice(language: settings.voiceLanguage, rate: settings.voiceRate, logger: logger) : nil
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
            let phrases = spoken.actions(for: moment)
            if phrases.cut { voice.cut() }
            for phrase in phrases.cues { voice.say(phrase.text, at: phrase.delay) }
        }
    }
}

import Dispatch
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
    /// Lowers the music under the cues (docs/reference.md §11), or only puts back what a crashed daemon left down.
    private let ducking: (any MusicDucking)?
    /// Confined to the session's queue, like every output.
    private var spoken: SpokenCues

    /// - Parameter duckRecord: where the streams lowered under a cue are recorded while down (the daemon's state
    ///   directory), so that a daemon that crashed mid-duck puts them back at its next start; nil: no record.
    public convenience init(settings: SoundSettings, duckRecord: String? = nil, logger: Logger) {
        let ducks = settings.soundsDuck || settings.voiceDucks
        let ducker =
            ducks || duckRecord.map(MusicDucker.recordExists) == true
            ? MusicDucker(loudnessPercent: settings.duck, recordPath: duckRecord, logger: logger) : nil
        self.init(
            settings: settings,
            player: settings.enabled
                ? CanberraPlayer(
                    volume: settings.volume, preload: settings.allSounds,
                    ducker: settings.soundsDuck ? ducker : nil, logger: logger) : nil,
            voice: settings.voice
                ? SpeechVoice(
                    language: settings.voiceLanguage, rate: settings.voiceRate,
                    ducker: settings.voiceDucks ? ducker : nil, logger: logger) : nil,
            ducking: ducker)
    }

    /// With `player`, `voice` and `ducking` in place of libcanberra, speech-dispatcher and libpulse (nil: off).
    init(
        settings: SoundSettings, player: (any CuePlaying)?, voice: (any CueSpeaking)?,
        ducking: (any MusicDucking)? = nil
    ) {
        self.settings = settings
        spoken = SpokenCues(halfway: settings.voiceHalfway)
        self.player = player
        self.voice = voice
        self.ducking = ducking
    }

    /// Brings the music back over the fade, as after a cue, and waits until the audio server has done it (at most a
    /// second, then the rest at once): before the process exits.
    public func restoreMusic() {
        ducking?.restoreAndWait()
    }

    /// Waits until the last sound or phrase has ended and the music is back (at most `timeout`), then puts back
    /// whatever is still down: the end of `intervalctl run`.
    public func finishDucking(timeout: DispatchTimeInterval) {
        ducking?.finish(timeout: timeout)
    }

    /// Waits until every sound and phrase asked for so far has been handed to the audio server and the speech
    /// service, which play them on after this process exits; for `intervalctl run`, before it exits. Sounds and
    /// phrases timed for later are not waited for.
    public func flush() {
        player?.flush()
        voice?.flush()
    }

    public func handle(_ moment: WorkoutMoment) {
        let sounds = CueSounds.actions(for: moment, settings: settings)
        if let ducking, settings.soundsDuck || settings.voiceDucks { prepareDuck(ducking, for: moment, sounds: sounds) }
        if let player {
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

    /// Says `text` now (`english` where no voice of the language is installed) when the voice is on: a cue that is no
    /// change of segment (the heart out of its range).
    public func say(_ text: String, orInEnglish english: String) {
        voice?.say(text, orInEnglish: english, after: 0)
    }

    /// Tells the duck what the schedule is now: the next change, and the sounds timed ahead of it; a pause or a stop
    /// brings the music back (over the fade, as after a cue). The voice's phrases need no warning: they are started
    /// ahead of the change by speech's latency, and lower the music from then.
    private func prepareDuck(_ ducking: any MusicDucking, for moment: WorkoutMoment, sounds: AudibleActions) {
        switch moment.event {
        case .paused, .stopped:
            ducking.releaseAll()
            return
        case .segmentStarted, .finished, .resumed:
            ducking.dropExpected()
        case .countdown:
            break
        }
        guard settings.soundsDuck else { return }
        if let next = moment.nextChange { ducking.expect(after: next - moment.now) }
        for cue in sounds.cues where cue.delay > 0 {
            ducking.expect(after: cue.delay)
        }
    }
}

import ArgumentParser
import IntervalCore
import IntervalSound
import Logging

struct TestSoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-sound",
        abstract: "Play each cue sound once, so that you hear them before a workout.",
        discussion: """
            Plays the sounds of a change to work and to rest, the countdown pips and the finish, through the desktop's \
            sound server (libcanberra), with the defaults of intervald.toml's [sound]. Exits 1 if a sound could not \
            be played (no audio server, say), saying which and why.
            """
    )

    @Flag(help: "Also say a phrase through speech-dispatcher, as `voice = true` does.")
    var voice = false

    func run() throws {
        let settings = SoundSettings.defaults
        let player = CanberraPlayer(
            volume: settings.volume, preload: settings.allSounds, logger: Logger(label: "intervalctl"))
        var failed = false
        for (cue, times) in [(SoundCue.work, 1), (.rest, 1), (.countdown, 3), (.finish, 1)] {
            let sound = settings.sound(for: cue)
            Console.print("\(cue.rawValue): \(sound)")
            for _ in 0..<times {
                guard let failure = player.playToEnd(sound) else { continue }
                Console.error("\(cue.rawValue): \(sound) could not be played: \(failure)\n")
                failed = true
                break
            }
        }
        if voice {
            let speech = SpeechVoice(
                language: settings.voiceLanguage, rate: settings.voiceRate, logger: Logger(label: "intervalctl"))
            let run = { SpokenCues.phrase(label: "Run", microseconds: 30_000_000) }
            Console.print("voice: \(run())")
            if let failure = speech.sayToEnd(run(), orInEnglish: Localization.inEnglish(run)) {
                Console.error("voice: could not be spoken: \(failure)\n")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }
}

import ArgumentParser
import IntervalCore
import IntervalCtlCommon
import IntervalSound
import Logging

extension InProcess {
    static func testSound(_ command: TestSoundCommand<Self>) throws {
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
        if command.voice {
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

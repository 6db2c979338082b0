import Dispatch
import IntervalCore
import IntervalTestSupport
import Testing

@testable import IntervalSound

/// SoundOutput's rules on the virtual clock, with recorders in place of libcanberra and speech-dispatcher: which
/// sound each event plays and when, what cuts, and what the voice says ahead of the change.
@Suite struct SoundOutputTests {
    static let withVoice = {
        var settings = SoundSettings()
        settings.voice = true
        return settings
    }()

    final class Recorder: CuePlaying, CueSpeaking {
        var log: [String] = []

        func play(_ text: String, after delay: Int64) { log.append("\(text) +\(delay / 1000) ms") }
        func say(_ text: String, orInEnglish english: String, after delay: Int64) {
            log.append("\(text) (\(english)) +\(delay / 1000) ms")
        }
        func cut() { log.append("cut") }
        func flush() {}
    }

    @Test func eachChangePlaysItsKindsSoundWithPipsBeforeIt() throws {
        let player = Recorder()
        let voice = Recorder()
        let output = SoundOutput(settings: Self.withVoice, player: player, voice: voice)
        let (session, clock) = ManualTimerSource.session(outputs: [output])
        try session.start("countdown 2s\n10s run\n10s walk", origin: "", replace: false)
        clock.advance(by: 8_000_000)  // the pre-cue before the walk: pips at once and a second later
        clock.advance(by: 2_000_000)  // the walk
        try session.pause()
        session.stop(.user)
        #expect(
            player.log == [
                "cut", "intervald-work +0 ms", "intervald-countdown +0 ms", "intervald-countdown +1000 ms",
                "cut", "intervald-rest +0 ms", "cut", "cut",
            ])
        #expect(voice.log.contains { $0.hasPrefix("Walk") }, "the voice names the next segment: \(voice.log)")
        #expect(voice.log.last == "cut", "a stop silences the voice")
    }

    /// The voice switched on in the middle of a segment (a reload, docs/reference.md §4c): the output made for the
    /// new settings, caught up with the workout, times the next change's phrase for its instant, as if it had been
    /// there all along.
    @Test func anOutputCaughtUpMidSegmentSpeaksTheNextChangeOnTime() throws {
        let (session, clock) = ManualTimerSource.session(outputs: [])
        try session.start("10s run\n10s walk", origin: "", replace: false)
        clock.advance(by: 4_000_000)
        let voice = Recorder()
        let output = SoundOutput(settings: Self.withVoice, player: Recorder(), voice: voice)
        session.outputs = [output]
        session.catchUp(output)
        #expect(voice.log == ["Walk, 10 seconds (Walk, 10 seconds) +6000 ms"])
        // At the change the phrase timed ahead is not said again.
        clock.advance(by: 6_000_000)
        #expect(voice.log.count == 2 && voice.log[1].hasPrefix("Workout done"), "\(voice.log)")
    }

    final class DuckRecorder: MusicDucking {
        nonisolated(unsafe) var log: [String] = []

        func expect(after delay: Int64) { log.append("expect +\(delay / 1000) ms") }
        func dropExpected() { log.append("drop") }
        func releaseAll() { log.append("release all") }
        func restoreAndWait(timeout: DispatchTimeInterval) { log.append("restore") }
        func finish(timeout: DispatchTimeInterval) { log.append("finish") }
    }

    @Test func theDuckIsToldEachChangeAndPipAheadAndAPauseOrStopPutsTheMusicBack() throws {
        let duck = DuckRecorder()
        let output = SoundOutput(settings: SoundSettings(), player: Recorder(), voice: nil, ducking: duck)
        let (session, clock) = ManualTimerSource.session(outputs: [output])
        try session.start("countdown 2s\n10s run\n10s walk", origin: "", replace: false)
        clock.advance(by: 8_000_000)  // the pre-cue: pips now and a second later, the change 2 s ahead
        clock.advance(by: 2_000_000)  // the walk
        try session.pause()
        try session.resume()
        session.stop(.user)
        #expect(
            duck.log == [
                "drop", "expect +10000 ms", "expect +2000 ms", "expect +1000 ms", "drop", "expect +10000 ms",
                "release all", "drop", "expect +10000 ms", "release all",
            ])
    }

    @Test func withDuckVoiceOnlyOrDuck100TheSoundsTellTheDuckNothing() throws {
        for settings in [SoundSettings.with(\.duckVoiceOnly, true), SoundSettings.with(\.duck, 100)] {
            let duck = DuckRecorder()
            let output = SoundOutput(settings: settings, player: Recorder(), voice: nil, ducking: duck)
            let (session, clock) = ManualTimerSource.session(outputs: [output])
            try session.start("10s run\n10s walk", origin: "", replace: false)
            clock.advance(by: 10_000_000)
            session.stop(.user)
            #expect(duck.log.allSatisfy { !$0.hasPrefix("expect") }, "\(duck.log)")
        }
    }
}

extension SoundSettings {
    fileprivate static func with<Value>(_ field: WritableKeyPath<SoundSettings, Value>, _ value: Value) -> SoundSettings
    {
        var settings = SoundSettings()
        settings[keyPath: field] = value
        return settings
    }
}

import IntervalTestSupport
import Testing

@testable import IntervalCore

/// What the sound and voice outputs are told to do, driven through a real session on a virtual clock.
@Suite struct CueSoundsTests {
    final class Recorder: WorkoutOutput {
        var sounds: [AudibleActions] = []
        var speech: [AudibleActions] = []
        var spoken = SpokenCues()
        let settings: SoundSettings

        init(settings: SoundSettings = .defaults) {
            self.settings = settings
        }

        func handle(_ moment: WorkoutMoment) {
            sounds.append(CueSounds.actions(for: moment, settings: settings))
            speech.append(spoken.actions(for: moment))
        }
    }

    func run(_ text: String, settings: SoundSettings = .defaults) throws -> (
        WorkoutSession, ManualTimerSource, Recorder
    ) {
        let recorder = Recorder(settings: settings)
        let (session, clock) = ManualTimerSource.session(outputs: [recorder])
        try session.start(text, origin: "", replace: false)
        return (session, clock, recorder)
    }

    @Test func countdownPipsComeAtTheCueAndEachWholeSecondBeforeTheChange() {
        #expect(CountdownMarks.before(change: 3 * second) == [3 * second, 2 * second, second])
        #expect(CountdownMarks.before(change: 2_500_000) == [2_500_000, 2 * second, second])
        #expect(CountdownMarks.before(change: 300_000) == [300_000])
        #expect(CountdownMarks.before(change: 0) == [])
        #expect(CountdownMarks.before(change: 3600 * second).count == 11, "at most the last ten seconds are counted")
    }

    @Test func workAndRestKindsHaveTheirSoundsAndPipsAreTimedToTheChange() throws {
        var settings = SoundSettings.defaults
        settings.kindSounds["sprint"] = "/sounds/horn.oga"
        let (session, clock, recorder) = try run("countdown 3s; 10s run, 10s walk, 10s sprint", settings: settings)
        withExtendedLifetime(session) { clock.advance(by: 31 * second) }
        let played = recorder.sounds.map { $0.cues.map(\.text) }
        #expect(
            played == [
                ["intervald-work"], Array(repeating: "intervald-countdown", count: 3), ["intervald-rest"],
                Array(repeating: "intervald-countdown", count: 3), ["/sounds/horn.oga"],
                Array(repeating: "intervald-countdown", count: 3), ["intervald-finish"],
            ])
        #expect(recorder.sounds[1].cues.map(\.delay) == [0, second, 2 * second])
        #expect(recorder.sounds[1].cut == false, "pips do not cut the change's sound")
        #expect(recorder.sounds[2].cut, "a change cuts what still plays")
    }

    @Test func pauseStopAndSkipCutTheSound() throws {
        let (session, clock, recorder) = try run("countdown 3s; 10s run, 10s walk")
        clock.advance(by: 8 * second)
        try session.pause()
        #expect(recorder.sounds.last == AudibleActions(cut: true, cues: []))
        try session.resume()
        try session.skip()
        #expect(recorder.sounds.last == AudibleActions(cut: true, cues: [TimedCue("intervald-rest", delay: 0)]))
        session.stop(.user)
        #expect(recorder.sounds.last == AudibleActions(cut: true, cues: []))
    }

    @Test func theVoiceTimesEachPhraseForItsChangeAndCountsDown() throws {
        let (session, clock, recorder) = try run("name \"Hills\"; countdown 3s; 30s run, 1m walk")
        // At the start: the first segment at once, the next one timed for its change 30 s later.
        #expect(
            recorder.speech[0]
                == AudibleActions(
                    cut: true,
                    cues: [TimedCue("Run, 30 seconds", delay: 0), TimedCue("Walk, 1 minute", delay: 30 * second)]))
        clock.advance(by: 27 * second)
        #expect(
            recorder.speech[1].cues == [
                TimedCue("three", delay: 0), TimedCue("two", delay: second), TimedCue("one", delay: 2 * second),
            ])
        clock.advance(by: 3 * second)
        // The change that was timed is not said again; the summary is timed for the end.
        #expect(
            recorder.speech[2]
                == AudibleActions(cut: false, cues: [TimedCue("Workout done, 1 minute 30 seconds", delay: minute)]))
        clock.advance(by: 10 * second)
        try session.skip()
        #expect(
            recorder.speech.last
                == AudibleActions(cut: true, cues: [TimedCue("Workout done, 1 minute 30 seconds", delay: 0)]),
            "a skip comes early: said at once")
    }

    @Test func theHalfwayPointOfLongSegmentsIsSaidWhenAsked() {
        let recorder = Recorder()
        recorder.spoken = SpokenCues(halfway: true)
        let (session, clock) = ManualTimerSource.session(outputs: [recorder])
        #expect(throws: Never.self) { try session.start("4m run, 1m walk", origin: "", replace: false) }
        #expect(recorder.speech[0].cues.contains(TimedCue("Halfway, 2 minutes left", delay: 2 * minute)))
        clock.advance(by: 4 * minute)
        #expect(!recorder.speech[1].cues.contains { $0.text.hasPrefix("Halfway") }, "a 1-minute segment is short")
        #expect(SpokenCues.halfwayMinimum == 2 * minute)
    }

    @Test func spokenLengths() {
        #expect(SpokenCues.words(microseconds: 30 * second) == "30 seconds")
        #expect(SpokenCues.words(microseconds: 90 * second) == "1 minute 30 seconds")
        #expect(SpokenCues.words(microseconds: 3600 * second + 60 * second) == "1 hour 1 minute")
        #expect(SpokenCues.words(microseconds: 250_000) == "250 milliseconds")
        #expect(SpokenCues.words(microseconds: second) == "1 second")
    }

    @Test func notificationsAskForSilenceWhenTheProcessPlaysTheSound() throws {
        let style = CueStyle().playingSoundItself(true)
        let note = WorkoutPresenter.notification(
            for: .finished, plan: try plan("30s run"), style: style)
        #expect(note?.suppressSound == true)
        #expect(note?.soundName == nil)
        #expect(CueStyle().playingSoundItself(false) == CueStyle())
    }
}

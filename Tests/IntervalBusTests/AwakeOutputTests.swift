import IntervalBus
import IntervalCore
import IntervalTestSupport
import Testing

/// AwakeOutput's rule (docs/reference.md §6) on the virtual clock, with a recorder in place of the desktop's suspend
/// inhibitor and logind's sleep delay: held from a workout's first event to its end, running or paused, and given back
/// at a stop or the finish.
@Suite struct AwakeOutputTests {
    final class Recorder: SuspendInhibiting, SleepDelaying, @unchecked Sendable {
        var asked: [String] = []
        var holder: SuspendInhibitor.Interface? { nil }
        var isDelaying: Bool { false }

        func hold(reason: @autoclosure () -> String) { asked.append("inhibit: \(reason())") }
        func release() { asked.append("uninhibit") }
        func holdDelay(why: @autoclosure () -> String) { asked.append("delay: \(why())") }
        func releaseDelay() { asked.append("no delay") }
    }

    static let held = ["inhibit: Interval Timer: P is running", "delay: A sleep pauses the workout first"]
    static let released = ["uninhibit", "no delay"]

    @Test func theInhibitorIsHeldWhileAWorkoutRunsOrIsPausedAndGivenBackAtItsEnd() throws {
        let recorder = Recorder()
        let awake = AwakeOutput(inhibitor: recorder, sleep: recorder, onSleep: .pause)
        let (session, clock) = ManualTimerSource.session(outputs: [awake])
        try session.start("name \"P\"\n2x(10s run)", origin: "", replace: false)
        #expect(recorder.asked == Self.held, "at the start")
        recorder.asked = []
        try session.pause()
        #expect(recorder.asked == Self.held, "paused: a workout still exists")
        recorder.asked = []
        try session.resume()
        #expect(recorder.asked == Self.held, "resumed")
        recorder.asked = []
        session.stop(.user)
        #expect(recorder.asked == Self.released, "stopped")

        recorder.asked = []
        try session.start("name \"P\"\n10s run", origin: "", replace: false)
        clock.advance(by: 10_000_000)
        #expect(recorder.asked == Self.held + Self.released, "started, then finished")
    }

    @Test func withOnSleepKeepRunningNoSleepDelayIsHeldAndChangingItMidWorkoutGivesItBack() throws {
        let recorder = Recorder()
        let awake = AwakeOutput(inhibitor: recorder, sleep: recorder, onSleep: .pause)
        let (session, _) = ManualTimerSource.session(outputs: [awake])
        try session.start("name \"P\"\n1m run", origin: "", replace: false)
        recorder.asked = []
        awake.onSleep = .keepRunning
        session.catchUp(awake)
        #expect(recorder.asked == ["inhibit: Interval Timer: P is running", "no delay"])
    }

    @Test func withoutAWorkoutNothingIsAsked() {
        let recorder = Recorder()
        let awake = AwakeOutput(inhibitor: recorder, sleep: recorder, onSleep: .pause)
        let (session, _) = ManualTimerSource.session(outputs: [awake])
        #expect(throws: TimerCommandError.self) { try session.pause() }
        #expect(recorder.asked.isEmpty)
    }
}

import IntervalBus
import IntervalCore
import IntervalTestSupport
import Testing

/// FeedbackOutput's rules on the virtual clock, with a recorder in place of feedbackd: which event each cue asks for
/// and when, what ends the feedbacks still playing, and nothing at all with `[haptics] enabled = false`.
@Suite struct FeedbackOutputTests {
    final class Recorder: FeedbackTriggering {
        var log: [String] = []

        func trigger(_ event: String, after delay: Int64) { log.append("\(event) +\(delay / 1000) ms") }
        func cut() { log.append("cut") }
    }

    @Test func workRestPipsAndTheFinishAskForTheirOwnEventsInOrder() throws {
        let recorder = Recorder()
        let output = try #require(FeedbackOutput.forSettings(Settings()) { recorder })
        let (session, clock) = ManualTimerSource.session(outputs: [output])
        try session.start("countdown 2s\n10s run\n10s walk", origin: "", replace: false)
        clock.advance(by: 8_000_000)  // the pre-cue before the walk: a pip now and one a second later
        clock.advance(by: 2_000_000)  // the walk
        clock.advance(by: 10_000_000)  // the pips before the finish, and the finish
        #expect(
            recorder.log == [
                "cut", "message-new-sms +0 ms",
                "button-pressed +0 ms", "button-pressed +1000 ms",
                "cut", "message-new-instant +0 ms",
                "button-pressed +0 ms", "button-pressed +1000 ms",
                "cut", "alarm-clock-elapsed +0 ms",
            ])
        // Work, rest, pip and finish are four different events.
        #expect(Set(HapticCues.events.values).count == 4)
    }

    @Test func aPauseAndAStopEndWhatPlaysAndAResumeAsksForNothing() throws {
        let recorder = Recorder()
        var settings = Settings()
        settings.sound.restKinds = ["jog"]
        let output = try #require(FeedbackOutput.forSettings(settings) { recorder })
        let (session, clock) = ManualTimerSource.session(outputs: [output])
        try session.start("10s walk\n10s jog", origin: "", replace: false)
        try session.pause()
        try session.resume()
        clock.advance(by: 10_000_000)
        session.stop(.user)
        // The settings' rest kinds decide: a walk is work here, a jog rest.
        #expect(recorder.log == ["cut", "message-new-sms +0 ms", "cut", "cut", "message-new-instant +0 ms", "cut"])
    }

    @Test func disabledThereIsNoOutputAndNothingIsConnected() throws {
        var settings = Settings()
        settings.hapticsEnabled = false
        var connected = false
        let output = FeedbackOutput.forSettings(settings) {
            connected = true
            return Recorder()
        }
        #expect(output == nil)
        #expect(!connected, "no connection to feedbackd is made while haptics are off")
    }
}

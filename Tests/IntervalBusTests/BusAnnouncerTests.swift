import IntervalBus
import IntervalCore
import IntervalTestSupport
import Logging
import Testing

/// BusAnnouncer's and BusPropertyAnnouncer's rules on the virtual clock, with a recorder in place of the bus: the signal of each event first,
/// then `PropertiesChanged` for exactly the properties the event changed.
@Suite struct BusAnnouncerTests {
    final class Recorder: TimerSignalEmitting {
        var emitted: [String] = []

        func emitSegmentStarted(index: UInt32, kind: String, label: String, duration: UInt64) throws(BusError) {
            emitted.append("SegmentStarted \(index) \(kind) \(label) \(duration)")
        }
        func emitFinished(planName: String) throws(BusError) { emitted.append("Finished \(planName)") }
        func emitStopped(_ reason: StopReason) throws(BusError) { emitted.append("Stopped \(reason.rawValue)") }
        func emitPropertiesChanged(_ names: [String]) throws(BusError) {
            emitted.append("PropertiesChanged " + names.joined(separator: ","))
        }
    }

    @Test func eachEventSignalsFirstThenTheChangedPropertiesOnly() throws {
        let recorder = Recorder()
        let (session, clock) = ManualTimerSource.session(outputs: [
            BusAnnouncer(server: recorder, logger: Logger(label: "test")),
            BusPropertyAnnouncer(server: recorder, logger: Logger(label: "test")),
        ])
        try session.start("name \"P\"\ncountdown 1s\n2x(5s run)", origin: "", replace: false)
        clock.advance(by: 4_000_000)  // the pre-cue changes nothing that is announced
        try session.pause()
        try session.resume()
        clock.advance(by: 1_000_000)
        clock.advance(by: 5_000_000)
        #expect(
            recorder.emitted == [
                "SegmentStarted 0 run Run 5000000",
                "PropertiesChanged State,PlanName,PlanDuration,SegmentCount,SegmentKind,SegmentLabel,SegmentDuration,"
                    + "NextLabel",
                "PropertiesChanged State",
                "PropertiesChanged State",
                "SegmentStarted 1 run Run 5000000",
                "PropertiesChanged SegmentIndex,NextLabel",
                "Finished P",
                "PropertiesChanged State,PlanName,PlanDuration,SegmentIndex,SegmentCount,SegmentKind,SegmentLabel,"
                    + "SegmentDuration",
            ])
        try session.start("1m walk", origin: "", replace: false)
        session.stop(.replaced)
        #expect(recorder.emitted.suffix(2).first == "Stopped replaced")
    }
}

import IntervalBus
import IntervalCore
import Testing

/// What a client shows from a signal alone, before it reads the properties again (``TimerStatus/assumed(after:)``).
struct AssumedStatusTests {
    private static let running = {
        var status = TimerStatus.idle
        (status.state, status.planName, status.planDuration) = (.running, "Couch to 5K · Week 1, Day 1", 1_800_000_000)
        (status.segmentIndex, status.segmentCount, status.segmentKind) = (3, 17, "run")
        (status.segmentDuration, status.elapsed, status.segmentRemaining) = (60_000_000, 400_000_000, 12_000_000)
        return status
    }()

    @Test(arguments: [TimerEvent.stopped(reason: "user"), .finished(planName: "Couch to 5K · Week 1, Day 1")])
    func anEndedWorkoutIsIdleAtOnceAndKeepsItsPlansName(_ event: TimerEvent) throws {
        let ended = try #require(Self.running.assumed(after: event))
        #expect(ended.state == .idle)
        #expect(ended.planName == Self.running.planName)
        #expect(ended.segmentRemaining == 0 && ended.elapsed == 0)
    }

    @Test func aSegmentsSignalSetsItsDigitsAndKeepsThePlan() throws {
        let started = try #require(
            Self.running.assumed(
                after: TimerEvent.segmentStarted(index: 4, kind: "walk", label: "Walk", duration: 90_000_000)))
        #expect(started.state == .running && started.segmentIndex == 4 && started.segmentKind == "walk")
        #expect(started.segmentRemaining == 90_000_000 && started.segmentElapsed == 0 && !started.open)
        #expect(started.planName == Self.running.planName)
    }

    @Test func aStepThePersonEndsCountsUpFromIdle() throws {
        let started = try #require(
            TimerStatus.idle.assumed(
                after: TimerEvent.segmentStarted(index: 0, kind: "warmup", label: "Warm up", duration: 0)))
        #expect(started.state == .running && started.open && started.planName.isEmpty)
    }

    @Test(arguments: [TimerEvent.propertiesChanged(["State"]), .daemonAppeared, .daemonVanished, .tick])
    func otherEventsShowNothingByThemselves(_ event: TimerEvent) {
        #expect(Self.running.assumed(after: event) == nil)
    }
}

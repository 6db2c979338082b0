import IntervalTestSupport
import Testing

@testable import IntervalCore

@Suite struct WorkoutSessionTests {
    final class Recorder: WorkoutOutput {
        var events: [(SchedulerEvent, String)] = []
        var moments: [WorkoutMoment] = []

        func handle(_ moment: WorkoutMoment) {
            events.append((moment.event, moment.plan.name))
            moments.append(moment)
        }
    }

    final class OrderProbe: WorkoutOutput {
        let name: String
        let log: Log

        final class Log {
            var entries: [String] = []
        }

        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }

        func handle(_ moment: WorkoutMoment) { log.entries.append(name) }
    }

    func makeService() -> (WorkoutSession, ManualTimerSource, Recorder) {
        let recorder = Recorder()
        let (service, clock) = ManualTimerSource.session(wallEpoch: 1_700_000_000_000_000, outputs: [recorder])
        return (service, clock, recorder)
    }

    @Test func outputsHearEveryEventInListOrder() throws {
        let log = OrderProbe.Log()
        let (service, clock) = ManualTimerSource.session(
            wallEpoch: 1_700_000_000_000_000, outputs: [OrderProbe("bus", log: log), OrderProbe("sound", log: log)])
        try service.start("2x(1s run, 1s walk)", origin: "", replace: false)
        clock.advance(by: 5 * second)
        // Four cues and the finish, each heard by the bus first.
        #expect(log.entries == Array(repeating: ["bus", "sound"], count: 5).flatMap { $0 })
    }

    @Test func anOutputThatJoinsIsCaughtUpWithTheWorkoutAsItStands() throws {
        let (session, clock, _) = makeService()
        let late = Recorder()
        session.catchUp(late)
        #expect(late.events.isEmpty, "nothing to catch up with while idle")
        try session.start("30s run, 30s walk", origin: "", replace: false)
        clock.advance(by: 40 * second)
        session.catchUp(late)
        let running = try #require(late.moments.last)
        #expect(running.event == .resumed(try #require(session.scheduler?.current)))
        #expect(running.nextChange == 60 * second)
        #expect(running.status.segmentKind == "walk")
        #expect(!running.onTimer)
        try session.pause()
        session.catchUp(late)
        #expect(late.events.last?.0 == .paused(try #require(session.scheduler?.current)))
        #expect(late.moments.last?.nextChange == nil)
    }

    /// `hr<120 walk` ends at the strap's first measurement strictly below 120, as Done would; not at 120, not while
    /// paused, and never in a timed step. The status shows the last heart rate until the strap is lost.
    @Test func aStepAHeartRateEndsEndsAtTheFirstMeasurementPastItsBound() throws {
        let (session, clock, recorder) = makeService()
        try session.start("hr<120 walk, 30s run", origin: "", replace: false)
        clock.advance(by: 5 * second)
        #expect(session.heard(heartRate: 130) && session.status.heartRate == 130)
        session.heard(heartRate: 120)
        #expect(session.status.segmentIndex == 0 && session.status.open)
        try session.pause()
        session.heard(heartRate: 110)
        #expect(session.status.segmentIndex == 0, "paused: nothing ends")
        try session.resume()
        session.heard(heartRate: 119)
        #expect(session.status.segmentIndex == 1 && session.status.heartRate == 119)
        #expect(
            recorder.events.contains {
                if case .segmentStarted(let segment, _) = $0.0 { segment.index == 1 } else { false }
            })
        session.heard(heartRate: 90)
        #expect(session.status.segmentIndex == 1, "a timed step is the clock's")
        session.lostHeartRate()
        #expect(session.status.heartRate == 0)
    }

    /// Room for a sample a second is made for the plan's timed steps and five minutes more, at most four hours'.
    @Test func samplesAreExpectedForThePlansLength() throws {
        let (session, _, _) = makeService()
        try session.start("10m run, 0.4km walk", origin: "", replace: false)
        #expect(session.samplesExpected == 900)
        try session.start("6x(1h run)", origin: "", replace: true)
        #expect(session.samplesExpected == 4 * 3600)
    }

    /// A distance step ends at the machine's own distance since the step began, whether the step has a pace or not;
    /// readings are kept a second at a time for the history.
    @Test func aDistanceStepEndsAtTheMachinesOwnDistance() throws {
        let (session, clock, recorder) = makeService()
        try session.start("0.4km run, 0.2km walk @ 6:00/km, 1m walk", origin: "", replace: false)
        #expect(session.heard(machine: MachineReading(speed: 10, distance: 1000)))
        clock.advance(by: 60 * second)
        session.heard(machine: MachineReading(speed: 10, distance: 1399))
        #expect(session.status.segmentIndex == 0 && session.machineReading?.distance == 1399)
        #expect(session.status.machineReading == MachineReading(speed: 10, distance: 1399), "on the bus")
        try session.pause()
        session.heard(machine: MachineReading(speed: 10, distance: 1450))
        #expect(session.status.segmentIndex == 0, "paused: nothing ends")
        try session.resume()
        clock.advance(by: second)
        session.heard(machine: MachineReading(speed: 10, distance: 1450))
        #expect(session.status.segmentIndex == 1)
        session.heard(machine: MachineReading(speed: 10, distance: 1500))
        clock.advance(by: 30 * second)
        session.heard(machine: MachineReading(speed: 10, distance: 1700))
        #expect(session.status.segmentIndex == 2, "a paced distance step ends at the machine's distance too")
        session.heard(machine: MachineReading(speed: 10, distance: 5000))
        #expect(session.status.segmentIndex == 2, "a timed step is the clock's")
        session.lostMachine()
        #expect(session.machineReading == nil && session.status.machineReadings == "" && session.status.speed == 0)
        session.stop(.user)
        let samples = try #require(recorder.moments.last?.machineSamples)
        #expect(samples.map(\.reading.distance) == [1000, 1450, 1500, 5000], "the last of each second")
    }

    @Test func momentsCarryTheScheduleAndWhereTheWorkoutEnded() throws {
        let (service, clock, recorder) = makeService()
        clock.advance(by: 7 * second)
        try service.start("30s run, 30s walk", origin: "", replace: false)
        let first = try #require(recorder.moments.last)
        #expect(first.now == 7 * second)
        #expect(first.nextChange == 37 * second)
        #expect(first.status.segmentKind == "run")
        clock.advance(by: 45 * second)
        #expect(recorder.moments.last?.nextChange == 67 * second)
        try service.pause()
        #expect(recorder.moments.last?.nextChange == nil)
        service.stop(.user)
        let stopped = try #require(recorder.moments.last)
        #expect(stopped.event == .stopped(.user))
        #expect(stopped.elapsed == 45 * second)
        #expect(stopped.status == .idle)
    }

    @Test func momentsSayWhetherTheTimerBroughtThem() throws {
        let (service, clock, recorder) = makeService()
        try service.start("countdown 2s; 4x(10s run)", origin: "", replace: false)
        clock.advance(by: 10 * second)  // the countdown, then the second cue
        try service.pause()
        try service.resume()
        try service.skip()
        try service.restartSegment()
        clock.sleep(for: 10 * second + 500_000)  // a suspend through the third segment's end
        service.resynchronize()
        clock.advance(by: 10 * second)  // the countdown, then the finish
        let brought = recorder.moments.map {
            "\(String(describing: $0.event).prefix { $0 != "(" }) \($0.onTimer ? "timer" : "owner")"
        }
        #expect(
            brought == [
                "segmentStarted owner", "countdown timer", "segmentStarted timer", "paused owner", "resumed owner",
                "segmentStarted owner", "segmentStarted owner", "segmentStarted owner", "countdown timer",
                "finished timer",
            ])
        try service.start("10s run", origin: "", replace: false)
        service.stop(.user)
        #expect(recorder.moments.suffix(2).map(\.onTimer) == [false, false])
    }

    @Test func deferredOutputsHearTheTimersEventsLaterAndTheOwnersAtOnceInOrder() throws {
        let log = OrderProbe.Log()
        var later: [() -> Void] = []
        let deferred = DeferredOutputs([OrderProbe("a", log: log), OrderProbe("b", log: log)]) { later.append($0) }
        let clock = ManualTimerSource()
        let service = WorkoutSession(
            timer: clock, wallClock: { 0 }, outputs: [OrderProbe("bus", log: log), deferred])
        try service.start("3x(10s run)", origin: "", replace: false)
        #expect(log.entries == ["bus", "a", "b"])  // the start: at once
        clock.advance(by: 10 * second)
        #expect(log.entries.suffix(1) == ["bus"])  // the cue: the bus at its instant, the rest waits
        #expect(later.count == 1)
        later.removeFirst()()
        #expect(log.entries.suffix(3) == ["bus", "a", "b"])
        clock.advance(by: 10 * second)
        try service.pause()  // the owner's event flushes the cue that waits, then is heard itself
        #expect(log.entries.suffix(6) == ["bus", "bus", "a", "b", "a", "b"])
        let heard = log.entries.count
        later.removeFirst()()  // the cue's late call finds nothing left to hand over
        #expect(log.entries.count == heard)
        try service.resume()
        clock.advance(by: 10 * second)  // the finish waits, until the daemon flushes before it exits
        #expect(log.entries.suffix(1) == ["bus"])
        deferred.flush()
        #expect(log.entries.suffix(2) == ["a", "b"])
    }

    @Test func startRefusesWhileRunningUnlessReplacing() throws {
        let (service, clock, recorder) = makeService()
        try service.start("30s run, 30s walk", origin: "", replace: false)
        clock.advance(by: 40 * second)
        do {
            try service.start("5m walk", origin: "", replace: false)
            Issue.record("a second start must fail")
        } catch {
            #expect(error.code == .alreadyRunning)
            #expect(error.busErrorName == "org.intervald.Timer1.Error.AlreadyRunning")
        }
        #expect(service.status.segmentKind == "walk")
        try service.start("name \"Second\"\n5m walk", origin: "/tmp/second.plan", replace: true)
        let tail = recorder.events.suffix(2)
        #expect(tail.first?.0 == .stopped(.replaced))
        #expect(tail.first?.1 == "30s run, 30s walk")
        #expect(tail.last?.1 == "Second")
        #expect(service.status.planName == "Second")
        #expect(service.status.state == .running)
    }

    @Test func invalidPlansAreRefusedWithTheLocatedDiagnostic() {
        let (service, _, _) = makeService()
        #expect(
            throws: TimerCommandError(
                .invalidPlan, "<inline>:1:3: error: unknown duration unit 'sx' (expected ms, s, m or h)\n30sx run\n  ^")
        ) {
            try service.start("30sx run", origin: "", replace: false)
        }
        #expect(throws: TimerCommandError.self) { try service.start("", origin: "/home/me/empty.plan", replace: true) }
        #expect(service.status == .idle)
    }

    @Test func statusFollowsThePlan() throws {
        let (service, clock, _) = makeService()
        #expect(throws: TimerCommandError(.notRunning, "No workout is running.")) { try service.pause() }
        try service.start("name \"G\"\n5m walk \"Warm-up\", 2x(30s run, 30s walk)", origin: "g.plan", replace: false)
        clock.advance(by: 5 * minute + 10 * second)
        let status = service.status
        #expect(status.state == .running)
        #expect(status.planName == "G")
        #expect(status.planDuration == UInt64(7 * minute))
        #expect(status.segmentIndex == 1)
        #expect(status.segmentCount == 5)
        #expect(status.segmentKind == "run")
        #expect(status.segmentLabel == "Run")
        #expect(status.segmentDuration == UInt64(30 * second))
        #expect(status.nextLabel == "Walk")
        #expect(status.elapsed == UInt64(5 * minute + 10 * second))
        #expect(status.segmentRemaining == UInt64(20 * second))
        try service.pause()
        #expect(service.status.state == .paused)
        service.stop(.user)
        service.stop(.user)
        #expect(service.status == .idle)
    }

    @Test func finishingReturnsToIdle() throws {
        let (service, clock, recorder) = makeService()
        try service.start("1s run", origin: "", replace: false)
        clock.advance(by: second)
        #expect(recorder.events.last?.0 == .finished)
        #expect(service.status == .idle)
        #expect(!service.isActive)
        try service.start("1s run", origin: "", replace: false)
    }
}

@Suite struct WorkoutPresenterTests {
    let galloway: Plan

    init() throws {
        galloway = try plan("5m walk \"Warm-up\", 6x(4x(30s run, 30s walk), 60s walk \"Walk break\"), 5m walk")
    }

    @Test func cueSaysWhatNowWhatNextAndWhere() throws {
        let segment = try #require(galloway.segment(at: 5 * minute + 2 * 5 * minute + 60 * second))
        let note = try #require(
            WorkoutPresenter.notification(
                for: .segmentStarted(segment, next: galloway.segment(after: segment)), plan: galloway, style: CueStyle()
            )
        )
        #expect(note.summary == "Run · 30 s")
        #expect(note.body == "Next: Walk 30 s · round 3 of 6")
        #expect(note.actions == [.stop, .pause, .skip])
        #expect(note.soundName == "bell")
    }

    @Test func warmUpSaysSegmentPositionAndLastSaysLastOne() throws {
        let first = try #require(galloway.segment(at: 0))
        let note = WorkoutPresenter.notification(
            for: .segmentStarted(first, next: galloway.segment(after: first)), plan: galloway, style: CueStyle())
        #expect(note?.summary == "Warm-up · 5 min")
        #expect(note?.body == "Next: Run 30 s · segment 1 of 56")
        let last = try #require(galloway.segment(at: galloway.duration - 1))
        #expect(
            WorkoutPresenter.notification(for: .segmentStarted(last, next: nil), plan: galloway, style: CueStyle())?
                .body == "Last one · segment 56 of 56")
    }

    @Test func countdownPauseFinishAndStop() throws {
        let first = try #require(galloway.segment(at: 0))
        let next = galloway.segment(after: first)
        let style = CueStyle(soundName: nil, urgency: .critical, extraButtons: [.pause, .skip])
        let countdown = WorkoutPresenter.notification(
            for: .countdown(current: first, next: next, remaining: 3 * second), plan: galloway, style: style)
        #expect(countdown?.summary == "Run in 3 s")
        #expect(countdown?.actions == [.stop, .pause, .skip])
        #expect(countdown?.urgency == .critical)
        #expect(countdown?.soundName == nil)
        let paused = WorkoutPresenter.notification(for: .paused(first), plan: galloway, style: style)
        #expect(paused?.actions == [.stop, .resume, .skip])
        let finished = WorkoutPresenter.notification(for: .finished, plan: galloway, style: style)
        #expect(finished?.summary == "Workout finished")
        #expect(finished?.body == "test · 40:00")
        #expect(finished?.actions == [])
        #expect(WorkoutPresenter.notification(for: .stopped(.user), plan: galloway, style: style) == nil)
    }

    @Test func aSleepPausesARunningWorkoutAndItsOutputsSayWhy() throws {
        let recorder = WorkoutSessionTests.Recorder()
        let (session, clock) = ManualTimerSource.session(outputs: [recorder])
        session.pauseForSleep()
        #expect(recorder.events.isEmpty, "nothing to pause while idle")
        try session.start("30s run, 30s walk", origin: "", replace: false)
        clock.advance(by: 10 * second)
        session.pauseForSleep()
        let paused = try #require(recorder.moments.last)
        #expect(paused.status.state == TimerState.paused)
        #expect(paused.pausedBySleep)
        #expect(paused.elapsed == 10 * second)
        let notification = try #require(
            WorkoutPresenter.notification(
                for: paused.event, plan: paused.plan, style: CueStyle(), pausedBySleep: paused.pausedBySleep))
        #expect(notification.summary == "Paused while the computer slept")
        #expect(notification.body == "Run · segment 1 of 2")
        #expect(notification.actions == [NotificationAction.stop, .resume, .skip])
        // Asleep for a minute: the workout has not moved, and the sleep is counted.
        clock.advance(by: 60 * second)
        session.noteSleep(microseconds: 60 * second)
        session.pauseForSleep()
        #expect(recorder.moments.count == 2, "a paused workout is not paused again")
        session.catchUp(recorder)
        #expect(recorder.moments.last?.pausedBySleep == true, "the wake's notification still says why")
        try session.resume()
        let resumed = try #require(recorder.moments.last)
        #expect(!resumed.pausedBySleep)
        #expect(resumed.slept == 60 * second)
        clock.advance(by: 50 * second)
        #expect(recorder.moments.last?.event == .finished)
        #expect(recorder.moments.last?.slept == 60 * second)
        // The next workout starts with no sleep of its own.
        try session.start("30s run", origin: "", replace: false)
        #expect(recorder.moments.last?.slept == 0)
    }

    @Test func aPauseByThePersonSaysNothingOfSleep() throws {
        let recorder = WorkoutSessionTests.Recorder()
        let (session, _) = ManualTimerSource.session(outputs: [recorder])
        try session.start("30s run, 30s walk", origin: "", replace: false)
        try session.pause()
        #expect(recorder.moments.last?.pausedBySleep == false)
    }
}

@Suite struct ChangedPropertiesTests {
    @Test func onlyChangedAnnouncedPropertiesAreListed() throws {
        let (service, _) = ManualTimerSource.session()
        try service.start("name \"P\"\n30s run, 30s walk", origin: "", replace: false)
        let running = service.status
        #expect(
            running.changedProperties(since: .idle) == [
                "State", "PlanName", "PlanDuration", "SegmentCount", "SegmentKind", "SegmentLabel", "SegmentDuration",
                "NextLabel",
            ])
        var later = running
        later.elapsed += 1_000_000
        later.segmentRemaining -= 1_000_000
        #expect(later.changedProperties(since: running) == [])
        later.segmentIndex = 1
        later.segmentKind = "walk"
        #expect(later.changedProperties(since: running) == ["SegmentIndex", "SegmentKind"])
    }
}

import IntervalTestSupport
import Testing

@testable import IntervalCore

/// Steps the person ends (docs/plan-language.md): `open KIND`, and a distance without a pace. Every one was refused, or
/// read as something else: `open warmup` was an unknown directive and `400m run` 400 minutes.
@Suite struct OpenStepTests {
    static let second: Int64 = 1_000_000

    @Test func openStepsAndDistancesAreSteps() throws {
        let plan = try plan("open warmup \"Until ready\", 6x(0.4km run, 90s walk), 0.4km run @ 5:00/km, open cooldown")
        let steps = Array(plan.segments)
        #expect(steps.count == 15)
        #expect(steps[0].isOpen && steps[0].label == "Until ready" && steps[0].distance == nil)
        #expect(steps[1].isOpen && steps[1].distance == 400 && steps[1].kind == "run")
        #expect(!steps[2].isOpen && steps[2].duration == 90 * Self.second)
        #expect(!steps[13].isOpen && steps[13].duration == 120 * Self.second, "a distance with a pace is timed")
        #expect(steps[14].isOpen)
        #expect(plan.openStepCount == 8)
        #expect(plan.duration == 9 * 60 * Self.second + 120 * Self.second)
        #expect(plan.notes.isEmpty)
    }

    /// An open step held a microsecond of the plan's time, which leaked into every total: `warmup` 1 µs, `run` 2 µs,
    /// a round 90000001 µs, the plan 180000003 µs on the bus.
    @Test func aStepThePersonEndsAddsNoTimeToAnyTotal() throws {
        let plan = try plan("open warmup, 2x(0.4km run, 90s walk)")
        #expect(plan.duration == 180 * Self.second && plan.openStepCount == 3)
        guard case .group(let rounds) = plan.root.children[1] else {
            Issue.record("the repeat is a group")
            return
        }
        #expect(rounds.iterationDuration == 90 * Self.second && rounds.totalDuration == 180 * Self.second)
        let kinds = PlanEstimate(plan).kinds
        #expect(kinds.map(\.kind) == ["warmup", "run", "walk"])
        #expect(kinds.map(\.duration) == [0, 0, 180 * Self.second])
        #expect(kinds.map(\.openSteps) == [1, 2, 0])
        #expect(kinds.map(\.share) == [0, 0, 1])
        #expect(Array(plan.segments).map(\.duration) == [0, 0, 90 * Self.second, 0, 90 * Self.second])
        #expect(plan.time(at: plan.timelineEnd) == plan.duration)
        let text = PlanReport.text(for: plan)
        #expect(text.contains("Warm-up  1 open step\nRun      2 open steps\nWalk      3:00  100 %"))
        // The lengths make one column however wide the widest is.
        #expect(text.contains("         until Done  Warm-up\n3:00 + 2 open steps  2 × (1:30 + 1 open step per round)"))
        let short = try PlanParser.parse("open warmup, 10s run", origin: "", defaultName: "")
        let (service, clock) = ManualTimerSource.session(wallEpoch: 0, outputs: [])
        try service.start("open warmup, 10s run", origin: "", replace: false)
        clock.advance(by: Self.second)
        #expect(service.status.planDuration == UInt64(short.duration) && short.duration == 10 * Self.second)
    }

    /// A status read counts the open steps before the place without building the totals per kind; it must count
    /// what the summary counts, at every place, in repeats, nested ones and beside bounded blocks.
    @Test(arguments: [
        "open warmup, 3x(0.4km run, 20s walk, 2x(open strides, 5s rest)), for 50s (10s run, 5s jog), open cooldown",
        "4x(10s run, 5s walk)", "for 1km (0.2km run @ 5:00/km, 0.1km walk @ 9:00/km), open check",
    ])
    func theOpenStepsBeforeAPlaceAreTheSummarys(text: String) throws {
        let plan = try plan(text)
        let end = plan.timelineEnd
        var places: [Int64] = [-1, 0, 1, end - 1, end, end + 1]
        for segment in plan.segments {
            places += [segment.start - 1, segment.start, segment.start + 1, segment.end - 1, segment.end]
        }
        places += Array(stride(from: Int64(0), to: end, by: Int64.Stride(max(end / 97, 1))))
        for place in places {
            let summary = plan.root.summary(until: min(max(place, 0), end))
            #expect(plan.root.openSteps(until: place) == summary.openSteps, "at \(place)")
            #expect(plan.time(at: place) == summary.duration, "at \(place)")
        }
    }

    @Test func fourHundredMinutesGetANoteSayingHowADistanceIsWritten() throws {
        let plan = try plan("2x(400m run, 90s walk)")
        #expect(plan.duration == 2 * (400 * 60 + 90) * Self.second, "m stays minutes")
        let note = try #require(plan.notes.first)
        #expect(plan.notes.count == 1)
        #expect(note.headline == "<inline>:1:4: note: 400m is 400 minutes; a distance is written 0.4km")
        #expect(try PlanParser.parse("45m run", origin: "x", defaultName: "x").notes.isEmpty)
    }

    @Test func aBoundedRepeatCannotHoldAStepThePersonEnds() {
        #expect(throws: PlanDiagnostic.self) { try plan("for 20m(open run, 1m walk)") }
        #expect(throws: PlanDiagnostic.self) { try plan("open") }
    }

    @Test func theWriterAndTheDraftWriteThemBackAsWritten() throws {
        let text = "open warmup \"Until ready\"\n0.4km run\n1mi walk @ 15:00/mi\n90s rest"
        let written = PlanWriter.text(for: try plan(text))
        #expect(written.contains("open warmup \"Until ready\""))
        #expect(written.contains("0.4km run"))
        #expect(written.contains("1mi walk @ 15:00/mi"))
        let again = try plan(written)
        #expect(Array(again.segments) == Array(try plan(text).segments))
    }

    /// `open warmup, 2x(0.4km run, 90s walk)` from 10 s on the virtual clock.
    static func started() throws -> (Scheduler, ManualTimerSource, EventLog) {
        let clock = ManualTimerSource(now: 10 * second)
        let log = EventLog()
        let scheduler = try makeScheduler("open warmup, 2x(0.4km run, 90s walk)", clock: clock, log: log)
        scheduler.start()
        return (scheduler, clock, log)
    }

    @Test func anOpenStepPlaysUntilThePersonEndsItAndTheNextIsTimedFromThen() throws {
        let (scheduler, clock, log) = try Self.started()
        #expect(clock.deadline == nil, "no clock ends it")
        clock.advance(by: 600 * Self.second)
        #expect(log.cues.count == 1 && scheduler.isHolding)
        #expect(scheduler.openPlayed == 600 * Self.second)
        #expect(scheduler.segmentRemaining == 0 && scheduler.nextChange == nil)
        try scheduler.skip()  // Done: the warm-up ends now
        #expect(log.cues.count == 2 && log.cues[1].at == 610 * Self.second && scheduler.isHolding, "the 400 m")
        clock.advance(by: 95 * Self.second)
        try scheduler.skip()  // there
        #expect(scheduler.nextChange == 705 * Self.second + 90 * Self.second, "the walk, timed from the instant")
        clock.advance(by: 90 * Self.second)
        #expect(log.cues.map(\.at).last == 795 * Self.second)
        #expect(scheduler.skipped.isEmpty, "ending an open step skips nothing")
        let played = scheduler.track.segments(of: scheduler.plan)
        #expect(played.map(\.played).prefix(3) == [600 * Self.second, 95 * Self.second, 90 * Self.second])
    }

    @Test func aLateTimerOrAWakeUpStopsAtTheOpenStepInsteadOfPassingIt() throws {
        let clock = ManualTimerSource(now: 0)
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, open walk, 30s run", clock: clock, log: log)
        scheduler.start()
        clock.sleep(for: 100 * Self.second)
        clock.advance(by: 0)
        #expect(log.cues.map(\.segment.index) == [0, 1])
        #expect(scheduler.isHolding && scheduler.openPlayed == 70 * Self.second, "played since the run ended")
    }

    @Test func pauseResumeAndRestartInsideAnOpenStep() throws {
        let (scheduler, clock, log) = try Self.started()
        clock.advance(by: 20 * Self.second)
        try scheduler.pause()
        clock.advance(by: 300 * Self.second)
        #expect(scheduler.openPlayed == 20 * Self.second, "a pause does not count")
        try scheduler.resume()
        clock.advance(by: 5 * Self.second)
        #expect(scheduler.openPlayed == 25 * Self.second)
        try scheduler.restartSegment()
        #expect(scheduler.openPlayed == 0 && log.cues.count == 2)
        clock.advance(by: 7 * Self.second)
        try scheduler.skip()
        let warmUp = try #require(scheduler.track.segments(of: scheduler.plan).first)
        #expect(warmUp.start == 10 * Self.second && warmUp.end == 342 * Self.second)
        #expect(warmUp.paused == 300 * Self.second && warmUp.played == 32 * Self.second)
    }

    @Test func aWorkoutResumedInsideAnOpenStepGoesOnInItWithItsTimePlayed() throws {
        let (first, clock, _) = try Self.started()
        clock.advance(by: 40 * Self.second)
        // The daemon is killed; another starts 3 s later with what the first recorded.
        let recorded = first.track
        clock.advance(by: 3 * Self.second)
        let log = EventLog()
        let resumed = try makeScheduler("open warmup, 2x(0.4km run, 90s walk)", clock: clock, log: log)
        resumed.restore(anchor: 10 * Self.second, pausedElapsed: nil, track: recorded)
        #expect(log.cues.map(\.segment.index) == [0] && resumed.isHolding)
        #expect(resumed.openPlayed == 43 * Self.second)
        try resumed.skip()
        #expect(resumed.track.segments(of: resumed.plan).first?.played == 43 * Self.second)
        let state = WorkoutState(
            id: "a", plan: "", origin: "", bootID: "b", anchorBoot: 10 * Self.second, anchorWall: 0, startedWall: 0,
            state: .running, pausedElapsed: nil, notificationID: 0, track: recorded)
        let later = ClockReading(boot: 10_000 * Self.second, wall: 0, bootID: "b")
        #expect(
            state.resumption(at: later, planDuration: 200 * Self.second)
                == .resume(anchor: 10 * Self.second, pausedElapsed: nil), "an open step never runs out")
    }

    @Test func theHistoryCountsAnOpenStepAsLongAsItWasPlayed() throws {
        let (scheduler, clock, _) = try Self.started()
        clock.advance(by: 157 * Self.second)
        try scheduler.skip()
        clock.advance(by: 10 * Self.second)
        scheduler.stop(.user)
        let record = HistoryRecord(
            workout: WorkoutIdentity(id: "a", text: "", origin: "", startedWall: 0), plan: scheduler.plan,
            elapsed: scheduler.place, start: "s", end: "e", result: .stopped, reason: .user,
            skipped: scheduler.skipped, track: scheduler.track)
        #expect(record.segments?.map(\.played) == [157 * Self.second, 10 * Self.second])
        #expect(record.timePerKind == ["warmup": 157 * Self.second, "run": 10 * Self.second])
        #expect(record.doneDuration == 167 * Self.second)
        #expect(scheduler.elapsed == 167 * Self.second && record.openSteps == 3)
        // The workout's time alone: the plan's timed steps are not what the workout's time is measured against.
        #expect(record.doneText == "2:47")
    }
}

/// What every output says of a step the person ends: no time left, a count-up, a Done button.
@Suite struct OpenStepPresentationTests {
    @Test func theStatusSaysOpenAndCountsUpWhileThePlanStandsStill() throws {
        let (service, clock) = ManualTimerSource.session(wallEpoch: 0, outputs: [])
        try service.start("open warmup, 0.4km run, 90s walk", origin: "", replace: false)
        clock.advance(by: 157 * second + 400_000)
        var status = service.status
        #expect(status.open && status.segmentElapsed == UInt64(157 * second + 400_000))
        // The workout's time counts the step; the plan's timed steps wait, all of their time left.
        #expect(status.segmentRemaining == 0 && status.segmentDuration == 0)
        #expect(status.elapsed == status.segmentElapsed && status.remaining == UInt64(90 * second))
        #expect(status.planDuration == UInt64(90 * second) && status.planOpenSteps == 2 && status.segmentDistance == 0)
        #expect(StatusText.remaining(status) == "2:37")
        try service.pause()
        clock.advance(by: 60 * second)
        #expect(service.status.segmentElapsed == UInt64(157 * second + 400_000), "a pause stops the count")
        try service.resume()
        try service.perform(.done)
        clock.advance(by: 5 * second)
        status = service.status
        #expect(status.open && status.segmentIndex == 1 && status.segmentElapsed == UInt64(5 * second))
        #expect(status.segmentDistance == 400)
        try service.skip()
        clock.advance(by: 30 * second)
        status = service.status
        #expect(!status.open && status.segmentRemaining == UInt64(60 * second))
        #expect(status.segmentElapsed == UInt64(30 * second))
        // The warm-up's 2:37.4 and the run's 5 s (the pause left out), then the walk's 30 s; 1:00 of the walk is left.
        #expect(status.elapsed == UInt64(192 * second + 400_000) && status.remaining == UInt64(60 * second))
        #expect(StatusText.percent(status) == 33)
    }

    /// "1:57/2:10 … (0:12 skipped)" did not add up: each time was rounded down on its own.
    @Test func theHistorysTimeDoneAndSkippedAddUpToThePlansInWholeSeconds() {
        var record = HistoryRecord(
            id: "a", plan: "P", origin: "", start: "s", end: "e", startWall: 0, plannedDuration: 130 * second,
            doneDuration: 117_600_000, segmentsDone: 3, timePerKind: [:], result: .stopped, reason: "user")
        record.skipped = 12_400_000
        record.openSteps = 0
        #expect(record.doneText == "1:57 of 2:10" && record.skippedText == "0:13")
        record.skipped = 0
        #expect(record.skippedText == nil)
    }

    @Test func theNotificationSaysDoneWhenYouAreReadyWithADoneButton() throws {
        let plan = try plan("open warmup \"Warm up\", 0.4km run, 90s walk")
        let segments = Array(plan.segments)
        let warmUp = try #require(
            WorkoutPresenter.notification(
                for: .segmentStarted(segments[0], next: segments[1]), plan: plan, style: CueStyle()))
        #expect(warmUp.summary == "Warm up")
        #expect(warmUp.body == "Done when you are ready · Next: Run 0.4 km · segment 1 of 3")
        #expect(warmUp.actions == [.stop, .pause, .done])
        let run = try #require(
            WorkoutPresenter.notification(
                for: .segmentStarted(segments[1], next: segments[2]), plan: plan, style: CueStyle(extraButtons: [])))
        #expect(run.summary == "Run · 0.4 km")
        #expect(run.body.hasPrefix("Done when you get there · Next: Walk 1 min 30 s"))
        #expect(run.actions == [.stop, .done], "nothing else on the notification would end it")
        let paused = try #require(
            WorkoutPresenter.notification(for: .paused(segments[0]), plan: plan, style: CueStyle()))
        #expect(paused.actions == [.stop, .resume, .done])
        let walk = try #require(
            WorkoutPresenter.notification(for: .segmentStarted(segments[2], next: nil), plan: plan, style: CueStyle()))
        #expect(walk.actions == [.stop, .pause, .skip])
        #expect(SpokenCues.phrase(segments[0]) == "Warm up, until you are ready")
        #expect(SpokenCues.phrase(segments[1]) == "Run, 0.4 km")
    }

    @Test func totalsSayHowManyStepsThePersonEnds() throws {
        let plan = try plan("open warmup, 6x(0.4km run, 90s walk), 15m run, open cooldown")
        #expect(PlanReport.timeText(plan) == "24:00 + 8 open steps")
        #expect(PlanReport.lengthText(plan) == "24:00 + 8 open steps, 15 segments")
        #expect(
            PlanReport.description(of: plan).hasPrefix("Warm-up until Done, 6 × (Run 0.4 km, until Done, Walk 1:30)"))
        let estimate = PlanEstimate(plan)
        #expect(estimate.duration == 24 * minute && estimate.openSteps == 8 && estimate.averagePace == nil)
        #expect(PlanReport.totalRows(estimate).first?.value == "24:00 + 8 open steps")
        #expect(PlanReport.text(for: plan).contains("9:00 + 6 open steps  6 × (1:30 + 1 open step per round)"))
        #expect(PlanReport.timeText(try IntervalCoreTests.plan("30s run")) == "0:30")
    }

    @Test func theTrayOffersDoneAndCountsUp() throws {
        let plan = try plan("open warmup, 30s run")
        let segments = Array(plan.segments)
        var status = TimerStatus.idle
        status.state = .running
        status.open = true
        status.segmentElapsed = UInt64(65 * second)
        let view = try #require(TrayView(status: status, segment: segments[0], plan: plan, restKinds: []))
        #expect(view.label == "1:05" && view.menu == TrayMenu.State(paused: false, open: true))
        #expect(TrayMenu.properties(of: TrayMenu.Entry.skip.rawValue, menu: view.menu)?.first?.value == .string("Done"))
        // Refreshed just after each whole second of the count.
        #expect(TrayRefresh.next(after: 10 * second, countingUpFrom: 10 * second) == 10 * second + 100_000)
        #expect(TrayRefresh.next(after: 10 * second + 100_000, countingUpFrom: 10 * second) == 11 * second + 100_000)
        #expect(TrayRefresh.next(after: 12 * second + 50_000, countingUpFrom: 10 * second) == 12 * second + 100_000)
    }
}

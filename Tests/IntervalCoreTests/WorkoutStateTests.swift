import IntervalTestSupport
import Testing

@testable import IntervalCore

@Suite struct WorkoutStateTests {
    func recorded(_ state: WorkoutState.RunState = .running, paused: Int64? = nil) -> WorkoutState {
        WorkoutState(
            id: "w", plan: "10x(30s run, 30s walk)", origin: "", bootID: "boot-a", anchorBoot: 1_000 * second,
            anchorWall: 1_700_000_000 * second, startedWall: 1_700_000_000 * second, state: state,
            pausedElapsed: paused, notificationID: 7)
    }

    @Test func aCueThatKeepsTheScheduleIsNotAChange() {
        var jittered = recorded()
        jittered.anchorWall += 3  // the wall anchor is derived anew at every event
        #expect(recorded().hasSameSchedule(as: jittered))
        var skipped = recorded()
        skipped.anchorBoot -= 5 * second
        #expect(!recorded().hasSameSchedule(as: skipped))
        #expect(!recorded().hasSameSchedule(as: recorded(.paused, paused: 30 * second)))
    }

    @Test func theSameBootResumesOnTheBootClock() {
        // The wall clock jumped (NTP); the boot clock is what the schedule was on.
        let now = ClockReading(boot: 1_095 * second, wall: 1_800_000_000 * second, bootID: "boot-a")
        #expect(
            recorded().resumption(at: now, planDuration: 600 * second)
                == .resume(anchor: 1_000 * second, pausedElapsed: nil))
    }

    @Test func anotherBootResumesOnTheWallClock() {
        let now = ClockReading(boot: 20 * second, wall: 1_700_000_095 * second, bootID: "boot-b")
        let resumption = recorded().resumption(at: now, planDuration: 600 * second)
        #expect(resumption == .resume(anchor: -75 * second, pausedElapsed: nil))
    }

    @Test func aWorkoutWhoseTimePassedIsInterrupted() {
        let now = ClockReading(boot: 1_700 * second, wall: 0, bootID: "boot-a")
        #expect(
            recorded().resumption(at: now, planDuration: 600 * second)
                == .interrupted(elapsed: 600 * second, endedWall: 1_700_000_600 * second))
    }

    @Test func timesBeyondCenturiesAreImplausible() {
        #expect(recorded().hasPlausibleTimes)
        #expect(recorded(.paused, paused: 90 * second).hasPlausibleTimes)
        var damaged = recorded()
        damaged.anchorWall = .min
        #expect(!damaged.hasPlausibleTimes)
        damaged = recorded(.paused, paused: .max)
        #expect(!damaged.hasPlausibleTimes)
        damaged = recorded()
        damaged.anchorBoot = -(1 << 60)
        #expect(!damaged.hasPlausibleTimes)
    }

    @Test func aPausedWorkoutStaysPausedWhereItWas() {
        let now = ClockReading(boot: 99_999 * second, wall: 0, bootID: "boot-c")
        let resumption = recorded(.paused, paused: 95 * second).resumption(at: now, planDuration: 600 * second)
        guard case .resume(_, let paused) = resumption else {
            Issue.record("expected a resume, got \(resumption)")
            return
        }
        #expect(paused == 95 * second)
    }

    @Test func aRestoredSchedulerCuesTheSegmentDueOnceAndKeepsTheSchedule() throws {
        let clock = ManualTimerSource()
        clock.advance(by: 1_095 * second)
        var events: [SchedulerEvent] = []
        let plan = try PlanParser.parse("10x(30s run, 30s walk)", origin: "", defaultName: "p")
        let scheduler = Scheduler(plan: plan, timer: clock) { events.append($0) }
        scheduler.restore(anchor: 1_000 * second, pausedElapsed: nil)
        // 95 s in: segment 3 (walk, 90–120 s), cued once; the next cue is at the original 120 s.
        #expect(events.count == 1)
        guard case .segmentStarted(let segment, _) = events.first else {
            Issue.record("expected a cue")
            return
        }
        #expect(segment.index == 3)
        #expect(scheduler.nextChange == 1_120 * second)
        clock.advance(by: 25 * second)
        #expect(events.count == 2)
    }

    @Test func aRestoredPausedSchedulerReportsThePause() throws {
        let clock = ManualTimerSource()
        var events: [SchedulerEvent] = []
        let plan = try PlanParser.parse("10x(30s run, 30s walk)", origin: "", defaultName: "p")
        let scheduler = Scheduler(plan: plan, timer: clock) { events.append($0) }
        scheduler.restore(anchor: 0, pausedElapsed: 45 * second)
        #expect(scheduler.state == .paused)
        #expect(scheduler.elapsed == 45 * second)
        #expect(events.count == 2)
        #expect(events.last.map { if case .paused = $0 { true } else { false } } == true)
        clock.advance(by: 600 * second)
        #expect(events.count == 2)
    }

    @Test func aHistoryRecordCountsWhatWasDone() throws {
        let plan = try PlanParser.parse("5m walk, 3x(1m run, 2m walk)", origin: "", defaultName: "p")
        let identity = WorkoutIdentity(id: "i", text: "", origin: "/p.plan", startedWall: 5)
        let record = HistoryRecord(
            workout: identity, plan: plan, elapsed: 7 * minute, start: "s", end: "e", result: .stopped, reason: .user)
        #expect(record.doneDuration == 7 * minute)
        #expect(record.segmentsDone == 3)
        #expect(record.timePerKind == ["walk": 6 * minute, "run": 1 * minute])
        #expect(record.plannedDuration == 14 * minute)
        #expect(record.reason == "user")
        let totals = HistoryTotals([record, record])
        #expect(totals.count == 2)
        #expect(totals.timePerKind["walk"] == 12 * minute)
    }

    @Test func historySelectionFiltersThenKeepsTheLatest() {
        func record(_ start: Int64) -> HistoryRecord {
            HistoryRecord(
                id: "\(start)", plan: "p", origin: "", start: "", end: "", startWall: start, plannedDuration: 1,
                doneDuration: 1, segmentsDone: 1, timePerKind: [:], result: .finished, reason: nil)
        }
        let records = [record(30), record(10), record(20), record(40)]
        #expect(selectHistory(records, since: 15, limit: nil).map(\.startWall) == [20, 30, 40])
        #expect(selectHistory(records, since: nil, limit: 2).map(\.startWall) == [30, 40])
        #expect(selectHistory(records, since: 50, limit: 2).isEmpty)
    }

    @Test func textThatCouldSteerATerminalIsEscaped() {
        #expect("Run".terminalEscaped == "Run")
        #expect("Run\u{1B}[2J".terminalEscaped == "Run\\u{1B}[2J")
        #expect("a\u{202E}b\u{9B}".terminalEscaped == "a\\u{202E}b\\u{9B}")
    }
}

@Suite struct OutputEscapingTests {
    @Test func linesKeepTheirBreaksAndTabs() {
        #expect("a\tb\nc\u{1B}[2J\r".terminalEscapedKeepingLines == "a\tb\nc\\u{1B}[2J\\u{D}")
    }

    @Test func jsonStaysValidAndSafe() {
        let json = "{\n  \"label\": \"a\u{9B}b\u{202E}c\u{7F}\"\n}"
        #expect(json.jsonTerminalEscaped == "{\n  \"label\": \"a\\u009bb\\u202ec\\u007f\"\n}")
    }

    @Test func statusJSONAndWaybarEscapeWhatCouldSteerATerminal() {
        var status = TimerStatus.idle
        status.state = .running
        status.planName = "Plan\u{9B}31m"
        status.segmentLabel = "Run\u{1B}]0;x\u{7}"
        status.segmentKind = "run"
        for style in [StatusOutput.Style.text, .json, .waybar] {
            let line = StatusOutput(style: style).render(status)
            #expect(!line.unicodeScalars.contains { $0.steersTerminal }, "\(style)")
        }
    }
}

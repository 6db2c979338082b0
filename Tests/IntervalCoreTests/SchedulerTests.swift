import IntervalTestSupport
import Testing

@testable import IntervalCore

/// Records what a scheduler announces, with the virtual instant of each announcement.
final class EventLog {
    var entries: [(at: ClockInstant, event: SchedulerEvent)] = []

    var cues: [(at: ClockInstant, segment: Segment)] {
        entries.compactMap { if case .segmentStarted(let segment, _) = $0.event { ($0.at, segment) } else { nil } }
    }

    var last: SchedulerEvent? { entries.last?.event }
}

func makeScheduler(_ text: String, clock: ManualTimerSource, log: EventLog) throws -> Scheduler {
    let scheduler = Scheduler(plan: try plan(text), timer: clock) { [unowned clock] event in
        log.entries.append((clock.now, event))
    }
    return scheduler
}

@Suite struct SchedulerTests {
    @Test func everyCueIsAtStartPlusOffsetOverTenThousandSegments() throws {
        let clock = ManualTimerSource(now: 7_000_000)
        let log = EventLog()
        let scheduler = try makeScheduler("5000x(250ms run, 250ms walk)", clock: clock, log: log)
        scheduler.start()
        // The timer fires late by a varying amount, as a real one does; deadlines must not inherit that lateness.
        var random = SplitMix64(state: 3)
        var deadlines: [ClockInstant] = []
        while let deadline = clock.deadline {
            deadlines.append(deadline)
            clock.jump(by: deadline - clock.now + Int64.random(in: 0...2000, using: &random))
        }
        #expect(log.cues.count == 10_000)
        #expect(deadlines.count == 10_000)
        for (index, deadline) in deadlines.enumerated() {
            #expect(deadline == 7_000_000 + Int64(index + 1) * 250_000)
        }
        for (index, cue) in log.cues.enumerated() {
            #expect(cue.segment.index == Int64(index))
            #expect(cue.at - (7_000_000 + cue.segment.start) <= 2000)
        }
        #expect(log.last == .finished)
        #expect(scheduler.state == .idle)
    }

    @Test func cuesLandExactlyOnAPerfectClock() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler(
            "5m walk, 6x(4x(30s run, 30s walk), 60s walk), 5m walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 40 * minute)
        #expect(log.cues.map(\.at) == log.cues.map(\.segment.start))
        #expect(log.cues.count == 56)
        #expect(log.entries.last?.at == 40 * minute)
        #expect(log.last == .finished)
    }

    @Test func pauseShiftsTheRestOfThePlan() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 10 * second)
        try scheduler.pause()
        #expect(scheduler.state == .paused)
        #expect(clock.deadline == nil)
        clock.advance(by: 100 * second)
        #expect(scheduler.elapsed == 10 * second)
        #expect(scheduler.segmentRemaining == 20 * second)
        #expect(throws: TimerCommandError(.invalidState, "The workout is already paused.")) { try scheduler.pause() }
        try scheduler.resume()
        #expect(throws: TimerCommandError(.invalidState, "The workout is not paused.")) { try scheduler.resume() }
        #expect(clock.deadline == 130 * second)
        clock.advance(by: 20 * second)
        #expect(log.cues.map(\.at) == [0, 130 * second])
        clock.advance(by: 30 * second)
        #expect(log.entries.last?.at == 160 * second)
        #expect(log.last == .finished)
        let kinds = log.entries.map { entry -> String in
            switch entry.event {
            case .segmentStarted: "cue"
            case .paused: "paused"
            case .resumed: "resumed"
            case .finished: "finished"
            default: "other"
            }
        }
        #expect(kinds == ["cue", "paused", "resumed", "cue", "finished"])
    }

    @Test func skipEndsTheSegmentNowAndMovesTheSchedule() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk, 30s rest", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 10 * second)
        try scheduler.skip()
        #expect(log.cues.map(\.at) == [0, 10 * second])
        #expect(scheduler.current?.kind == "walk")
        #expect(clock.deadline == 40 * second)
        try scheduler.pause()
        try scheduler.skip()
        #expect(scheduler.current?.kind == "rest")
        #expect(scheduler.state == .paused)
        #expect(scheduler.elapsed == 60 * second)
        try scheduler.skip()
        #expect(log.last == .finished)
        #expect(throws: TimerCommandError(.notRunning, "No workout is running.")) { try scheduler.skip() }
    }

    @Test func stopIsFinalAndIdempotent() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 5 * second)
        scheduler.stop(.notification)
        scheduler.stop(.user)
        #expect(scheduler.elapsed == 5 * second)
        #expect(log.last == .stopped(.notification))
        #expect(log.entries.count == 2)
        #expect(clock.deadline == nil)
        clock.advance(by: 60 * second)
        #expect(log.entries.count == 2)
        #expect(throws: TimerCommandError(.notRunning, "No workout is running.")) { try scheduler.pause() }
        #expect(throws: TimerCommandError(.notRunning, "No workout is running.")) { try scheduler.resume() }
    }

    @Test func countdownPreCuesBeforeEachChange() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("countdown 3s\n30s run, 2s sprint, 30s walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 62 * second)
        let timeline = log.entries.map { entry -> String in
            switch entry.event {
            case .segmentStarted(let segment, _): "\(entry.at / second) \(segment.kind)"
            case .countdown(let current, let next, let remaining):
                "\(entry.at / second) \(current.kind)→\(next?.kind ?? "end") in \(remaining / second)"
            case .finished: "\(entry.at / second) finished"
            default: "other"
            }
        }
        // The 2 s sprint is shorter than the countdown: no pre-cue for it.
        #expect(timeline == ["0 run", "27 run→sprint in 3", "30 sprint", "32 walk", "59 walk→end in 3", "62 finished"])
    }

    @Test func afterASleepOnlyTheDueSegmentIsCued() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("countdown 5s\n10x(30s run, 30s walk)", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 15 * second)
        clock.jump(by: 95 * second)  // asleep from 15 s to 110 s: segments 1 and 2 were missed
        #expect(log.cues.map(\.segment.index) == [0, 3])
        #expect(log.cues.last?.at == 110 * second)
        #expect(scheduler.elapsed == 110 * second)
        #expect(clock.deadline == 115 * second)  // the countdown of segment 3, not a stale one
        clock.jump(by: 1000 * second)
        #expect(log.cues.count == 2)
        #expect(log.last == .finished)
    }

    @Test func resynchronizingAfterAWakeUpCuesTheDueSegmentAtOnce() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("10x(30s run, 30s walk)", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 15 * second)
        clock.sleep(for: 200 * second)  // asleep from 15 s to 215 s; the timer has not fired
        #expect(log.cues.count == 1)
        scheduler.resynchronize()
        #expect(log.cues.map(\.segment.index) == [0, 7])
        #expect(log.cues.last?.at == 215 * second)
        #expect(clock.deadline == 240 * second)
        scheduler.resynchronize()  // nothing is due: no cue, same deadline
        #expect(log.cues.count == 2)
        #expect(clock.deadline == 240 * second)
    }

    @Test func wakingInsideACountdownWindowSkipsThePreCue() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("countdown 5s\n30s run, 30s walk, 30s run", clock: clock, log: log)
        scheduler.start()
        clock.jump(by: 57 * second)
        #expect(log.cues.map(\.segment.index) == [0, 1])
        #expect(clock.deadline == 60 * second)
    }
}

@Suite struct NotificationButtonTests {
    @Test func buttonsDriveTheScheduler() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk, 30s rest", clock: clock, log: log)
        scheduler.start()
        try scheduler.perform(.skip)
        #expect(scheduler.current?.kind == "walk")
        try scheduler.perform(.pause)
        #expect(scheduler.state == .paused)
        #expect(throws: TimerCommandError(.invalidState, "The workout is already paused.")) {
            try scheduler.perform(.pause)
        }
        try scheduler.perform(.resume)
        try scheduler.perform(.stop)
        #expect(log.last == .stopped(.notification))
    }
}

@Suite struct WakeUpMarginTests {
    @Test func theMarginFollowsTheLatenessTailWithinBounds() {
        var margin = WakeUpMargin()
        for _ in 0..<200 { margin.observe(lateness: 50) }
        #expect(margin.microseconds == WakeUpMargin.minimum, "quiet wake-ups: the least margin")
        margin.observe(lateness: 1500)
        #expect(margin.microseconds == 1700, "a late wake-up raises it at once, with headroom")
        margin.observe(lateness: 100)
        #expect(margin.microseconds < 1700 && margin.microseconds > 1500, "and it decays slowly")
        for _ in 0..<200 { margin.observe(lateness: 100) }
        #expect(margin.microseconds == WakeUpMargin.minimum, "back to the least margin")
        margin.observe(lateness: 60_000)
        #expect(margin.microseconds == WakeUpMargin.maximum, "never more than the maximum")
        margin.observe(lateness: -400)
        #expect(margin.microseconds == WakeUpMargin.maximum, "an early wake-up counts as on time")
    }
}

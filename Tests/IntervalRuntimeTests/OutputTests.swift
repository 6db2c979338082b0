import Dispatch
import Glibc
import IntervalCore
import IntervalTestSupport
import Logging
import Testing

@testable import IntervalRuntime

/// The runtime's outputs, each driven by a real ``WorkoutSession`` on the virtual clock, with a recorder where the
/// output meets the outside world (the state file, hook processes, the log). Their wiring into the daemon is proved
/// by the desktop-level tests; their rules are proved here, in milliseconds.
@Suite struct OutputTests {
    /// A session on a manual clock that feeds `output`.
    static func session(_ output: any WorkoutOutput) -> (WorkoutSession, ManualTimerSource) {
        ManualTimerSource.session(now: 1_000_000, wallEpoch: 1_700_000_000_000_000, outputs: [output])
    }

    final class StateRecorder: WorkoutStateRecording, @unchecked Sendable {
        private let log = Locked<[String]>([])
        var entries: [String] { log.withLock { $0 } }

        func save(_ state: WorkoutState, durable: Durability) throws(FileError) -> PendingSync {
            let entry =
                "save \(state.state.rawValue) anchor=\(state.anchorBoot) paused=\(state.pausedElapsed ?? -1) "
                + "notification=\(state.notificationID)"
            log.withLock { $0.append(entry) }
            return PendingSync()
        }

        func removeState(durable: Durability) throws(FileError) -> PendingSync {
            log.withLock { $0.append("remove") }
            return PendingSync()
        }
    }

    @Test func theStateFileIsWrittenOnlyWhenTheScheduleChanges() throws {
        let recorder = StateRecorder()
        let writer = RecordWriter(logger: Logger(label: "test"))
        let output = StateOutput(store: recorder, bootID: "boot", writer: writer)
        let (session, clock) = Self.session(output)
        try session.start("4x(10s run, 10s walk)", origin: "", replace: false)
        clock.advance(by: 25_000_000)  // two ordinary cues
        try session.pause()
        clock.advance(by: 3_000_000)
        try session.resume()
        output.notificationShown(id: 7)
        output.notificationShown(id: 7)  // the same id again: nothing to write
        try session.skip()
        try session.restartSegment()
        clock.advance(by: 200_000_000)  // to the finish
        writer.drain()
        #expect(
            recorder.entries == [
                "save running anchor=1000000 paused=-1 notification=0",
                "save paused anchor=1000000 paused=25000000 notification=0",
                "save running anchor=4000000 paused=-1 notification=0",
                "save running anchor=4000000 paused=-1 notification=7",
                "save running anchor=-1000000 paused=-1 notification=7",
                "remove",
            ])
    }

    @Test func aStoppedWorkoutIsForgottenAndTheNextStartsAfresh() throws {
        let recorder = StateRecorder()
        let writer = RecordWriter(logger: Logger(label: "test"))
        let output = StateOutput(store: recorder, bootID: "boot", writer: writer)
        let (session, _) = Self.session(output)
        try session.start("1m run", origin: "", replace: false)
        output.notificationShown(id: 3)
        session.stop(.user)
        try session.start("1m walk", origin: "", replace: false)
        writer.drain()
        #expect(recorder.entries.count == 4)
        #expect(recorder.entries[2] == "remove")
        #expect(recorder.entries[3].hasSuffix("notification=0"), "a new workout has no notification yet")
    }

    @Test func whatWaitsForTheRecordsRunsOnceTheEarlierOnesAreInPlace() {
        let writer = RecordWriter(logger: Logger(label: "test"))
        let log = Locked<[String]>([])
        for name in ["state", "history"] {
            writer.write(failure: "test") {
                log.withLock { $0.append(name) }
                return PendingSync()
            }
        }
        writer.whenPlaced { log.withLock { $0.append("answer") } }
        writer.write(failure: "test") {
            log.withLock { $0.append("later") }
            return PendingSync()
        }
        writer.drain()
        #expect(log.withLock { $0 } == ["state", "history", "answer", "later"])
    }

    /// Waits, real time, for `wait` on `queue`, then for what was queued there meanwhile (a ``MemorySettler``'s work).
    static func settle(_ queue: DispatchQueue, for wait: DispatchTimeInterval) {
        let settled = DispatchSemaphore(value: 0)
        queue.asyncAfter(deadline: .now() + wait) { settled.signal() }
        #expect(settled.wait(timeout: .now() + .seconds(10)) == .success)
        queue.sync {}
    }

    @Test func theHeapIsTrimmedAfterAWorkoutEndsUnlessAnotherHasStarted() throws {
        let queue = DispatchQueue(label: "OutputTests.session")
        let trims = Locked(0)
        let settler = MemorySettler(
            queue: queue, trimQueue: queue, settling: .milliseconds(20), trim: { trims.withLock { $0 += 1 } },
            release: {})
        let (session, _) = Self.session(settler)
        // The settling of what ended so far is over, and any trim it asked for is done.
        let settle = { Self.settle(queue, for: .milliseconds(100)) }
        try queue.sync {
            try session.start("1m run", origin: "", replace: false)
            session.stop(.user)
        }
        settle()
        #expect(trims.withLock { $0 } == 1)
        try queue.sync {
            try session.start("1m run", origin: "", replace: false)
            try session.start("1m walk", origin: "", replace: true)
        }
        settle()
        #expect(trims.withLock { $0 } == 1, "the replaced workout's end trims nothing while the next runs")
    }

    @Test func pagesAreGivenBackAtAStartAndOnceBetweenCuesAfterItSettled() throws {
        let queue = DispatchQueue(label: "OutputTests.session")
        let releases = Locked(0)
        let settler = MemorySettler(
            queue: queue, trimQueue: queue, settling: .milliseconds(50), trim: {},
            release: { releases.withLock { $0 += 1 } })
        let (session, clock) = Self.session(settler)
        // Longer than the settler's wait for a next cue halfway there (40 ms at most here), and any release is done.
        let settle = { Self.settle(queue, for: .milliseconds(150)) }
        try queue.sync { _ = try session.start("20x(80ms run, 80ms walk)", origin: "", replace: false) }
        settle()
        #expect(releases.withLock { $0 } == 1, "the start gives back what ran before it")
        queue.sync { clock.advance(by: 80_000) }  // the first cue, 80 ms (of the session's clock) in
        settle()
        #expect(releases.withLock { $0 } == 2, "the first cue after the settling gives the start's pages back")
        queue.sync { clock.advance(by: 480_000) }  // three more cues
        settle()
        #expect(releases.withLock { $0 } == 2, "once per workout")
        try queue.sync { _ = try session.start("20x(80ms run, 80ms walk)", origin: "", replace: true) }
        queue.sync { clock.advance(by: 160_000) }
        settle()
        #expect(
            releases.withLock { $0 } == 4,
            "the next workout's start and its settling (the replaced one's end gives nothing back while it runs)")
    }

    @Test func eachWorkoutEndsAsOneHistoryRecord() throws {
        let directory = temporaryDirectory(prefix: "intervald-history")
        let store = StateStore(directory: directory)
        let writer = RecordWriter(logger: Logger(label: "test"))
        let history = HistoryOutput(store: store, writer: writer)
        let (session, clock) = Self.session(history)
        try session.start("name \"A\"\n2x(10s run, 10s walk)", origin: "", replace: false)
        clock.advance(by: 15_000_000)
        #expect(try store.history().records.isEmpty, "nothing is recorded while the workout runs")
        session.stop(.notification)
        try session.start("name \"B\"\n5s run", origin: "", replace: false)
        clock.advance(by: 5_000_000)
        let plan = try PlanParser.parse("1m walk", origin: "x.plan", defaultName: "C")
        history.recordInterrupted(
            WorkoutIdentity(id: "c", text: "1m walk", origin: "x.plan", startedWall: 0), plan: plan,
            elapsed: 20_000_000, endedWall: 60_000_000, track: WorkoutTrack())
        writer.drain()
        let records = try store.history().records
        #expect(records.map(\.plan) == ["A", "B", "C"])
        #expect(records.map(\.result) == [.stopped, .finished, .interrupted])
        #expect(records.map(\.reason) == ["notification", nil, nil])
        #expect(records.map(\.doneDuration) == [15_000_000, 5_000_000, 20_000_000])
    }

    /// A session on a virtual clock that records its workouts in a history of its own, in `directory`.
    static func recordedSession() -> (WorkoutSession, ManualTimerSource, StateStore, RecordWriter, String) {
        let directory = temporaryDirectory(prefix: "intervald-history")
        let store = StateStore(directory: directory)
        let writer = RecordWriter(logger: Logger(label: "test"))
        let (session, clock) = Self.session(HistoryOutput(store: store, writer: writer))
        return (session, clock, store, writer, directory)
    }

    /// Tabata skipped through in 15 s was recorded "4:04 of 12:00" done: skipped time is not done.
    @Test func skippedTimeIsRecordedApartFromTimeDone() throws {
        let (session, clock, store, writer, _) = Self.recordedSession()
        try session.start("name \"T\"\n2x(20s run, 10s rest)", origin: "", replace: false)
        clock.advance(by: 5_000_000)
        try session.skip()  // 15 s of run skipped
        clock.advance(by: 10_000_000)  // the rest, done
        try session.skip()  // the second run, 20 s, skipped at its start
        clock.advance(by: 2_000_000)
        session.stop(.user)
        writer.drain()
        let record = try #require(try store.history().records.first)
        #expect(record.doneDuration == 17_000_000)
        #expect(record.skipped == 35_000_000)
        #expect(record.timePerKind == ["run": 5_000_000, "rest": 12_000_000])
        #expect(!record.countsAsProgramDay)
    }

    @Test func aSleepDuringAWorkoutIsInItsRecordAndOthersSayNull() throws {
        let (session, clock, store, writer, directory) = Self.recordedSession()
        try session.start("name \"A\"\n10s run", origin: "", replace: false)
        session.pauseForSleep()
        session.noteSleep(microseconds: 7_000_000)
        try session.resume()
        clock.advance(by: 10_000_000)
        try session.start("name \"B\"\n5s run", origin: "", replace: false)
        clock.advance(by: 5_000_000)
        writer.drain()
        let records = try store.history().records
        #expect(records.map(\.slept) == [7_000_000, nil])
        #expect(records.map(\.doneDuration) == [10_000_000, 5_000_000], "the time asleep is not time done")
        let line = try #require(
            String(bytes: FileBytes.read(directory + "/history.jsonl", limit: 1 << 20), encoding: .utf8))
        #expect(line.contains("\"slept_us\":7000000") && line.contains("\"slept_us\":null"))
    }

    final class HookRecorder: HookLaunching {
        var runs: [(argv: [String], event: HookEvent)] = []

        func run(_ argv: [String], for event: HookEvent) -> pid_t? {
            runs.append((argv, event))
            return 1
        }
    }

    @Test func hooksRunAtEachCueAndAtTheEndWithTheirSegment() throws {
        let recorder = HookRecorder()
        var hooks = Settings.Hooks()
        hooks.onCue = ["say", "{label}"]
        hooks.onStop = ["stopped"]
        hooks.onFinish = ["done"]
        let (session, clock) = Self.session(HookOutput(hooks: hooks, runner: recorder, logger: Logger(label: "test")))
        try session.start("countdown 2s\n2x(10s run, 10s walk)", origin: "", replace: false)
        clock.advance(by: 12_000_000)  // the run's pre-cue, then the walk
        try session.pause()
        try session.resume()
        session.stop(.user)
        #expect(recorder.runs.map(\.argv) == [["say", "{label}"], ["say", "{label}"], ["stopped"]])
        #expect(recorder.runs.map(\.event.kind) == [.cue, .cue, .stop])
        #expect(recorder.runs.map { $0.event.segment?.kind } == ["run", "walk", "walk"])
        #expect(recorder.runs[0].event.next?.kind == "walk")
        #expect(recorder.runs[2].event.reason == .user)
        try session.start("1s run", origin: "", replace: false)
        clock.advance(by: 1_000_000)
        #expect(recorder.runs.suffix(2).map(\.argv) == [["say", "{label}"], ["done"]])
        #expect(recorder.runs.last?.event.segment == nil)
    }

    final class LogRecorder: LogHandler, @unchecked Sendable {
        let lines = Locked<[String]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.withLock { $0.append(([event.message.description] + fields).joined(separator: " ")) }
        }
    }

    @Test func theLogSaysOnceWhenAWorkoutStartsAndHowItEnds() throws {
        let recorder = LogRecorder()
        let logger = Logger(label: "test") { _ in recorder }
        let (session, clock) = Self.session(WorkoutLog(logger: logger))
        try session.start("name \"Drill\"\n3x(10s run)", origin: "", replace: false)
        try session.restartSegment()
        clock.advance(by: 15_000_000)
        session.stop(.shutdown)
        try session.start("name \"Short\"\n1s run", origin: "", replace: false)
        clock.advance(by: 1_000_000)
        #expect(
            recorder.lines.withLock { $0 } == [
                "Started a workout. duration=0:30 plan=Drill",
                "Stopped a workout. plan=Drill reason=shutdown",
                "Started a workout. duration=0:01 plan=Short",
                "Finished a workout. plan=Short",
            ])
    }
}

/// IdleExit on the virtual clock: armed while idle, re-armed after a finish or a stop, disarmed while a workout runs
/// or a Start is being parsed.
@Suite struct IdleExitTests {
    @Test func theDaemonExitsOnlyAfterTheDelayWithNothingToDo() throws {
        let exitClock = ManualTimerSource()
        var exits = 0
        let idleExit = IdleExit(delay: 120_000_000, timer: exitClock) { exits += 1 }
        let (session, clock) = OutputTests.session(idleExit)
        idleExit.rearm()  // start-up with nothing to resume
        #expect(exitClock.deadline == 120_000_000)
        exitClock.advance(by: 60_000_000)
        idleExit.startPending(true)  // a Start is being parsed
        #expect(exitClock.deadline == nil)
        try session.start("10s run", origin: "", replace: false)
        idleExit.startPending(false)
        #expect(exitClock.deadline == nil, "a workout runs")
        exitClock.advance(by: 600_000_000)
        clock.advance(by: 10_000_000)  // it finishes
        #expect(exitClock.deadline == exitClock.now + 120_000_000, "re-armed after the finish")
        try session.start("10s run", origin: "", replace: false)
        session.stop(.user)
        #expect(exitClock.deadline == exitClock.now + 120_000_000, "re-armed after a stop")
        #expect(exits == 0)
        exitClock.advance(by: 120_000_000)
        #expect(exits == 1)
    }

    @Test func aReminderKeepsTheDaemonForItsButtons() {
        let exitClock = ManualTimerSource()
        var exits = 0
        let idleExit = IdleExit(delay: 120_000_000, timer: exitClock) { exits += 1 }
        idleExit.rearm()
        idleExit.keep(for: 3_600_000_000)
        #expect(exitClock.deadline == 3_600_000_000, "the hour wins over the idle delay")
        exitClock.advance(by: 3_000_000_000)
        idleExit.keep(for: 60_000_000)
        #expect(exitClock.deadline == 3_600_000_000, "a shorter keep does not shorten a longer one")
        exitClock.advance(by: 600_000_000)
        #expect(exits == 1)
        idleExit.rearm()
        #expect(exitClock.deadline == exitClock.now + 120_000_000, "once past, the idle delay again")
    }

    @Test func zeroMeansNever() {
        let exitClock = ManualTimerSource()
        let idleExit = IdleExit(delay: nil, timer: exitClock) {}
        idleExit.rearm()
        #expect(exitClock.deadline == nil)
    }
}

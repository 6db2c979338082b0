import IntervalTestSupport
import Testing

@testable import IntervalCore

@Suite struct MediaPlayerTests {
    func makeSession(_ text: String) throws -> (WorkoutSession, ManualTimerSource, WorkoutSessionTests.Recorder) {
        let (session, clock, recorder) = WorkoutSessionTests().makeService()
        try session.start(text, origin: "", replace: false)
        return (session, clock, recorder)
    }

    @Test func restartingASegmentCuesItAgainAndMovesTheScheduleBack() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk, 30s rest", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 40 * second)
        try scheduler.restartSegment()
        // The walk, cued at 30 s, again at 40 s; it now ends 30 s later, and every later change moves with it.
        #expect(log.cues.map(\.at) == [0, 30 * second, 40 * second])
        #expect(log.cues.map(\.segment.kind) == ["run", "walk", "walk"])
        #expect(scheduler.elapsed == 30 * second)
        #expect(clock.deadline == 70 * second)
        clock.advance(by: 60 * second)
        #expect(log.cues.map(\.at) == [0, 30 * second, 40 * second, 70 * second])
        #expect(log.last == .finished)
        #expect(log.entries.last?.at == 100 * second)
    }

    @Test func restartingWhilePausedStaysPausedAtTheSegmentsStart() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("30s run, 30s walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 12 * second)
        try scheduler.pause()
        try scheduler.restartSegment()
        #expect(scheduler.state == .paused)
        #expect(scheduler.elapsed == 0)
        #expect(clock.deadline == nil)
        clock.advance(by: 5 * second)
        try scheduler.resume()
        #expect(clock.deadline == 17 * second + 30 * second)
        #expect(throws: TimerCommandError.notRunning) {
            scheduler.stop(.user)
            try scheduler.restartSegment()
        }
    }

    @Test func restartingOwesTheCountdownAgain() throws {
        let clock = ManualTimerSource()
        let log = EventLog()
        let scheduler = try makeScheduler("countdown 3s\n10s run\n10s walk", clock: clock, log: log)
        scheduler.start()
        clock.advance(by: 8 * second)  // past the run's pre-cue at 7 s
        try scheduler.restartSegment()
        clock.advance(by: 7 * second)
        let countdowns = log.entries.filter { if case .countdown = $0.event { true } else { false } }.map(\.at)
        #expect(countdowns == [7 * second, 15 * second])
    }

    @Test func controlsNeverFailAndDoWhatAMediaKeyMeans() throws {
        let (session, clock, recorder) = try makeSession("30s run, 30s walk, 30s rest")
        session.perform(MediaPlayer.Control.play)  // running: nothing
        #expect(session.scheduler?.state == .running)
        session.perform(MediaPlayer.Control.playPause)
        #expect(session.scheduler?.state == .paused)
        session.perform(MediaPlayer.Control.pause)  // paused: nothing
        session.perform(MediaPlayer.Control.playPause)
        #expect(session.scheduler?.state == .running)
        session.perform(MediaPlayer.Control.pause)
        session.perform(MediaPlayer.Control.play)
        #expect(session.scheduler?.state == .running)
        clock.advance(by: 5 * second)
        session.perform(MediaPlayer.Control.next)
        #expect(session.scheduler?.current?.kind == "walk")
        clock.advance(by: 5 * second)
        session.perform(MediaPlayer.Control.previous)
        #expect(session.status.segmentRemaining == UInt64(30 * second))
        session.perform(MediaPlayer.Control.stop)
        #expect(recorder.events.last?.0 == .stopped(.user))
        let count = recorder.events.count
        for control in MediaPlayer.Control.allCases { session.perform(control) }
        #expect(recorder.events.count == count)
    }

    @Test func theSnapshotShowsTheSegmentAsATrack() throws {
        let (session, clock, _) = try makeSession("name \"Tabata\"\n8x(20s work, 10s rest)")
        clock.advance(by: 35 * second)
        let snapshot = MediaPlayerSnapshot(
            status: session.status, segment: session.scheduler?.current, plan: session.scheduler?.plan)
        #expect(
            snapshot
                == MediaPlayerSnapshot(
                    playbackStatus: .playing, trackID: "/org/intervald/Timer1/Segment/2", title: "Work · 20 s",
                    artist: ["Tabata"], album: "Round 2 of 8", length: 20 * second, position: 5 * second))
        session.stop(.user)
        #expect(MediaPlayerSnapshot(status: session.status, segment: nil, plan: nil) == .stopped)
    }

    @Test func thePropertyTableTypesWhatBlueZAndKDEInsistOn() {
        #expect(MediaPlayerProperty.metadata.signature == "a{sv}")
        #expect(MediaPlayerProperty.position.signature == "x")
        #expect(MediaPlayerProperty.rate.signature == "d")
        #expect(MediaPlayerProperty.identity.interface == MediaPlayer.rootInterface)
        #expect(MediaPlayerProperty.named("Identity", interface: MediaPlayer.playerInterface) == nil)
        let emitting = MediaPlayerProperty.allCases.filter { $0.change == .emitsChange }
        #expect(emitting == [.playbackStatus, .metadata])
        for property in [MediaPlayerProperty.canPlay, .canPause, .canGoNext, .canGoPrevious, .canControl] {
            #expect(property.value(of: .stopped, artURL: nil) == .boolean(true))
        }
        #expect(MediaPlayerProperty.identity.value(of: .stopped, artURL: nil) != .string(""))
        #expect(MediaPlayer.trackID(segmentIndex: 12).hasPrefix("/org/mpris") == false)
        #expect(MediaPlayer.instanceService(pid: 42) == "org.mpris.MediaPlayer2.intervald.instance42")
    }
}

@Suite struct MediaPlayerPreparedSnapshotTests {
    @Test func theNextSegmentPreparedAheadIsWhatItsChangeShows() throws {
        let drill = try plan("name \"Drill\"\n3x(30s run, 30s walk)")
        let walk = try #require(drill.segment(at: 30_000_000))
        let status = TimerStatus(
            state: .running, planName: "Drill", planDuration: UInt64(drill.duration), segmentIndex: 1, segmentCount: 6,
            segmentKind: "walk", segmentLabel: "Walk", segmentDuration: 30_000_000, nextLabel: "Run",
            elapsed: 30_000_000,
            segmentRemaining: 30_000_000)
        let atTheChange = MediaPlayerSnapshot(status: status, segment: walk, plan: drill)
        let prepared = MediaPlayerSnapshot(playing: walk, plan: drill)
        #expect(prepared == atTheChange)
        #expect((prepared.title, prepared.album, prepared.position) == ("Walk · 30 s", "Round 1 of 3", 0))
    }
}

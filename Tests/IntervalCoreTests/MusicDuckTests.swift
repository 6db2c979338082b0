import Testing

@testable import IntervalCore

/// When the music is down and what each lowered stream goes back to (docs/reference.md §11), on a virtual clock.
@Suite struct MusicDuckTests {
    static let ms: Int64 = 1000

    @Test func anExpectedCueLowersTheMusicAheadAndItsSoundsEndBringsItBackWithAFade() {
        var timeline = DuckTimeline()
        timeline.expect(cueAt: 1000 * Self.ms)
        let beforeTheLead = timeline.level(at: 0)
        #expect(beforeTheLead == .normal)
        #expect(timeline.nextChange(after: 0) == 1000 * Self.ms - DuckTimeline.lead)
        let atTheLead = timeline.level(at: 1000 * Self.ms - DuckTimeline.lead)
        #expect(atTheLead == .lowered)
        timeline.hold(1, at: 1000 * Self.ms)
        let whileHeld = timeline.level(at: 1100 * Self.ms)
        #expect(whileHeld == .lowered)
        timeline.release(1)
        // The sound claimed the expected cue: the music comes back as soon as it ends, over the fade.
        let atTheEnd = timeline.level(at: 1250 * Self.ms)
        #expect(atTheEnd == .restoring(progress: 0))
        #expect(timeline.nextChange(after: 1250 * Self.ms) == 1275 * Self.ms)
        let halfway = timeline.level(at: 1350 * Self.ms)
        #expect(halfway == .restoring(progress: 0.5))
        let afterTheFade = timeline.level(at: 1450 * Self.ms)
        #expect(afterTheFade == .normal)
        #expect(timeline.nextChange(after: 1450 * Self.ms) == nil)
    }

    @Test func anExpectedCueWhoseSoundNeverCameLetsTheMusicBackByItself() {
        var timeline = DuckTimeline()
        timeline.expect(cueAt: 1000 * Self.ms)
        let atTheCue = timeline.level(at: 1000 * Self.ms)
        #expect(atTheCue == .lowered)
        let lapse = 1000 * Self.ms + DuckTimeline.expectedLength
        #expect(timeline.nextChange(after: 1000 * Self.ms) == lapse)
        let atTheLapse = timeline.level(at: lapse)
        #expect(atTheLapse == .restoring(progress: 0))
        let afterTheFade = timeline.level(at: lapse + DuckTimeline.fadeLength)
        #expect(afterTheFade == .normal)
    }

    @Test func aCountdownsPipsKeepTheMusicDownBetweenThemButSegmentsApartDoNot() {
        var timeline = DuckTimeline()
        for second in [1, 2, 3] as [Int64] { timeline.expect(cueAt: second * 1000 * Self.ms) }
        // Each pip holds the music for 60 ms, as the engine does: a hold, the level, a release, the level.
        var levels: [DuckTimeline.Level] = []
        for (token, second) in zip(1..., [1, 2, 3] as [Int64]) {
            timeline.hold(token, at: second * 1000 * Self.ms)
            levels.append(timeline.level(at: second * 1000 * Self.ms))
            timeline.release(token)
            levels.append(timeline.level(at: (second * 1000 + 60) * Self.ms))
            levels.append(timeline.level(at: (second * 1000 + 900) * Self.ms))
        }
        // 880 ms from a pip's end to the next one's lead: bridged; after the last, the fade.
        #expect(levels.dropLast(2).allSatisfy { $0 == .lowered }, "\(levels)")
        #expect(levels.suffix(2) == [.restoring(progress: 0), .normal])

        var apart = DuckTimeline()
        apart.expect(cueAt: 3000 * Self.ms)
        apart.hold(1, at: 0)
        let held = apart.level(at: 0)
        apart.release(1)
        let afterTheSound = apart.level(at: 250 * Self.ms)
        #expect(held == .lowered)
        #expect(afterTheSound == .restoring(progress: 0), "2.7 s to the next cue: not bridged")
    }

    @Test func aPauseBringsTheMusicBackOverTheFadeAndASkipDropsOnlyTheCuesAhead() {
        var timeline = DuckTimeline()
        timeline.expect(cueAt: 100 * Self.ms)
        timeline.expect(cueAt: 5000 * Self.ms)
        timeline.hold(1, at: 100 * Self.ms)
        let whilePlaying = timeline.level(at: 100 * Self.ms)
        #expect(whilePlaying == .lowered)
        timeline.dropExpected(at: 100 * Self.ms)
        let afterTheSkip = timeline.level(at: 200 * Self.ms)
        #expect(afterTheSkip == .lowered, "the sound playing holds it")
        timeline.releaseAll(at: 200 * Self.ms)
        let atThePause = timeline.level(at: 200 * Self.ms)
        #expect(atThePause == .restoring(progress: 0))
        let afterTheFade = timeline.level(at: 200 * Self.ms + DuckTimeline.fadeLength)
        #expect(afterTheFade == .normal)
        let next = timeline.nextChange(after: 200 * Self.ms + DuckTimeline.fadeLength)
        #expect(next == nil, "the cue 5 s ahead was dropped too")
    }

    /// The workout's end (a stop mid-sound, the daemon's exit) put the music back in one step, a click 7.2 dB in 20 ms,
    /// where a cue's return takes the fade.
    @Test func theWorkoutsEndBringsTheMusicBackOverTheSameFadeAsACuesReturn() {
        func levels(ending end: (inout DuckTimeline) -> Void) -> [DuckTimeline.Level] {
            var timeline = DuckTimeline()
            timeline.hold(1, at: 0)
            _ = timeline.level(at: 0)
            end(&timeline)
            let step = DuckTimeline.fadeLength / DuckTimeline.fadeSteps
            var seen: [DuckTimeline.Level] = []
            var now: Int64 = 500 * Self.ms
            while true {
                seen.append(timeline.level(at: now))
                guard let next = timeline.nextChange(after: now) else { break }
                #expect(next - now <= step, "the fade's steps come at most \(step) µs apart")
                now = next
            }
            return seen
        }
        let cuesReturn = levels { $0.release(1) }
        let end = levels { $0.releaseAll(at: 500 * Self.ms) }
        #expect(cuesReturn.count == Int(DuckTimeline.fadeSteps) + 1)
        #expect(cuesReturn.last == .normal)
        #expect(end == cuesReturn)
    }

    @Test func theEndDuringAFadeLetsItGoOnInsteadOfStartingAgain() {
        var timeline = DuckTimeline()
        timeline.hold(1, at: 0)
        _ = timeline.level(at: 0)
        timeline.release(1)
        _ = timeline.level(at: 100 * Self.ms)
        timeline.releaseAll(at: 150 * Self.ms)
        let later = timeline.level(at: 200 * Self.ms)
        #expect(later == .restoring(progress: 0.5))
        timeline.reset()
        let afterAReset = timeline.level(at: 210 * Self.ms)
        #expect(afterAReset == .normal, "what is still down at the exit goes back at once")
    }

    @Test func aHoldWhoseEndNeverCameLapses() {
        var timeline = DuckTimeline()
        timeline.hold(1, at: 0)
        let held = timeline.level(at: 0)
        #expect(held == .lowered)
        #expect(timeline.nextChange(after: 0) == DuckTimeline.holdLimit)
        let atTheLimit = timeline.level(at: DuckTimeline.holdLimit)
        #expect(atTheLimit == .restoring(progress: 0))
    }

    @Test func aDuckToThirtyPercentTakesTenAndAHalfDecibelsOff() {
        let factor = StreamVolume.factor(forLoudnessPercent: 30)
        // Loudness goes as the cube of the volume's fraction.
        #expect(abs(factor * factor * factor - 0.3) < 1e-9)
        #expect(StreamVolume.factor(forLoudnessPercent: 100) == 1)
        #expect(StreamVolume.factor(forLoudnessPercent: 0) == 0)
    }

    @Test func streamsGoBackToTheirVolumeUnlessTheUserChangedIt() {
        var ducked = DuckedStreams(loudnessPercent: 30)
        let music = PlaybackStream(index: 4, volume: [65536, 32768], role: "music")
        let lowered = ducked.lower(music)
        #expect(lowered == [43872, 21936])
        let loweredAgain = ducked.lower(music)
        #expect(loweredAgain == nil, "lowered once")
        let roundedIsTheUsers = ducked.observe(4, volume: [43900, 21950])
        #expect(!roundedIsTheUsers, "the server's rounding of ours")
        let halfway = ducked.volumes(restored: 0.5)
        #expect(halfway.map(\.volume) == [[54704, 27352]])
        let lateIsTheUsers = ducked.observe(4, volume: [43872, 21936])
        #expect(!lateIsTheUsers, "a change of ours the server reports late")
        let restored = ducked.restoreAll()
        #expect(restored.map(\.volume) == [[65536, 32768]])

        let video = PlaybackStream(index: 5, volume: [65536], role: "video")
        _ = ducked.lower(video)
        let isTheUsers = ducked.observe(5, volume: [20000])
        #expect(isTheUsers, "the user's own volume")
        let restoredAfterTheUser = ducked.restoreAll()
        #expect(restoredAfterTheUser.isEmpty, "and it is kept")
    }

    /// A restarted daemon puts back a stream its crashed predecessor lowered, and the cue of the resumed segment lowers
    /// it again before the server has reported the restore: that report is ours. (Taken for the user's, the stream was
    /// forgotten, and the music stayed down after the cue and the workout: seen in test_ducking on PipeWire.)
    @Test func aRestoreStillInFlightWhenTheStreamIsLoweredAgainIsNotTheUsersChange() {
        var ducked = DuckedStreams(loudnessPercent: 30)
        let restored: [UInt32] = [65536, 32768]
        let music = PlaybackStream(index: 4, volume: restored, role: "music")
        let lowered = ducked.lower(music, inFlight: restored)
        #expect(lowered == [43872, 21936])
        let restoreReported = ducked.observe(4, volume: restored)
        #expect(!restoreReported, "the restore of ours, reported after the lowering was asked for")
        let loweredReported = ducked.observe(4, volume: [43872, 21936])
        #expect(!loweredReported)
        let back = ducked.restoreAll()
        #expect(back.map(\.volume) == [restored], "the stream goes back after the cue")

        let loweredAgain = ducked.lower(music)
        #expect(loweredAgain != nil)
        let withoutARestore = ducked.observe(4, volume: restored)
        #expect(withoutARestore, "without the restore in flight, the same report is the user's")
    }

    @Test func aStreamThatStartsAtARememberedLoweredVolumeGoesBackToItsSiblingsVolume() {
        var ducked = DuckedStreams(loudnessPercent: 30)
        let first = PlaybackStream(index: 1, volume: [65536], restoreID: "sink-input-by-media-role:music")
        let lowered = ducked.lower(first) ?? []
        // PipeWire reports a new stream at 0 until its session manager sets the volume it remembers for the role.
        let second = PlaybackStream(index: 2, volume: [0], restoreID: "sink-input-by-media-role:music")
        let setAtZero = ducked.lower(second)
        #expect(setAtZero == nil)
        #expect(ducked.entries[2] == nil)
        let setAtRemembered = ducked.lower(PlaybackStream(index: 2, volume: lowered, restoreID: first.restoreID))
        #expect(setAtRemembered == nil)
        let restoredBoth = ducked.restoreAll()
        #expect(restoredBoth.map(\.volume) == [[65536], [65536]])
    }

    @Test func callsCuesScreenReadersAndOurOwnStreamsAreNeverLowered() {
        let own: Int32 = 77
        #expect(PlaybackStream(index: 1, volume: [1], role: "music").isLowered(byDucksOf: own))
        #expect(PlaybackStream(index: 1, volume: [1]).isLowered(byDucksOf: own))
        for role in ["phone", "event", "a11y"] {
            #expect(!PlaybackStream(index: 1, volume: [1], role: role).isLowered(byDucksOf: own))
        }
        #expect(!PlaybackStream(index: 1, volume: [1], processID: own).isLowered(byDucksOf: own))
        #expect(
            !PlaybackStream(index: 1, volume: [1], applicationName: "speech-dispatcher-espeak-ng").isLowered(
                byDucksOf: own))
    }

    @Test func aCrashedDucksStreamIsRestoredOnlyWhileItHasAVolumeTheDuckLeft() {
        let entry = DuckedStreams.Entry(processID: 9, original: [65536], lowered: [43872])
        #expect(DuckedStreams.isOurs([43872], recorded: entry))
        #expect(DuckedStreams.isOurs([54000], recorded: entry), "mid-fade")
        #expect(!DuckedStreams.isOurs([65536], recorded: entry), "back already")
        #expect(!DuckedStreams.isOurs([20000], recorded: entry), "the user's")
    }
}

import IntervalCore
import Testing

@Suite struct TrayItemTests {
    private let plan = try? PlanParser.parse("2x(30s run, 1m walk)", origin: "", defaultName: "Galloway")

    /// The status `elapsed` µs into the plan, in `state`.
    private func status(at elapsed: Int64, _ state: TimerState = .running) throws -> (TimerStatus, Segment, Plan) {
        let plan = try #require(plan)
        let segment = try #require(plan.segment(at: elapsed))
        var status = TimerStatus.idle
        (status.state, status.planName, status.planDuration) = (state, plan.name, UInt64(plan.duration))
        (status.segmentKind, status.segmentLabel, status.segmentDuration) =
            (segment.kind, segment.label, UInt64(segment.duration))
        (status.elapsed, status.segmentRemaining) = (UInt64(elapsed), UInt64(segment.end - elapsed))
        return (status, segment, plan)
    }

    @Test func showsTheCueTheTimeLeftAndWhatComesNext() throws {
        let (running, segment, plan) = try status(at: 6_500_000)
        let view = try #require(TrayView(status: running, segment: segment, plan: plan, restKinds: ["walk"]))
        #expect(view.title == "Run · 0:24 — next: Walk 1:00")
        #expect(view.detail == "Galloway · round 1 of 2")
        #expect(view.label == "0:24")
        #expect(view.labelGuide == "0:00")
        #expect(view.tone == .work)
        #expect(view.iconName == "org.intervald.Timer1-work")
        #expect(!view.paused)
    }

    @Test func restIsCoolPausedIsGreyAndTheLastSegmentSaysSo() throws {
        let (walking, walk, plan) = try status(at: 130_000_000)
        let rest = try #require(TrayView(status: walking, segment: walk, plan: plan, restKinds: ["walk"]))
        #expect(rest.tone == .rest)
        #expect(rest.title == "Walk · 0:50 — last one")
        let (paused, run, _) = try status(at: 1_000_000, .paused)
        let still = try #require(TrayView(status: paused, segment: run, plan: plan, restKinds: ["walk"]))
        #expect(still.tone == .paused)
        #expect(still.paused)
        #expect(still.title == "Run · 0:29 — paused")
        #expect(TrayView(status: .idle, segment: run, plan: plan, restKinds: []) == nil)
    }

    @Test func theLabelGuideIsAsWideAsTheSegmentsLongestCountdown() throws {
        let plan = try PlanParser.parse("1h5m run", origin: "", defaultName: "Long")
        let segment = try #require(plan.segment(at: 0))
        var status = TimerStatus.idle
        (status.state, status.segmentDuration, status.segmentRemaining) = (.running, 3_900_000_000, 59_000_000)
        let view = try #require(TrayView(status: status, segment: segment, plan: plan, restKinds: []))
        #expect(view.labelGuide == "0:00:00")
        #expect(view.label == "0:59")
    }

    /// A tenth of a second after each shown second changes, never within its last second, never on a whole second
    /// before the change (where the cue and the countdown pips are).
    @Test func refreshesOffTheCuesInstants() {
        let change: ClockInstant = 100_000_000
        #expect(TrayRefresh.next(after: change - 30_000_000, change: change) == change - 29_900_000)
        #expect(TrayRefresh.next(after: change - 29_900_000, change: change) == change - 28_900_000)
        #expect(TrayRefresh.next(after: change - 29_950_000, change: change) == change - 29_900_000)
        #expect(TrayRefresh.next(after: change - 1_500_000, change: change) == change - 900_000)
        #expect(TrayRefresh.next(after: change - 900_000, change: change) == nil)
        #expect(TrayRefresh.next(after: change + 5, change: change) == nil)
        var now = change - 10_000_000
        var instants: [ClockInstant] = []
        while let next = TrayRefresh.next(after: now, change: change) {
            #expect(next > now)
            #expect((change - next) % 1_000_000 == 900_000)
            instants.append(next)
            now = next
        }
        #expect(instants.count == 10)
    }

    @Test func theMenuPausesSkipsStopsAndOpensTheWindow() throws {
        #expect(TrayMenu.children(of: TrayMenu.root) == [1, 2, 3, 4])
        #expect(TrayMenu.children(of: 3).isEmpty)
        let pause = try #require(TrayMenu.properties(of: 1, menu: TrayMenu.State()))
        #expect(pause.first?.value == .string("Pause"))
        let resume = try #require(TrayMenu.properties(of: 1, menu: TrayMenu.State(paused: true)))
        #expect(resume.first?.value == .string("Resume"))
        #expect(TrayMenu.properties(of: 4, menu: TrayMenu.State())?.first?.value == .string("Open Interval Timer"))
        #expect(TrayMenu.properties(of: 5, menu: TrayMenu.State()) == nil)
        #expect(TrayMenu.properties(of: -1, menu: TrayMenu.State()) == nil)
        #expect(TrayMenu.action(.pauseResume) == .control(.playPause))
        #expect(TrayMenu.action(.skip) == .control(.next))
        #expect(TrayMenu.action(.stop) == .control(.stop))
        #expect(TrayMenu.action(.openWindow) == .openWindow)
    }

    @Test(arguments: WorkoutDisplay.Tone.allCases) func iconPixmapsAreTheDiscInTheTonesColour(
        _ tone: WorkoutDisplay.Tone
    ) {
        for size in TrayIcon.pixmapSizes {
            let pixels = TrayIcon.pixmap(tone, size: size)
            #expect(pixels.count == size * size * 4)
            func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> { pixels[(y * size + x) * 4..<(y * size + x + 1) * 4] }
            // The corners are outside the disc; the rim is opaque in the tone's colour; the centre is white.
            #expect(pixel(0, 0).first == 0)
            #expect(pixel(size - 1, size - 1).first == 0)
            let rim = Array(pixel(size / 2, size / 10))
            let colour = [UInt8](
                [0xc6, 0x46, 0x00, 0x1c, 0x71, 0xd8, 0x5e, 0x5c, 0x64][
                    WorkoutDisplay.Tone.allCases.firstIndex(of: tone).map { $0 * 3 }.map { $0..<$0 + 3 } ?? 0..<3])
            #expect(rim == [255] + colour)
            let centre = Array(pixel(size / 2, size / 2))
            if tone == .paused {
                #expect(centre == [255] + colour, "between the bars")
            } else {
                #expect(centre == [255, 255, 255, 255])
            }
        }
    }
}

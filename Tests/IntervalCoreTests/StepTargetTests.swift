import IntervalTestSupport
import Testing

@testable import IntervalCore

/// A step's target after `@` (docs/plan-language.md): a pace, a power (`@ 200W`, `@ 300-310W`) or a heart-rate range
/// (`@ 130-150bpm`); written back, said in rows, sent to and read from FIT workouts, and the cue of a heart out of its
/// range.
@Suite struct StepTargetTests {
    @Test func aStepHasAPaceAPowerOrAHeartRateRange() throws {
        let parsed = try plan(
            #"4m run "Tempo" @ 5:00/km, 20m bike @ 200W, 5m bike @ 300-310 W, 10m run @ 130-150bpm, 1m walk"#)
        let targets = parsed.segments.map(\.target)
        #expect(targets[0]?.pace?.secondsPerKilometre == 300)
        #expect(targets[1] == .power(try #require(PowerTarget(watts: 200))))
        #expect(targets[2]?.power == PowerTarget(low: 300, high: 310) && targets[2]?.power?.watts == 305)
        #expect(targets[3]?.heartRateRange == HeartRateRange(low: 130, high: 150))
        #expect(targets[4] == nil)
        #expect(parsed.segments.map { $0.target?.planText ?? "" } == ["5:00/km", "200W", "300-310W", "130-150bpm", ""])
        #expect(PowerTarget(low: 301, high: 310)?.watts == 306, "the middle, rounded half up")
    }

    /// Only a pace says how fast: a distance at a power or in a heart-rate range is a step the person ends, and gives
    /// the plan no distance.
    @Test func onlyAPaceTimesADistance() throws {
        let parsed = try plan("0.4km run @ 5:00/km, 0.4km bike @ 200W, 1km run @ 130-150bpm")
        #expect(parsed.segments.map(\.isOpen) == [false, true, true])
        #expect(parsed.duration == 2 * minute && parsed.openStepCount == 2)
        #expect(PlanEstimate(try plan("10m bike @ 200W")).distance == nil)
        #expect(abs((PlanEstimate(try plan("10m run @ 6:00/km")).distance ?? 0) - 1666.67) < 0.01)
    }

    @Test func theWriterWritesTargetsBackExactly() throws {
        let text =
            #"name "test", 20m bike @ 200W, 4x(5m bike "Hard" @ 300-310W, 10m run @ 130-150bpm), 0.4km run @ 4:30/km"#
        let parsed = try plan(text)
        #expect(PlanWriter.text(for: parsed, layout: .oneLine) == text)
        #expect(same(try plan(PlanWriter.text(for: parsed)), parsed))
        for target in parsed.segments.compactMap(\.target) {
            #expect(StepTarget(planText: target.planText) == target, "SegmentTarget reads back")
        }
        #expect(StepTarget(planText: "") == nil && StepTarget(planText: "200W 5") == nil)
    }

    @Test func theEditorKeepsTheTargetAsWrittenAndRowsSayItForAPerson() throws {
        let draft = try PlanDraft(parsing: "10m run @ 130-150 bpm\n20m bike @ 200W")
        let steps = draft.items.compactMap { if case .step(let step) = $0.content { step } else { nil } }
        #expect(steps.map(\.target) == ["130-150 bpm", "200W"])
        #expect(PlanDraft.Step(duration: "0.4km", kind: "bike", target: "200W").untilDone == "0.4 km, until Done")
        let rows = PlanReport.rows(for: try plan("10m run @ 130-150bpm, 20m bike @ 300-310W"))
        #expect(
            rows == [
                .step(title: "Run · 130–150 bpm", duration: "10:00"),
                .step(title: "Bike · 300–310 W", duration: "20:00"),
            ])
    }

    @Test(arguments: [
        ("1m run @ 0W", "1:10: error: a power must be from 1 to 2000 W"),
        ("1m run @ 5000W", "1:10: error: a power must be from 1 to 2000 W"),
        ("1m run @ 99999999999999999999999W", "1:10: error: a power must be from 1 to 2000 W"),
        ("1m run @ 310-300W", "1:10: error: the lower value comes first: 300-310W"),
        ("1m run @ 150-130bpm", "1:10: error: the lower value comes first: 130-150bpm"),
        ("1m run @ 20-150bpm", "1:10: error: a heart rate must be from 30 to 250 beats per minute"),
        ("1m run @ 140bpm", "1:10: error: a heart-rate target is a range, as in 135-145bpm"),
        ("1m run @ 200.5W", "1:10: error: a power or a heart rate is a whole number, as in 200W or 130-150bpm"),
        ("1m run @ 130-bpm", "1:14: error: expected a number after '-', as in 130-150bpm or 300-310W"),
        ("1m run @ 130-150", "1:17: error: missing unit after '130-150' (expected W or bpm)"),
        ("1m run @ 5-6/km", "1:13: error: unknown unit '/km' for a range (expected W or bpm)"),
        (
            "1m run @ 200",
            "1:13: error: missing unit after '200' (expected a pace unit such as /km, W for a power or bpm for a "
                + "range of heart rates)"
        ),
        ("1m run @ 200 apples", "1:14: error: unknown pace unit 'apples'"),
    ])
    func aMistypedTargetIsLocated(text: String, expected: String) {
        let said = diagnostic(text)?.description ?? ""
        #expect(said.hasPrefix("<inline>:" + expected), "\(said)")
    }

    @Test func aStepHasAtMostOneTarget() {
        #expect(diagnostic("1m run @ 200W @ 5:00/km")?.description.hasPrefix("<inline>:1:15:") == true)
    }

    /// Text made of a target's characters never traps the parser, and whatever parses is written back to the same
    /// targets.
    @Test func anyTargetTextParsesOrIsRefusedAndWhatParsesComesBack() throws {
        let alphabet = Array("0123456789-.:/ Wbpmkh")
        var random = SplitMix64(state: 22)
        var parsedCount = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 1...9, using: &random)
            let target = String((0..<length).compactMap { _ in alphabet.randomElement(using: &random) })
            guard let parsed = try? plan("1m run @ \(target)") else { continue }
            parsedCount += 1
            let again = try plan(PlanWriter.text(for: parsed))
            #expect(again.segments.map(\.target) == parsed.segments.map(\.target), "\(target)")
        }
        #expect(parsedCount > 0)
    }

    // MARK: FIT

    @Test func targetsAreTheFITTargetTypesWithTheirOffsets() throws {
        let export = try FITWorkout.encode(
            plan("10m run @ 130-150bpm, 20m bike @ 200W, 5m bike @ 300-310W, 1m walk"), restKinds: [], created: 0)
        let steps = try FIT.decode(export.bytes).filter { $0.global == 27 }
        // target type, target value, custom low and high
        #expect(
            steps.map { [$0[3], $0[4], $0[5], $0[6]].map { $0?.description ?? "-" } } == [
                ["1", "0", "230", "250"], ["4", "0", "1200", "1200"], ["4", "0", "1300", "1310"], ["2", "0", "-", "-"],
            ])
        #expect(
            PlanWriter.text(for: try FITWorkout.decode(export.bytes, fallbackName: "x"), layout: .oneLine)
                == #"name "test", 10m run @ 130-150bpm, 20m bike @ 200W, 5m bike @ 300-310W, 1m walk"#)
    }

    /// Heart rates given as a percentage of the maximum become bpm when the maximum is known, and stay said in the
    /// label when it is not.
    @Test func percentagesOfTheMaximumHeartRateBecomeBeatsWithAMaximum() throws {
        let steps = [
            FITWorkoutTests.step(0, (0, 600_000), intensity: 0, range: (70, 80), targetType: 1),
            FITWorkoutTests.step(1, (3, 85), intensity: 0),
            FITWorkoutTests.step(2, (2, 60), intensity: 4),
        ]
        let known = try FITWorkout.decode(FITWorkoutTests.garminLike(steps), fallbackName: "x", maxHeartRate: 190)
        #expect(
            FITWorkoutTests.items(PlanWriter.text(for: known)) == [
                "10m work @ 133-152bpm", "hr>162 work", "hr<114 recovery",
            ])
        #expect(
            FITWorkoutTests.items(try FITWorkoutTests.imported(steps)) == [
                "10m work \"Work · heart rate 70–80% of maximum\"",
                "open work \"Work · until heart rate above 85% of maximum\"",
                "open recovery \"Recovery · until heart rate below 60% of maximum\"",
            ])
    }

    // MARK: The cue of a heart out of its range

    /// Runs `text` with the cues of the heart out of its range collected; `measure(session, clock, cues)` drives it.
    func cues(
        _ text: String, _ measure: (WorkoutSession, ManualTimerSource, () -> [String]) throws -> Void
    ) throws {
        let (session, clock) = ManualTimerSource.session()
        var given: [String] = []
        session.onHeartRateCue = { given.append("\(clock.now / second): \($0.text)") }
        try session.start(text, origin: "", replace: false)
        try measure(session, clock) { given }
    }

    /// A measurement a second, from the clock's second `from` to `to` inclusive.
    func measure(_ bpm: Int, from: Int64, to: Int64, _ session: WorkoutSession, _ clock: ManualTimerSource) {
        for instant in from...to {
            clock.advance(by: instant * second - clock.now)
            session.heard(heartRate: bpm)
        }
    }

    @Test func tenSecondsOutOfTheRangeGiveOneCueAndNoneForThirtySeconds() throws {
        try cues("2m run @ 130-150bpm, 1m walk") { session, clock, given in
            measure(162, from: 0, to: 39, session, clock)
            #expect(given() == ["10: Heart rate high, 162"])
            measure(163, from: 40, to: 40, session, clock)
            #expect(given() == ["10: Heart rate high, 162", "40: Heart rate high, 163"], "still out after 30 s")
        }
    }

    @Test func theTenSecondsAreContinuousOnOneSideAndInTheStep() throws {
        try cues("2m run @ 130-150bpm, 2m walk @ 100-120bpm") { session, clock, given in
            measure(162, from: 0, to: 5, session, clock)
            measure(140, from: 6, to: 6, session, clock)
            measure(162, from: 7, to: 12, session, clock)
            measure(118, from: 13, to: 22, session, clock)
            #expect(given().isEmpty, "back inside, then on the other side: each starts the ten seconds again")
            measure(118, from: 23, to: 23, session, clock)
            #expect(given() == ["23: Heart rate low, 118"])
            measure(160, from: 115, to: 119, session, clock)
            measure(160, from: 120, to: 129, session, clock)
            #expect(given().count == 1, "the next step's ten seconds start in it")
            measure(160, from: 130, to: 130, session, clock)
            #expect(given().last == "130: Heart rate high, 160")
        }
    }

    @Test func noCueWhilePausedNorInAStepWithoutARange() throws {
        try cues("1m run @ 130-150bpm, 1m walk") { session, clock, given in
            measure(162, from: 0, to: 5, session, clock)
            try session.pause()
            measure(162, from: 6, to: 20, session, clock)
            try session.resume()
            measure(162, from: 21, to: 30, session, clock)
            #expect(given().isEmpty, "the ten seconds run while the workout does")
            measure(162, from: 31, to: 31, session, clock)
            #expect(given() == ["31: Heart rate high, 162"])
            try session.skip()
            measure(190, from: 32, to: 60, session, clock)
            #expect(given().count == 1)
        }
    }

    @Test func aLostStrapStartsTheTenSecondsAgain() throws {
        try cues("1m run @ 130-150bpm") { session, clock, given in
            measure(162, from: 0, to: 8, session, clock)
            session.lostHeartRate()
            measure(162, from: 9, to: 18, session, clock)
            #expect(given().isEmpty)
            measure(162, from: 19, to: 19, session, clock)
            #expect(given() == ["19: Heart rate high, 162"])
        }
    }
}

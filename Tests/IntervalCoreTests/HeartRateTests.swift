import IntervalTestSupport
import Testing

@testable import IntervalCore

/// Steps a heart rate ends (`hr<120 walk`, docs/plan-language.md) and the bytes a heart-rate strap notifies (GATT
/// 0x2A37).
@Suite struct HeartRateTests {
    static let second: Int64 = 1_000_000

    @Test func aHeartRateInTheDurationsPlaceIsABoundTheTotalsCountWithTheOpenSteps() throws {
        let parsed = try plan(#"5m walk, 6x(2m run, hr<120 walk "Recover"), hr>150bpm run, 5m walk"#)
        let segments = Array(parsed.segments)
        #expect(segments.count == 15)
        #expect(segments[2].heartRateBound == HeartRateBound(.below, bpm: 120))
        #expect(segments[2].isOpen && segments[2].duration == 0 && segments[2].label == "Recover")
        #expect(segments[13].heartRateBound == HeartRateBound(.above, bpm: 150) && segments[13].isOpen)
        #expect(segments[1].heartRateBound == nil && !segments[1].isOpen)
        #expect(parsed.duration == 22 * 60 * Self.second && parsed.openStepCount == 7)
        #expect(PlanEstimate(parsed).kinds.first { $0.kind == "walk" }?.openSteps == 6)
    }

    @Test func theBoundIsReachedStrictlyPastIt() throws {
        let below = try #require(HeartRateBound(.below, bpm: 120))
        #expect(below.isReached(by: 119) && !below.isReached(by: 120) && !below.isReached(by: 121))
        let above = try #require(HeartRateBound(.above, bpm: 160))
        #expect(above.isReached(by: 161) && !above.isReached(by: 160))
    }

    @Test func theWriterTheDraftAndTheRowsSayTheBound() throws {
        let parsed = try plan(#"hr<120 walk "Recover", hr>160 run"#)
        #expect(PlanWriter.text(for: parsed, layout: .oneLine) == #"name "test", hr<120 walk "Recover", hr>160 run"#)
        let again = try plan(PlanWriter.text(for: parsed))
        #expect(again.segments.map(\.heartRateBound) == parsed.segments.map(\.heartRateBound))
        #expect(PlanDraft.Step(duration: "hr<120", kind: "walk").untilDone == "until heart rate below 120")
        #expect(
            PlanReport.rows(for: parsed).first == .step(title: "Recover · Walk", duration: "until heart rate below 120")
        )
    }

    @Test func withoutAStrapTheCueSaysTheBoundAndThatDoneEndsIt() throws {
        let parsed = try plan("hr<120 walk, 1m run")
        let first = try #require(parsed.segment(at: 0))
        #expect(WorkoutPresenter.whenDone(first) == "until heart rate below 120 · Done when you are ready")
    }

    @Test(arguments: [
        ("hr<walk", "1:4: error: expected a heart rate in beats per minute after 'hr<' or 'hr>', as in hr<120"),
        ("hr=120 walk", "1:3: error: expected '<' or '>' after 'hr', as in hr<120 walk"),
        ("hr<20 walk", "1:4: error: a heart rate must be from 30 to 250 beats per minute"),
        ("hr<300 walk", "1:4: error: a heart rate must be from 30 to 250 beats per minute"),
        ("hr<120.5 walk", "1:4: error: a heart rate is a whole number of beats per minute"),
        ("hr<120 %", "1:8: error: expected a kind after the duration, such as run, walk or rest"),
        ("hr<120x walk", "1:7: error: a heart rate takes no unit but bpm, as in hr<120 or hr<120bpm"),
    ])
    func aMistypedBoundIsLocated(text: String, expected: String) {
        let said = diagnostic(text)?.description ?? ""
        #expect(said.hasPrefix("<inline>:" + expected), "\(said)")
    }

    @Test func measurementsAreReadInEveryFormat() throws {
        // 8-bit bpm, no contact feature.
        let plain = try #require(HeartRateMeasurement([0x00, 142]))
        #expect(plain.bpm == 142 && plain.contact == .unsupported && plain.energy == nil && plain.rrIntervals.isEmpty)
        // 16-bit bpm, contact detected, energy 0x0102, RR intervals 1024 and 512 (1 s, 0.5 s).
        let full = try #require(HeartRateMeasurement([0x1F, 0x2C, 0x01, 0x02, 0x01, 0x00, 0x04, 0x00, 0x02]))
        #expect(full.bpm == 300 && full.contact == .detected && full.energy == 258 && full.rrIntervals == [1, 0.5])
        #expect(HeartRateMeasurement([0x04, 90])?.contact == .lost)
    }

    @Test(
        arguments: [
            [], [0x00], [0x01, 0x2C], [0x00, 0x00], [0x08, 90, 0x01], [0x10, 90, 0x00, 0x04, 0x01],
        ] as [[UInt8]])
    func malformedMeasurementsAreDropped(bytes: [UInt8]) {
        #expect(HeartRateMeasurement(bytes) == nil)
    }
}

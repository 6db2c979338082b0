import Testing

@testable import IntervalCore

/// The window's plan page shows a plan as rows (PlanReport.rows, totalRows): the same items and totals as the text of
/// `intervalctl plan show`.
struct PlanReportRowsTests {
    private func plan(_ text: String) throws -> Plan {
        try PlanParser.parse(text, origin: "<test>", defaultName: "test")
    }

    @Test func stepsAreRowsAndRepeatsHoldTheirRowsNested() throws {
        let rows = PlanReport.rows(
            for: try plan(#"5m warmup, 2x(1m run "Uphill" @ 5:00/km, 3x(10s walk)), for 1m(20s run, 10s rest)"#))
        #expect(
            rows == [
                .step(title: "Warm-up", duration: "5:00"),
                .repeats(
                    title: "2 ×", subtitle: "3:00, 1:30 per round",
                    rows: [
                        .step(title: "Uphill · Run · 5:00/km", duration: "1:00"),
                        .repeats(
                            title: "3 ×", subtitle: "0:30, 0:10 per round",
                            rows: [.step(title: "Walk", duration: "0:10")]),
                    ]),
                .repeats(
                    title: "for 1:00: 2 full rounds", subtitle: "1:00, 0:30 per round",
                    rows: [.step(title: "Run", duration: "0:20"), .step(title: "Rest", duration: "0:10")]),
            ])
    }

    @Test func theTotalsAreTheTextsRowsUnpadded() throws {
        let estimate = PlanEstimate(try plan("3x(1m run @ 6:00/km, 1m walk @ 10:00/km)"))
        let rows = PlanReport.totalRows(estimate)
        #expect(rows.map(\.name) == ["Total", "Run", "Walk", "Distance", "Average pace"])
        #expect(rows.prefix(4).map(\.value) == ["6:00", "3:00 · 50 %", "3:00 · 50 %", "0.80 km (0.50 mi)"])
        #expect(PlanReport.totals(estimate).prefix(2) == ["Total          6:00", "Run            3:00  50 %"])
    }
}

/// A program's days and reminders showed plan source (`5m walk "Brisk walk", 8x(1m run "Jog", …)`) where a person reads
/// a description.
@Suite struct PlanDescriptionTests {
    @Test func itemsAreLabelsAndTimesAndRepeatsAreCounted() throws {
        let day = try plan("5m walk \"Brisk walk\", 8x(1m run \"Jog\", 90s walk), 5m walk")
        #expect(PlanReport.description(of: day) == "Brisk walk 5:00, 8 × (Jog 1:00, Walk 1:30), Walk 5:00")
        let bounded = try plan("for 20m(4m run, 1m walk)")
        #expect(PlanReport.description(of: bounded) == "(Run 4:00, Walk 1:00) for 20:00")
    }

    @Test func commonLabelsAreInTheUsersLanguage() throws {
        let day = try plan("5m warmup, 2x(1m run, 1m walk)")
        let german = Localization.using(LocalizationTests.german) { PlanReport.description(of: day) }
        #expect(german == "Aufwärmen 5:00, 2 × (Laufen 1:00, Gehen 1:00)")
    }
}

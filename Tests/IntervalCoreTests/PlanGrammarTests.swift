import Testing

@testable import IntervalCore

@Suite struct PlanGrammarTests {
    @Test(
        arguments: [
            ("45s", 45 * second), ("2m", 2 * minute), ("1m30s", 90 * second), ("1h5m", 65 * minute),
            ("250ms", 250_000), ("1:30", 90 * second), ("1:02:03", 3723 * second), ("1.5h", 90 * minute),
            ("1h2m3s4ms", 3_723_004_000), ("0:01", second), ("10min", 10 * minute), ("1ms", 1000),
            ("00:30", 30 * second),
        ] as [(String, Int64)])
    func durations(text: String, microseconds: Int64) throws {
        let parsed = try plan("\(text) run")
        #expect(parsed.duration == microseconds)
    }

    @Test func stepKindsLabelsAndDefaults() throws {
        let parsed = try plan(#"30s run, 1m walk "Walk break", 2m cool_down-2, 10s x"#)
        let steps = Array(parsed.segments)
        #expect(steps.map(\.kind) == ["run", "walk", "cool_down-2", "x"])
        #expect(steps.map(\.label) == ["Run", "Walk break", "Cool_down-2", "X"])
    }

    @Test func labelEscapesAndUnicode() throws {
        let parsed = try plan(#"30s run "Say \"go\" \\ Løb 🏃""#)
        #expect(parsed.segment(at: 0)?.label == #"Say "go" \ Løb 🏃"#)
    }

    @Test(
        arguments: [
            ("@ 5:30/km", 1000.0 / 330), ("@ 9:00/mi", 1609.344 / 540), ("@ 10 km/h", 10 / 3.6),
            ("@10km/h", 10 / 3.6), ("@ 6 mph", 6 * 1609.344 / 3600), ("@ 3.2 m/s", 3.2), ("@ 12 kph", 12 / 3.6),
            ("@ 6/km", 1000.0 / 360), ("@5:30 /km", 1000.0 / 330),
        ] as [(String, Double)])
    func paces(text: String, metresPerSecond: Double) throws {
        let pace = try #require(try plan("4m run \(text)").segment(at: 0)?.pace)
        #expect(abs(pace.metresPerSecond - metresPerSecond) < 1e-9)
    }

    @Test func fileAndOneLinerAreTheSamePlan() throws {
        let file = """
            # config/plans/galloway-30-30.plan
            name "Galloway run/walk 30:30"
            countdown 3s                      # optional: pre-cue this long before every change

            5m walk "Warm-up"
            6x {
              4x { 30s run; 30s walk }
              60s walk "Walk break"
            }
            5m walk "Cool-down"
            """
        let fromFile = try plan(file)
        let oneLiner = try plan("5m walk, 6x(4x(30s run, 30s walk), 60s walk), 5m walk")
        #expect(fromFile.name == "Galloway run/walk 30:30")
        #expect(fromFile.countdown == 3 * second)
        #expect(oneLiner.name == "test")
        #expect(oneLiner.countdown == nil)
        #expect(fromFile.duration == 40 * minute)
        #expect(Array(fromFile.segments).map(\.kind) == Array(oneLiner.segments).map(\.kind))
        #expect(Array(fromFile.segments).map(\.duration) == Array(oneLiner.segments).map(\.duration))
    }

    @Test(arguments: ["3x(30s run)", "3x{30s run}", "3 x (30s run)", "3X(30s run)", "3×(30s run)", "3x\n{\n30s run\n}"])
    func repeatSpellings(text: String) throws {
        let parsed = try plan(text)
        #expect(parsed.segmentCount == 3)
        #expect(parsed.duration == 90 * second)
    }

    @Test func separatorsAndBlankItems() throws {
        let parsed = try plan("30s run;30s walk,,\n\r\n  30s rest ; # comment\n,")
        #expect(Array(parsed.segments).map(\.kind) == ["run", "walk", "rest"])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try plan("\u{FEFF}30s run").segmentCount == 1)
    }

    @Test func boundedByDurationCutsTheLastStep() throws {
        let parsed = try plan("for 45m(4m run, 1m walk)")
        #expect(parsed.duration == 45 * minute)
        #expect(parsed.segmentCount == 18)
        let last = try #require(parsed.segment(at: parsed.duration - 1))
        #expect(last.kind == "walk")
        #expect(last.duration == 1 * minute)
        let cut = try plan("for 10m(4m run, 3m walk)")
        let segments = Array(cut.segments)
        #expect(segments.map(\.duration) == [4 * minute, 3 * minute, 3 * minute])
        #expect(segments.map(\.kind) == ["run", "walk", "run"])
        #expect(segments.last?.rounds == [Segment.Round(number: 2, count: 2)])
    }

    @Test func boundedByDistanceSolvesRepetitions() throws {
        let parsed = try plan("for 5km(4m run @ 5:30/km, 1m walk @ 10:00/km)")
        let group = try #require(parsed.root.children.first.flatMap { if case .group(let g) = $0 { g } else { nil } })
        // One round covers 240/330 km + 100 m = 827.27 m; six rounds leave 36.36 m, 12 s at 5:30/km.
        #expect(group.fullIterations == 6)
        #expect(group.tailDuration == 12 * second)
        #expect(parsed.duration == 30 * minute + 12 * second)
        #expect(abs((PlanEstimate(parsed).distance ?? 0) - 5000) < 1e-6)
    }

    @Test func boundedByExactDistanceHasNoCutRound() throws {
        let parsed = try plan("for 3km(5m run @ 5:00/km)")
        #expect(parsed.segmentCount == 3)
        #expect(parsed.duration == 15 * minute)
    }

    @Test func nestedBoundedRepeats() throws {
        let parsed = try plan("2x(for 3m(1m run, 1m walk), 30s rest)")
        #expect(Array(parsed.segments).map(\.kind) == ["run", "walk", "run", "rest", "run", "walk", "run", "rest"])
        #expect(parsed.duration == 7 * minute)
    }

    @Test func milesAsDistance() throws {
        let parsed = try plan("for 1mi(1m run @ 6 mph)")
        #expect(parsed.duration == 10 * minute)
    }
}

@Suite struct PlanLocatorTests {
    @Test(arguments: [
        ("plan.plan", "/home/me/plans/plan.plan"), ("./../x.plan", "/home/me/x.plan"),
        ("/etc/../tmp/./a.plan", "/tmp/a.plan"),
        ("../../../../a.plan", "/a.plan"),
    ])
    func absolutePaths(path: String, expected: String) {
        #expect(PlanLocator.absolutePath(path, from: "/home/me/plans") == expected)
    }

    @Test func searchPathFollowsXDG() {
        let locator = PlanLocator(
            paths: XDGPaths(environment: ["HOME": "/h", "XDG_DATA_DIRS": "/usr/share:relative:/opt/share"]))
        #expect(
            locator.searchDirectories == [
                "/h/.config/intervald/plans", "/h/.local/share/intervald/plans", "/usr/share/intervald/plans",
                "/opt/share/intervald/plans",
            ])
        #expect(PlanLocator.isName("galloway-30-30"))
        #expect(!PlanLocator.isName("./galloway.plan") && !PlanLocator.isName("galloway.plan"))
    }

    @Test(arguments: [
        ("  30s run\n\n30s walk  \n", "30s run 30s walk"),
        ("10x(30s run, 30s walk)", "10x(30s run, 30s walk)"),
        (String(repeating: "a", count: 48) + "   \n  ", String(repeating: "a", count: 48)),
        (String(repeating: "a", count: 48) + "   \n  b", String(repeating: "a", count: 47) + "…"),
        (
            String(repeating: "a", count: 45) + "\n\n" + String(repeating: "b", count: 10),
            String(repeating: "a", count: 45) + " b…"
        ),
        ("\n \n", ""),
    ])
    func inlineNamesJoinLinesAndShowAtMost48Characters(text: String, expected: String) {
        #expect(PlanLocator.inlineName(for: text) == expected)
    }
}

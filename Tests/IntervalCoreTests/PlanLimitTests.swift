import Testing

@testable import IntervalCore

@Suite struct PlanLimitTests {
    func nested(_ depth: Int) -> String {
        String(repeating: "1x(", count: depth) + "1ms run" + String(repeating: ")", count: depth)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let parsed = try plan(nested(PlanLimits.maximumNesting))
        #expect(parsed.segmentCount == 1)
        #expect(parsed.segment(at: 0)?.rounds.count == 32)
    }

    @Test func nestingBeyondTheLimitIsLocatedAtTheGroup() throws {
        let found = try #require(diagnostic(nested(33)))
        #expect(found.column == 32 * 3 + 3)
        #expect(found.message == "groups nest deeper than the limit of 32")
    }

    @Test func deepNestingDoesNotOverflowTheStack() throws {
        let text = String(repeating: "2x(", count: 200_000)
        #expect(diagnostic(text)?.message == "groups nest deeper than the limit of 32")
    }

    @Test func repeatCountAtTheLimit() throws {
        #expect(try plan("100000x(1ms run)").segmentCount == 100_000)
    }

    @Test func sevenDaysExactlyIsAccepted() throws {
        #expect(try plan("168h run").duration == 7 * Micros.day)
        #expect(try plan("for 168h(1ms run)").segmentCount == 604_800_000)
    }

    @Test func oneMillisecondStepsAreAccepted() throws {
        #expect(try plan("1ms run").duration == 1000)
    }

    @Test(arguments: ["for 0.001ms(1ms run)", "for 0.999ms(1ms run)", "2x(for 0.5ms(1s run))"])
    func forBoundsUnderOneMillisecondAreRefused(text: String) throws {
        let found = try #require(diagnostic(text))
        #expect(found.message == "a 'for' block must last at least 1 ms")
        #expect(found.column == (text.hasPrefix("2x") ? 8 : 5))
    }

    @Test func distanceBoundsShorterThanOneMillisecondAreRefused() throws {
        // 1 mm at 10 km/h is 0.36 ms.
        #expect(diagnostic("for 0.000001km(1s run @ 10 km/h)")?.message == "a 'for' block must last at least 1 ms")
        #expect(try plan("for 0.01km(1m run @ 10 km/h)").duration == 3600 * Micros.millisecond)
    }

    @Test func stepsUnderOneMillisecondAreRefused() throws {
        #expect(diagnostic("0.5ms run")?.message == "a step must last at least 1 ms")
        #expect(diagnostic("countdown 0.2ms, 1s run")?.message == "countdown must be at least 1 ms")
        #expect(try plan("for 1ms(1ms run)").segmentCount == 1)
    }

    /// Plan text for more than 2^32 − 1 segments in 7 days, which steps of at least 1 ms allow only through cuts:
    /// each level adds a segment cut to 1 µs to a block 1 µs longer than the one inside.
    func cutLadder(levels: Int) -> String {
        var block = "for 1.001ms(1ms a, 1ms b)"
        for level in 2...levels { block = "for \(1 + Double(level) / 1000)ms(\(block), 1ms c)" }
        return "for 168h(\(block))"
    }

    @Test func moreThanUInt32MaxSegmentsAreRefusedNotClamped() throws {
        #expect(try plan(cutLadder(levels: 6)).segmentCount == 4_208_349_895)
        let found = try #require(diagnostic(cutLadder(levels: 7)))
        #expect(found.message.hasPrefix("the plan has more than 4294967295 segments, the limit"))
        #expect(found.line == 1 && found.column == 5)
    }

    @Test func theSegmentLimitHoldsForGroupsBuiltInCode() throws {
        let tiny = PlanNode.step(Step(kind: "run", duration: 1))
        let inner = try PlanGroup(repetition: .times(100_000), children: [tiny])
        #expect(throws: PlanLimitError.tooManySegments) {
            try PlanGroup(repetition: .times(100_000), children: [.group(inner)])
        }
    }

    @Test(arguments: [
        ("30s run \"Fast\u{1B}[2J\"", 1, 14, "U+001B"), ("name \"A\u{7}\"\n1s run", 1, 8, "U+0007"),
        ("30s run \"a\u{9B}b\"", 1, 11, "U+009B"), ("30s run \"x\u{202E}y\"", 1, 11, "U+202E"),
        ("1s run\n2s walk \"tab\there\"", 2, 13, "U+0009"),
    ])
    func controlCharactersInLabelsAndNamesAreRefusedWhereTheyAre(text: String, line: Int, column: Int, scalar: String)
        throws
    {
        let found = try #require(diagnostic(text))
        #expect(found.message.hasPrefix("control character \(scalar) in a "))
        #expect(found.line == line)
        #expect(found.column == column)
        #expect(!found.description.unicodeScalars.contains { $0.value == 0x1B || (0x80...0x9F).contains($0.value) })
    }

    @Test func aNameFromAFileNameIsEscaped() throws {
        let parsed = try PlanParser.parse("1s run", origin: "x.plan", defaultName: "evil\u{1B}]0;title\u{7}")
        #expect(parsed.name == "evil\\u{1B}]0;title\\u{7}")
    }
}

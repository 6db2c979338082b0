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

    @Test func controlCharactersInLabelsAndNamesAreRefusedWhereTheyAre() throws {
        let escape = try #require(diagnostic("30s run \"Easy \u{1B}[2J\""))
        #expect(escape.column == 15)
        #expect(escape.message == "a label must not contain control character 0x1B")
        #expect(diagnostic("name \"Tab\tbed\"\n30s run")?.message == "a name must not contain control character 0x09")
        #expect(diagnostic("30s run \"a\u{7F}\"")?.message == "a label must not contain control character 0x7F")
        #expect(diagnostic("30s run \"a\u{9B}2J\"")?.message == "a label must not contain character U+009B")
        #expect(try plan("30s run \"Côte à 5 % · \u{A0}ok\"").segment(at: 0)?.label == "Côte à 5 % · \u{A0}ok")
    }

    @Test func oneMillisecondStepsAreAccepted() throws {
        #expect(try plan("1ms run").duration == 1000)
    }
}

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
}

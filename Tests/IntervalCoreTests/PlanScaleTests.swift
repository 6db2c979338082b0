import Testing

@testable import IntervalCore

/// Parsing is linear in the text whatever the plan (docs/reference.md §5). Timing is the benchmark's business; these
/// tests count the work on kinds instead, which a linear search or a copy of the totals at every addition made
/// quadratic in the number of distinct kinds (80,000 one-line steps of distinct kinds took 12 s).
@Suite struct PlanScaleTests {
    /// `count` one-line steps, each of a kind of its own.
    func distinctKinds(_ count: Int, duration: String = "1s") -> String {
        (0..<count).map { "\(duration) k\($0)" }.joined(separator: "\n")
    }

    /// The bound on kind work: every step's kind is looked up and copied a few times at each level above it.
    func linearBound(steps: Int, depth: Int) -> Int64 { Int64(4 * steps * (depth + 1)) }

    @Test func flatPlanOfDistinctKinds() throws {
        let steps = 20_000
        let parsed = try plan(distinctKinds(steps))
        let summary = parsed.root.totalSummary
        #expect(summary.kindDurations.count == steps)
        #expect(summary.kindDurations.first == .init(kind: "k0", duration: second))
        #expect(summary.kindDurations.last == .init(kind: "k\(steps - 1)", duration: second))
        #expect(summary.kindWork <= linearBound(steps: steps, depth: 0))
    }

    @Test func nestedGroupsOfDistinctKinds() throws {
        let steps = 20_000
        let depth = PlanLimits.maximumNesting
        let text = String(repeating: "1x(", count: depth) + distinctKinds(steps) + String(repeating: ")", count: depth)
        let parsed = try plan(text)
        #expect(parsed.root.totalSummary.kindDurations.count == steps)
        #expect(parsed.root.totalSummary.kindWork <= linearBound(steps: steps, depth: depth))
    }

    @Test func boundedRepeatCutInsideDistinctKinds() throws {
        let steps = 20_000
        // 20,000 steps of 1 ms: 20 s a pass; 50 s is two passes and a cut pass of 10,000 steps.
        let parsed = try plan("for 50s {\n" + distinctKinds(steps, duration: "1ms") + "\n}")
        let summary = parsed.root.totalSummary
        #expect(summary.kindDurations.first == .init(kind: "k0", duration: 3 * Micros.millisecond))
        #expect(summary.kindDurations.last == .init(kind: "k\(steps - 1)", duration: 2 * Micros.millisecond))
        #expect(summary.kindWork <= linearBound(steps: steps, depth: 1))
        let halfway = parsed.summary(playedFor: parsed.duration / 2)
        #expect(halfway.kindDurations.count == steps)
        #expect(halfway.kindWork <= linearBound(steps: steps, depth: 1))
    }

    /// The totals per kind, built in O(kinds), agree with adding up every segment one by one.
    @Test(arguments: [
        "5m walk, 6x(4x(30s run, 30s walk), 60s walk), 5m walk",
        "for 100s(7s a, 3x(2s b, 1s c), 5s a)",
        "for 95s(2x(for 17s(3s x, 4s y), 1s z), 6s x)",
        "3x(for 10s(3s p, 3x(1s q)), 2s r), for 5s(4s s)",
    ])
    func kindTotalsMatchTheSegments(text: String) throws {
        let parsed = try plan(text)
        var expected: [String: Int64] = [:]
        var order: [String] = []
        for segment in parsed.segments {
            if expected[segment.kind] == nil { order.append(segment.kind) }
            expected[segment.kind, default: 0] += segment.duration
        }
        let summary = parsed.root.totalSummary
        #expect(summary.kindDurations.map(\.kind) == order)
        #expect(summary.kindDurations.allSatisfy { expected[$0.kind] == $0.duration })
        for fraction in [0.0, 0.25, 0.5, 0.9] {
            let elapsed = Int64(Double(parsed.duration) * fraction)
            var played: [String: Int64] = [:]
            for segment in parsed.segments where segment.start < elapsed {
                played[segment.kind, default: 0] += min(segment.end, elapsed) - segment.start
            }
            let done = parsed.summary(playedFor: elapsed)
            #expect(Dictionary(done.kindDurations.map { ($0.kind, $0.duration) }, uniquingKeysWith: +) == played)
        }
    }
}

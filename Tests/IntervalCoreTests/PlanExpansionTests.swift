import Testing

@testable import IntervalCore

@Suite struct PlanExpansionTests {
    let galloway = "5m walk \"Warm-up\", 6x(4x(30s run, 30s walk), 60s walk \"Walk break\"), 5m walk \"Cool-down\""

    @Test func segmentsComeInOrderWithIndicesAndPositions() throws {
        let segments = Array(try plan(galloway).segments)
        #expect(segments.count == 56)
        #expect(segments.map(\.index) == Array(0..<56))
        #expect(segments[0].label == "Warm-up")
        #expect(segments[0].rounds.isEmpty)
        #expect(segments[1].kind == "run")
        #expect(segments[1].start == 5 * minute)
        #expect(segments[1].rounds == [.init(number: 1, count: 6), .init(number: 1, count: 4)])
        #expect(segments[9].label == "Walk break")
        #expect(segments[9].rounds == [.init(number: 1, count: 6)])
        #expect(segments[22].rounds == [.init(number: 3, count: 6), .init(number: 2, count: 4)])
        #expect(segments[22].mainRound == .init(number: 3, count: 6))
        #expect(segments[55].label == "Cool-down")
        #expect(segments[55].end == 40 * minute)
        for (earlier, later) in zip(segments, segments.dropFirst()) {
            #expect(earlier.end == later.start)
        }
    }

    @Test func seekAgreesWithSequentialExpansion() throws {
        for text in [
            galloway, "for 10m(4m run, 3m walk), 2x(for 3m(1m run, 1m walk), 30s rest)",
            "for 5km(4m run @ 5:30/km, 1m walk @ 10:00/km)",
        ] {
            let parsed = try plan(text)
            for segment in parsed.segments {
                for instant in [segment.start, segment.start + segment.duration / 2, segment.end - 1] {
                    #expect(parsed.segment(at: instant) == segment)
                }
            }
            #expect(parsed.segment(at: parsed.duration) == nil)
            #expect(parsed.segment(at: -1) == nil)
        }
    }

    @Test func hugePlansAreSoughtLazily() throws {
        let parsed = try plan("1000x(1000x(250ms run, 250ms walk))")
        #expect(parsed.segmentCount == 2_000_000)
        #expect(parsed.duration == 500_000 * second)
        let middle = try #require(parsed.segment(at: 250_000 * second + 250_000))
        #expect(middle.index == 1_000_001)
        #expect(middle.kind == "walk")
        #expect(middle.rounds == [.init(number: 501, count: 1000), .init(number: 1, count: 1000)])
        let last = try #require(parsed.segment(at: parsed.duration - 1))
        #expect(last.index == 1_999_999)
        #expect(parsed.segment(after: last) == nil)
    }

    @Test func hundredMillionSegments() throws {
        let parsed = try plan("100000x(1000x(1ms run))")
        #expect(parsed.segmentCount == 100_000_000)
        #expect(parsed.segment(at: parsed.duration - 1)?.index == 99_999_999)
    }

    @Test func wideGroupsAreBinarySearched() throws {
        let text = (0..<5000).map { "\($0 % 7 + 1)s k\($0)" }.joined(separator: "\n")
        let parsed = try plan(text)
        var elapsed: Int64 = 0
        for index in stride(from: 0, to: 5000, by: 97) {
            elapsed = (0..<index).reduce(0) { $0 + Int64($1 % 7 + 1) * second }
            #expect(parsed.segment(at: elapsed)?.kind == "k\(index)")
        }
        _ = elapsed
    }
}

@Suite struct PlanEstimateTests {
    @Test func gallowayIsExactlyFortyMinutes() throws {
        let estimate = PlanEstimate(try plan("5m walk, 6x(4x(30s run, 30s walk), 60s walk), 5m walk"))
        #expect(estimate.duration == 40 * minute)
        #expect(estimate.segmentCount == 56)
        #expect(estimate.kinds.map(\.kind) == ["walk", "run"])
        #expect(estimate.kinds.map(\.duration) == [28 * minute, 12 * minute])
        #expect(estimate.kinds[1].share == 0.3)
        #expect(estimate.distance == nil)
        #expect(estimate.averagePace == nil)
    }

    @Test func distanceAndAveragePace() throws {
        // 10 min at 5:00/km = 2 km; 10 min at 10 km/h = 1.6667 km: 3.6667 km in 20 min → 5:27/km.
        let estimate = PlanEstimate(try plan("10m run @ 5:00/km, 10m walk @ 10 km/h"))
        let distance = try #require(estimate.distance)
        #expect(abs(distance - 3666.6667) < 0.001)
        let pace = try #require(estimate.averagePace)
        #expect(abs(pace.secondsPerKilometre - 1200 / 3.6666667) < 0.001)
        #expect(pace.perKilometreText == "5:27/km")
        #expect(abs(pace.secondsPerMile - pace.secondsPerKilometre * 1.609344) < 1e-9)
    }

    @Test func partialPacesGiveNoDistance() throws {
        #expect(PlanEstimate(try plan("10m run @ 5:00/km, 1m walk")).distance == nil)
    }

    @Test func kindsThatNeverPlayAreNotListed() throws {
        let estimate = PlanEstimate(try plan("for 1m(4m run, 1m walk)"))
        #expect(estimate.kinds.map(\.kind) == ["run"])
        #expect(estimate.duration == minute)
    }

    @Test func cutRoundsCountOnlyWhatIsPlayed() throws {
        let estimate = PlanEstimate(try plan("for 10m(4m run, 3m walk)"))
        #expect(estimate.kinds.map(\.duration) == [7 * minute, 3 * minute])
        #expect(estimate.segmentCount == 3)
    }
}

@Suite struct TimeTextTests {
    @Test(
        arguments: [
            (40 * minute, "40:00"), (65 * minute, "1:05:00"), (30 * second, "0:30"), (250_000, "0:00.250"),
            (Int64(0), "0:00"),
        ] as [(Int64, String)])
    func clock(microseconds: Int64, text: String) {
        #expect(TimeText.clock(microseconds: microseconds) == text)
    }

    @Test(
        arguments: [
            (30 * second, "30 s"), (5 * minute, "5 min"), (90 * second, "1 min 30 s"), (65 * minute, "1 h 5 min"),
            (250_000, "250 ms"), (1_500_000, "1.5 s"),
        ] as [(Int64, String)])
    func spoken(microseconds: Int64, text: String) {
        #expect(TimeText.spoken(microseconds: microseconds) == text)
    }
}

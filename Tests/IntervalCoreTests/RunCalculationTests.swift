import IntervalCore
import Testing

/// The run calculator: two of time, distance and pace solve the third, with the plan language's units.
@Suite struct RunCalculationTests {
    func solve(_ text: String) throws -> RunCalculation {
        try #require(RunCalculation(try PlanParser.parseRun(text, origin: "calc")))
    }

    @Test func aDistanceAndAPaceGiveTheTime() throws {
        let run = try solve("10mi @ 9:00/mi")
        #expect(run.solved == .time)
        #expect(run.time == 90 * 60 * 1_000_000)
        #expect(run.answer == "1:30:00")
    }

    @Test func aDistanceAndATimeGiveThePaceAndSpeed() throws {
        let run = try solve("5km in 25:00")
        #expect(run.solved == .pace)
        #expect(run.answer == "5:00/km, 12.0 km/h")
        #expect(try solve("25:00 5km") == run, "'in' is optional and the order free")
        #expect(try solve("3mi in 24:00").answer == "8:00/mi, 7.5 mph", "miles in, miles out")
    }

    /// People type a distance with a space (`5 km`): the plan language's rule that a unit follows its number was refused
    /// in the calculator ("missing duration unit after '5'").
    @Test func aDistanceMayHaveASpaceBeforeItsUnit() throws {
        #expect(try solve("5 km in 25:00") == solve("5km in 25:00"))
        #expect(try solve("in 1:30:00 10 mi").answer == "9:00/mi, 6.7 mph")
        #expect(throws: PlanDiagnostic.self) { try PlanParser.parseRun("5 in 25:00", origin: "calc") }
        #expect(throws: PlanDiagnostic.self) { try PlanParser.parse("5 km run", origin: "p", defaultName: "p") }
    }

    @Test func aTimeAndAPaceGiveTheDistance() throws {
        let run = try solve("45:00 @ 5:30/km")
        #expect(run.solved == .distance)
        #expect(run.answer == "8.18 km")
        #expect(try solve("1h @ 6 mph").answer == "6.00 mi")
        #expect(try solve("1h @ 12 km/h").answer == "12.00 km")
    }

    @Test func aRunWhoseTimeNoCountHoldsHasNoAnswer() throws {
        #expect(RunCalculation(try PlanParser.parseRun("1000000km @ 0.0001 m/s", origin: "calc")) == nil)
        #expect(RunCalculation(try PlanParser.parseRun("99999999999999999999999km @ 5:00/km", origin: "calc")) == nil)
    }

    @Test func absurdSpeedsAndDistancesPrintRatherThanTrap() throws {
        #expect(try solve("99999999999999999999km in 1h").answer == "0:00/km, 9.999999999999998e+19 km/h")
        #expect(try solve("99999999999999999999km in 1h").json(splits: false).contains(#""distance_m":1e+23,"#))
        let plan = try PlanParser.parse("10s run @ 99999999999999999999 km/h", origin: "", defaultName: "x")
        #expect(PlanReport.text(for: plan).contains("Distance      2.777777777777778e+17 km"))
    }

    @Test func theDistanceOfAWorkoutStoppedPartWayIsItsSegmentsUpToThen() throws {
        let plan = try PlanParser.parse("2x(1m run @ 6:00/km, 1m walk @ 12:00/km)", origin: "", defaultName: "x")
        let metres = { (seconds: Int64) in PlanEstimate.distance(of: plan, through: seconds * 1_000_000) }
        #expect(metres(0) == 0)
        #expect(abs((metres(30) ?? 0) - 83.333) < 0.001, "half of the first run")
        #expect(abs((metres(90) ?? 0) - (166.667 + 41.667)) < 0.001, "the run, and half of the walk")
        #expect(abs((metres(240) ?? 0) - (PlanEstimate(plan).distance ?? 0)) < 1e-9, "the whole plan")
        #expect(abs((metres(999) ?? 0) - (PlanEstimate(plan).distance ?? 0)) < 1e-9, "no more than the plan")
        let unpaced = try PlanParser.parse("1m run @ 6:00/km, 1m walk", origin: "", defaultName: "x")
        #expect(PlanEstimate.distance(of: unpaced, through: 60_000_000) == nil, "unknown unless every step has a pace")
    }

    @Test func splitsFallOnEachUnitAndTheEnd() throws {
        let run = try solve("5.5km in 27:30")
        let splits = run.splits(every: 1000)
        #expect(splits.map(\.metres) == [1000, 2000, 3000, 4000, 5000, 5500])
        #expect(splits.map(\.time) == [300, 600, 900, 1200, 1500, 1650].map { Int64($0) * 1_000_000 })
        #expect(run.splitsText.split(separator: "\n").last == "5.5 km  27:30")
        #expect(try solve("5km in 25:00").splits(every: 1000).count == 5, "no split of a rounding error at the end")
    }

    @Test func theJSONHasEveryUnit() throws {
        let json = try solve("3mi @ 8:00/mi").json(splits: true)
        #expect(json.hasPrefix(#"{"solved":"time","time_us":1440000000,"time":"24:00","distance_m":4828.032,"#))
        #expect(json.contains(#""mph":7.50,"splits":[{"distance_m":1609.344,"time_us":480000000}"#))
    }

    @Test(arguments: [
        ("5km", 3, "give two of"),
        ("5km in 25:00 @ 5:00/km", 0, "give two of"),
        ("5km 10km", 4, "'distance' is given twice (first at 1:1)"),
        ("5km for 25:00", 4, "expected a distance"),
        ("5km in", 6, "expected a duration"),
        ("5km @ 5:00", 10, "missing pace unit"),
        ("0km in 25:00", 0, "distance must be greater than zero"),
    ])
    func badInputGetsALocatedDiagnostic(text: String, column: Int, message: String) {
        #expect {
            _ = try PlanParser.parseRun(text, origin: "calc")
        } throws: { error in
            let description = "\(error)"
            return description.hasPrefix("calc:1:\(column + 1): error: \(message)")
        }
    }
}

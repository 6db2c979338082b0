import Testing

@testable import IntervalCore

@Suite struct PlanSearchTests {
    let entries = [
        PlanSearch.Entry(name: "tabata", title: "Tabata", duration: 720_000_000, segmentCount: 18),
        PlanSearch.Entry(
            name: "galloway-30-30", title: "Galloway run/walk 30:30", duration: 2_400_000_000, segmentCount: 56),
        PlanSearch.Entry(name: "c25k-week1", title: "Couch to 5K — week 1", duration: 1_800_000_000, segmentCount: 19),
        PlanSearch.Entry(name: "easy", title: "Walk then run", duration: 60_000_000, segmentCount: 1),
    ]

    @Test func everyWordMustBeInTheNameOrTitleIgnoringCase() {
        #expect(PlanSearch.matches("TAB", in: entries).map(\.name) == ["tabata"])
        #expect(PlanSearch.matches("galloway 30", in: entries).map(\.name) == ["galloway-30-30"])
        #expect(PlanSearch.matches("couch week", in: entries).map(\.name) == ["c25k-week1"])
        #expect(PlanSearch.matches("galloway tabata", in: entries).isEmpty)
        #expect(PlanSearch.matches("zumba", in: entries).isEmpty)
    }

    @Test func plansThatStartWithTheFirstWordComeFirst() {
        // "walk" starts "Walk then run" and is inside "Galloway run/walk 30:30".
        #expect(PlanSearch.matches("walk", in: entries).map(\.name) == ["easy", "galloway-30-30"])
    }

    @Test func theQueryIsTheTermsAsOneLineAndNothingWhenEmptyOrTooLong() {
        #expect(PlanSearch.query(["8x(30s", "run,", "30s", "walk)"]) == "8x(30s run, 30s walk)")
        #expect(PlanSearch.query(["  tab  ", "\t"]) == "tab")
        #expect(PlanSearch.query([]) == nil)
        #expect(PlanSearch.query(["   "]) == nil)
        let long = String(repeating: "a", count: PlanSearch.maximumQueryCharacters)
        #expect(PlanSearch.query([long]) == long)
        #expect(PlanSearch.query([long, "b"]) == nil)
        #expect(PlanSearch.query(Array(repeating: "ab", count: 10_000)) == nil)
    }

    @Test func resultIdentifiersRoundTripAndForeignOnesAreRefused() {
        for result in [PlanSearch.Result.named("tabata"), .inline("8x(30s run, 30s walk)")] {
            #expect(PlanSearch.Result(identifier: result.identifier) == result)
        }
        #expect(PlanSearch.Result(identifier: "tabata") == nil)
        #expect(PlanSearch.Result(identifier: "plan:") == nil)
        #expect(PlanSearch.Result(identifier: "plan:../../etc/passwd") == nil)
        #expect(PlanSearch.Result(identifier: "inline:") == nil)
        let long = "inline:" + String(repeating: "1", count: PlanSearch.maximumQueryCharacters + 1)
        #expect(PlanSearch.Result(identifier: long) == nil)
    }

    @Test func descriptionsGiveTheDurationAndTheCountOfIntervals() throws {
        #expect(
            PlanSearch.Description(entries[0])
                == PlanSearch.Description(title: "Tabata", duration: 720_000_000, segmentCount: 18))
        #expect(PlanSearch.Description(entries[0]).name == "Start Tabata")
        #expect(PlanSearch.Description(entries[0]).detail == "12:00 · 18 intervals")
        #expect(PlanSearch.Description(entries[3]).detail == "1:00 · 1 interval")
        let plan = try WorkoutSession.parse("8x(30s run, 30s walk)", origin: "")
        #expect(PlanSearch.Description(title: "8x(30s run, 30s walk)", plan: plan).detail == "8:00 · 16 intervals")
    }

    @Test func onlyQueriesWithADigitAreParsedAsOneLinePlans() {
        #expect(PlanSearch.mayBeInlinePlan("8x(30s run, 30s walk)"))
        #expect(!PlanSearch.mayBeInlinePlan("tabata"))
    }

    @Test func desktopActionsAreStopStartWithANameOrAPlanName() throws {
        #expect(try DesktopLauncher.request(action: "stop", parameter: nil) == .stop)
        #expect(try DesktopLauncher.request(action: "tabata", parameter: nil) == .start(.named("tabata")))
        #expect(
            try DesktopLauncher.request(action: "start", parameter: "galloway-1-1") == .start(.named("galloway-1-1")))
        #expect(throws: TimerCommandError.self) { try DesktopLauncher.request(action: "start", parameter: nil) }
        #expect(throws: TimerCommandError.self) { try DesktopLauncher.request(action: "start", parameter: "a/b") }
        #expect(throws: TimerCommandError.self) { try DesktopLauncher.request(action: "x.plan", parameter: nil) }
    }
}

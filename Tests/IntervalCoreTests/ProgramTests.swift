import Foundation
import Testing

@testable import IntervalCore

/// Training programs (docs/programs.md): the language, the bundled Couch to 5K, and what counts as progress.
struct ProgramTests {
    static let c25kPath = PlanWriterTests.repository + "/config/programs/c25k.program"

    static func c25k() throws -> Program {
        let text = try String(contentsOfFile: c25kPath, encoding: .utf8)
        return try PlanParser.parseProgram(text, origin: "c25k.program", defaultName: "c25k")
    }

    static let sample = """
        name "Base"
        countdown 3s
        week 1 {
          2x day { 1m walk, 3x(30s run, 30s walk) }
          day { countdown 5s; 10m run "Long" }
        }
        week 2 { day { 20m run } }
        """

    @Test func weeksOfDaysEachAPlanNamedForItsDay() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        #expect(program.name == "Base")
        #expect(program.days.map(\.id.description) == ["1.1", "1.2", "1.3", "2.1"])
        #expect(program.weekCount == 2)
        let first = try #require(program.day(ProgramDay(week: 1, number: 1)))
        #expect(first.plan.name == "Base · Week 1, Day 1")
        #expect(first.plan.duration == 4 * Micros.minute)
        #expect(first.plan.countdown == 3 * Micros.second, "the program's countdown")
        #expect(program.days[2].plan.countdown == 5 * Micros.second, "a day's own countdown")
        #expect(program.days[2].plan.segments.map(\.label) == ["Long"])
        #expect(program.day(after: ProgramDay(week: 1, number: 3)) == ProgramDay(week: 2, number: 1))
        #expect(program.day(after: ProgramDay(week: 2, number: 1)) == nil)
    }

    @Test func aDaysTextIsAPlanThatReadsBackAsTheDay() throws {
        let program = try Self.c25k()
        for day in program.days {
            let text = PlanWriter.text(for: day.plan)
            let again = try PlanParser.parse(text, origin: "day", defaultName: "x")
            #expect(same(again, day.plan), "\(day.id)")
        }
    }

    /// Each week's day as the published schedule has it, with the five-minute walks before and after: minutes of
    /// running and the whole day, per week (weeks 5 and 6 have three different days).
    static let schedule: [(week: Int, running: [Double], total: [Double])] = [
        (1, [8, 8, 8], [30, 30, 30]),
        (2, [9, 9, 9], [31, 31, 31]),
        (3, [9, 9, 9], [28, 28, 28]),
        (4, [16, 16, 16], [31.5, 31.5, 31.5]),
        (5, [15, 16, 20], [31, 31, 30]),
        (6, [18, 20, 22], [34, 33, 32]),
        (7, [25, 25, 25], [35, 35, 35]),
        (8, [28, 28, 28], [38, 38, 38]),
        (9, [30, 30, 30], [40, 40, 40]),
    ]

    @Test func theBundledCouchTo5KIsTheNineWeekScheduleOfThreeDays() throws {
        let program = try Self.c25k()
        #expect(program.name == "Couch to 5K")
        #expect(program.days.count == 27)
        #expect(program.weekCount == 9)
        for (week, running, total) in Self.schedule {
            let days = program.days(ofWeek: week)
            #expect(days.count == 3, "week \(week)")
            for (index, day) in days.enumerated() {
                let segments = Array(day.plan.segments)
                let run = segments.filter { $0.kind == "run" }.reduce(Int64(0)) { $0 + $1.duration }
                #expect(Double(run) / Double(Micros.minute) == running[index], "\(day.id): minutes of running")
                #expect(
                    Double(day.plan.duration) / Double(Micros.minute) == total[index], "\(day.id): the day's total")
                #expect(segments.first?.label == "Brisk walk" && segments.first?.duration == 5 * Micros.minute)
                #expect(segments.last?.label == "Cool-down" && segments.last?.duration == 5 * Micros.minute)
            }
        }
    }

    @Test(arguments: [
        ("", "1:1: error: the program has no weeks"),
        ("week 2 { day { 1m run } }", "1:6: error: expected week 1 (weeks are numbered in order from 1)"),
        ("week 1 { }", "1:8: error: week 1 has no days"),
        ("week 1 { day { } }", "1:14: error: the day has no steps"),
        ("week 1 { 8x day { 1m run } }", "1:10: error: a week has at most 7 days"),
        ("week 1 { day { 1m run } }\nname \"Late\"", "2:1: error: 'name' must come before the first week"),
        ("week 1 { day { name \"D\"; 1m run } }", "1:16: error: a day is named by its week and number"),
        ("week 1 { day { 1m run; countdown 3s } }", "1:24: error: 'countdown' must come before the first step"),
        ("week 1 { run { 1m run } }", "1:10: error: expected 'day' or 'Nx day' in a week"),
        ("weeks 1 {}", "1:1: error: unknown directive 'weeks' (expected name, countdown or week)"),
        ("week 1 { day { 1sx run } }", "1:17: error: unknown duration unit 'sx'"),
        ("week 1 { day { 1m run }", "1:24: error: expected '}' to close the group opened at 1:8"),
        ("week 1 { day { 1m run } } }", "1:27: error: unexpected '}'"),
    ])
    func mistakesAreLocated(text: String, expected: String) {
        #expect(throws: PlanDiagnostic.self) {
            _ = try PlanParser.parseProgram(text, origin: "p.program", defaultName: "p")
        }
        do {
            _ = try PlanParser.parseProgram(text, origin: "p.program", defaultName: "p")
        } catch {
            #expect(error.headline.hasPrefix("p.program:" + expected), "\(error.headline)")
        }
    }

    @Test(arguments: ["1.1", "9.3", "12.7"]) func daysAreWeekDotDay(text: String) throws {
        #expect(try #require(ProgramDay(text)).description == text)
    }

    @Test(arguments: ["", "1", "1.", ".1", "0.1", "1.0", "-1.1", "1.1.1", " 1.1", "a.b", "99999.1"])
    func anythingElseIsNotADay(text: String) {
        #expect(ProgramDay(text) == nil)
    }

    @Test func theEndOfADaySaysWhatComesNext() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        let day = try #require(program.days.first)
        let reference = ProgramDayReference(
            program: "base", title: program.name, day: day.id, following: program.day(after: day.id))
        let finished = try #require(
            WorkoutPresenter.notification(for: .finished, plan: day.plan, style: CueStyle(), program: reference))
        #expect(finished.body == "Base · Week 1, Day 1 · 4:00 · Next time: Week 1, Day 2")
        #expect(SpokenCues.summary(day.plan, program: reference) == "Workout done, 4 minutes. Next time: Week 1, Day 2")
        let last = ProgramDayReference(program: "base", title: "Base", day: Self.day("2.1"), following: nil)
        #expect(last.whatIsNext == "Base is complete. Well done!")
    }

    // MARK: Progress

    static func day(_ text: String) -> ProgramDay {
        ProgramDay(text) ?? ProgramDay(week: 0, number: 0)
    }

    @Test func onlyAFinishedOrMarkedDayAdvances() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        var progress = ProgramProgress(startOf: program)
        #expect(progress.nextDay(in: program) == Self.day("1.1"))
        progress.finished(Self.day("1.1"), in: program, wall: 1, workout: "w1")
        #expect(progress.nextDay(in: program) == Self.day("1.2"))
        #expect(progress.isDone(Self.day("1.1")) && !progress.isDone(Self.day("1.2")))
        try progress.markNextDone(in: program, wall: 2)
        #expect(progress.nextDay(in: program) == Self.day("1.3"))
        #expect(progress.done.map(\.how) == [.finished, .marked])
        // An earlier day done again moves nothing back; a later one moves on past it.
        progress.finished(Self.day("1.1"), in: program, wall: 3, workout: "w2")
        #expect(progress.nextDay(in: program) == Self.day("1.3"))
        progress.finished(Self.day("2.1"), in: program, wall: 4, workout: "w3")
        #expect(progress.nextDay(in: program) == nil, "complete")
        #expect(throws: ProgramProgressError.complete) { try progress.markNextDone(in: program, wall: 5) }
    }

    @Test func repeatGoToAndReset() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        var progress = ProgramProgress(startOf: program)
        #expect(throws: ProgramProgressError.nothingDone) { try progress.repeatLastDone(in: program) }
        progress.finished(Self.day("1.1"), in: program, wall: 1, workout: nil)
        progress.finished(Self.day("1.2"), in: program, wall: 2, workout: nil)
        try progress.repeatLastDone(in: program)
        #expect(progress.nextDay(in: program) == Self.day("1.2"))
        try progress.go(to: Self.day("2.1"), in: program)
        #expect(progress.nextDay(in: program) == Self.day("2.1"))
        #expect(throws: ProgramProgressError.noSuchDay(Self.day("3.1"), weeks: 2)) {
            try progress.go(to: Self.day("3.1"), in: program)
        }
        progress.reset(to: program)
        #expect(progress == ProgramProgress(startOf: program))
    }

    @Test func aNextDayTheFileNoLongerHasIsTheOneAfterIt() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        var progress = ProgramProgress(startOf: program)
        progress.next = Self.day("1.7")
        #expect(progress.nextDay(in: program) == Self.day("2.1"))
        progress.next = Self.day("4.1")
        #expect(progress.nextDay(in: program) == nil)
    }

    @Test func progressIsReadBackFromItsJSON() throws {
        let program = try PlanParser.parseProgram(Self.sample, origin: "base.program", defaultName: "base")
        var progress = ProgramProgress(startOf: program)
        progress.finished(Self.day("1.1"), in: program, wall: 1_700_000_000_000_000, workout: "w1")
        let json = try JSONEncoder().encode(progress)
        #expect(String(decoding: json, as: UTF8.self).contains("\"next\":\"1.2\""))
        #expect(try JSONDecoder().decode(ProgramProgress.self, from: json) == progress)
    }
}

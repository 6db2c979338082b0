/// A training program (docs/programs.md): weeks of days, each day a plan, followed in order. Parsed from a
/// `*.program` file by ``PlanParser/parseProgram(bytes:origin:defaultName:)``.
public struct Program: Sendable {
    public struct Day: Sendable {
        public let id: ProgramDay
        /// The day's workout, named for the program and the day: "Couch to 5K · Week 3, Day 2".
        public let plan: Plan
    }

    public let name: String
    /// The days in order, week by week.
    public let days: [Day]

    /// How many weeks the program has.
    public var weekCount: Int { days.last?.id.week ?? 0 }

    /// The days of week `week` (1-based), in order.
    public func days(ofWeek week: Int) -> [Day] {
        days.filter { $0.id.week == week }
    }

    public func day(_ id: ProgramDay) -> Day? {
        days.first { $0.id == id }
    }

    /// The day that follows `id`, nil after the last.
    public func day(after id: ProgramDay) -> ProgramDay? {
        days.first { $0.id > id }?.id
    }

    public var firstDay: ProgramDay? { days.first?.id }

    /// Limits beside the plan language's: a week has 1 to 7 days, a program at most ``maximumWeeks`` weeks.
    public static let maximumDaysPerWeek = 7
    public static let maximumWeeks = 520

    /// "Couch to 5K W3D2": what a day's workout file is called (a FIT workout for a watch, docs/fit.md).
    public static func fileStem(program: String, day: ProgramDay) -> String {
        "\(program) W\(day.week)D\(day.number)"
    }

    /// "Couch to 5K · Week 3, Day 2": what the day's workout is called wherever a plan's name is shown.
    public static func dayName(program: String, day: ProgramDay) -> String {
        "\(program) · \(day.title)"
    }
}

/// Which program's day a workout is: what the state file, the history and the progress keep of it.
public struct ProgramDayReference: Sendable, Equatable, Codable {
    /// The program's file name without `.program`, as commands take it: `c25k`.
    public var program: String
    /// Its `name`: "Couch to 5K".
    public var title: String
    public var day: ProgramDay
    /// The day that comes after this one, nil after the last: what the end of the workout announces.
    @NullWhenAbsent public var following: ProgramDay?

    public init(program: String, title: String, day: ProgramDay, following: ProgramDay?) {
        (self.program, self.title, self.day, self.following) = (program, title, day, following)
    }

    /// What the end of the day's workout says comes next: "Next time: Week 3, Day 3", or that the program is done.
    public var whatIsNext: String {
        guard let following else { return tr("{program} is complete. Well done!", ["program": title]) }
        return tr("Next time: {day}", ["day": following.title])
    }
}

/// A day of a program: `3.2` is week 3, day 2 (both 1-based).
public struct ProgramDay: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public let week: Int
    public let number: Int

    public init(week: Int, number: Int) {
        (self.week, self.number) = (week, number)
    }

    /// `3.2`; nil for anything else (no spaces, no signs, no zeros).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isASCIIDigit) }),
            let week = Int(parts[0]), let number = Int(parts[1]), week >= 1, number >= 1
        else { return nil }
        self.init(week: week, number: number)
    }

    public var description: String { "\(week).\(number)" }

    /// "Week 3, Day 2", in the reader's language.
    public var title: String {
        tr("Week {week}, Day {day}", ["week": "\(week)", "day": "\(number)"])
    }

    public static func < (left: ProgramDay, right: ProgramDay) -> Bool {
        (left.week, left.number) < (right.week, right.number)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = ProgramDay(text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a day: \(text)"))
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension PlanParser {
    /// Parses a program's text (docs/programs.md); `defaultName` names it when it has no `name` directive.
    public static func parseProgram(bytes: [UInt8], origin: String, defaultName: String) throws(PlanDiagnostic)
        -> Program
    {
        var parser = PlanTextParser(text: bytes, origin: origin)
        return try parser.parseProgram(defaultName: defaultName)
    }

    public static func parseProgram(_ text: String, origin: String, defaultName: String) throws(PlanDiagnostic)
        -> Program
    {
        try parseProgram(bytes: Array(text.utf8), origin: origin, defaultName: defaultName)
    }
}

extension PlanTextParser {
    /// `name` and `countdown`, then `week 1 { … }`, `week 2 { … }`…, each holding `day { PLAN }` or `Nx day { PLAN }`.
    mutating func parseProgram(defaultName: String) throws(PlanDiagnostic) -> Program {
        var weeks: [(start: Int, days: [(start: Int, root: PlanGroup, countdown: Int64?)])] = []
        while true {
            skipBlankAndSeparators()
            guard let byte = peek() else { break }
            let start = position
            guard isLetter(byte) else {
                throw error(
                    at: start,
                    tr(
                        "unexpected {found} (expected 'week' and its number, as in 'week 1 { 3x day { 20m run } }')",
                        ["found": describeToken(at: start)]))
            }
            let word = readWord()
            switch word {
            case "name", "countdown":
                guard weeks.isEmpty else {
                    throw error(at: start, tr("'{word}' must come before the first week", ["word": word]))
                }
                try parseDirective(word, at: start, topLevel: true)
            case "week":
                guard weeks.count < Program.maximumWeeks else {
                    throw error(
                        at: start,
                        tr("a program has at most {limit} weeks", ["limit": "\(Program.maximumWeeks)"]))
                }
                try expectWeekNumber(weeks.count + 1)
                weeks.append((start, try parseWeek(number: weeks.count + 1)))
            default:
                throw error(
                    at: start, tr("unknown directive '{word}' (expected name, countdown or week)", ["word": word]))
            }
            skipSpacesAndComment()
        }
        guard !weeks.isEmpty else {
            throw error(
                at: position, tr("the program has no weeks (expected a week such as 'week 1 { 3x day { 20m run } }')"))
        }
        let name = self.name ?? defaultName.terminalEscaped
        var days: [Program.Day] = []
        for (weekIndex, week) in weeks.enumerated() {
            for (dayIndex, day) in week.days.enumerated() {
                let id = ProgramDay(week: weekIndex + 1, number: dayIndex + 1)
                let plan = Plan(
                    name: Program.dayName(program: name, day: id), countdown: day.countdown ?? countdown,
                    root: day.root)
                days.append(Program.Day(id: id, plan: plan))
            }
        }
        return Program(name: name, days: days)
    }

    /// The number after `week`, which must be `expected`: weeks are numbered in order, so that "week 4" in the file is
    /// week 4 everywhere else.
    private mutating func expectWeekNumber(_ expected: Int) throws(PlanDiagnostic) {
        skipSpaces()
        let start = position
        let end = scanDigits(from: start)
        guard end > start, end - start <= 4, let number = Int(String(decoding: text[start..<end], as: UTF8.self)),
            number == expected
        else {
            throw error(
                at: start,
                tr("expected week {number} (weeks are numbered in order from 1)", ["number": "\(expected)"]))
        }
        position = end
    }

    /// `{ day { … } 2x day { … } }`: the week's days in order.
    private mutating func parseWeek(number: Int) throws(PlanDiagnostic)
        -> [(start: Int, root: PlanGroup, countdown: Int64?)]
    {
        skipBlank()
        let openedAt = position
        guard peek() == UInt8(ascii: "{") else {
            throw error(at: position, tr("expected '{' after 'week {number}'", ["number": "\(number)"]))
        }
        position += 1
        var days: [(start: Int, root: PlanGroup, countdown: Int64?)] = []
        while true {
            skipBlankAndSeparators()
            guard let byte = peek() else { throw unclosed(UInt8(ascii: "}"), openedAt: openedAt, found: nil) }
            if byte == UInt8(ascii: "}") {
                position += 1
                break
            }
            let start = position
            let count = try repeatCount() ?? 1
            skipSpaces()
            guard let letter = peek(), isLetter(letter), readWord() == "day" else {
                throw error(
                    at: start,
                    tr(
                        "expected 'day' or 'Nx day' in a week, as in '3x day { 5m walk, 20m run }', found {found}",
                        ["found": describeToken(at: start)]))
            }
            guard days.count + count <= Program.maximumDaysPerWeek else {
                throw error(
                    at: start,
                    tr("a week has at most {limit} days", ["limit": "\(Program.maximumDaysPerWeek)"]))
            }
            let day = try parseDay()
            for _ in 0..<count { days.append((start: start, root: day.root, countdown: day.countdown)) }
        }
        guard !days.isEmpty else {
            throw error(at: openedAt, tr("week {number} has no days", ["number": "\(number)"]))
        }
        return days
    }

    /// `{ PLAN }` after `day`: the items of a plan, with a `countdown` of its own if it has one.
    private mutating func parseDay() throws(PlanDiagnostic) -> (root: PlanGroup, countdown: Int64?) {
        skipBlank()
        let openedAt = position
        guard peek() == UInt8(ascii: "{") else { throw error(at: position, tr("expected '{' after 'day'")) }
        position += 1
        let programCountdown = countdown
        (countdown, sawStep, inProgramDay) = (nil, false, true)
        directiveOffsets["countdown"] = nil
        (depth, directiveDepth) = (1, 1)
        let (items, offsets) = try parseItems(closing: UInt8(ascii: "}"), openedAt: openedAt)
        (depth, directiveDepth, inProgramDay) = (0, 0, false)
        let dayCountdown = countdown
        countdown = programCountdown
        guard !items.isEmpty else {
            throw error(at: openedAt, tr("the day has no steps (expected a step such as '30s run')"))
        }
        return (try makeGroup(.once, items, offsets, at: openedAt, countAt: openedAt), dayCountdown)
    }
}

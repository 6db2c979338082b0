/// How far a person is in a program (docs/programs.md): the day to run next and the days done, each with when and
/// how. Only a finished workout or the person's own word ("mark done") makes a day done; a stopped or interrupted one
/// changes nothing. Kept by the daemon and `intervalctl` in `$XDG_STATE_HOME/intervald/programs/NAME.json`.
public struct ProgramProgress: Sendable, Equatable, Codable {
    public struct Completion: Sendable, Equatable, Codable {
        public enum How: String, Sendable, Equatable, Codable {
            /// Its workout ran to its end.
            case finished
            /// The person said it was done (`intervalctl program done`, the window's Mark as Done).
            case marked
        }

        public var day: ProgramDay
        /// µs since the Unix epoch.
        public var wall: Int64
        public var how: How
        /// The history record's id, for a finished day.
        @NullWhenAbsent public var workout: String?

        enum CodingKeys: String, CodingKey {
            case day, how, workout
            case wall = "wall_us"
        }

        public init(day: ProgramDay, wall: Int64, how: How, workout: String?) {
            (self.day, self.wall, self.how, self.workout) = (day, wall, how, workout)
        }
    }

    public static let currentVersion = 1

    public var version: Int
    /// The day to run next; nil once the last day is done.
    @NullWhenAbsent public var next: ProgramDay?
    /// In the order they were done.
    public var done: [Completion]

    /// At the start of `program`: nothing done, its first day next.
    public init(startOf program: Program) {
        version = Self.currentVersion
        next = program.firstDay
        done = []
    }

    /// The day to run next in `program` as it is now: the recorded one, or the first day after it if the file lost
    /// that day since; nil when the program is complete.
    public func nextDay(in program: Program) -> ProgramDay? {
        guard let next else { return nil }
        return program.day(next) != nil ? next : program.day(after: next)
    }

    public func isDone(_ day: ProgramDay) -> Bool {
        done.contains { $0.day == day }
    }

    /// Day `day`'s workout ran to its end: it is done, and if it was the next day or one after it, the day after it
    /// comes next. Doing an earlier day again moves nothing back.
    public mutating func finished(_ day: ProgramDay, in program: Program, wall: Int64, workout: String?) {
        complete(day, in: program, wall: wall, how: .finished, workout: workout)
    }

    /// The person says the next day is done without running it. Fails when the program is complete.
    public mutating func markNextDone(in program: Program, wall: Int64) throws(ProgramProgressError) {
        guard let day = nextDay(in: program) else { throw .complete }
        complete(day, in: program, wall: wall, how: .marked, workout: nil)
    }

    /// The day done last comes next again (repeat a day that was too hard). Fails when nothing is done yet.
    public mutating func repeatLastDone(in program: Program) throws(ProgramProgressError) {
        guard let last = done.last?.day, program.day(last) != nil else { throw .nothingDone }
        next = last
    }

    /// Day `day` comes next, whatever is done.
    public mutating func go(to day: ProgramDay, in program: Program) throws(ProgramProgressError) {
        guard program.day(day) != nil else { throw .noSuchDay(day, weeks: program.weekCount) }
        next = day
    }

    /// Back to the start: nothing done, the first day next. The history keeps every workout.
    public mutating func reset(to program: Program) {
        self = ProgramProgress(startOf: program)
    }

    private mutating func complete(
        _ day: ProgramDay, in program: Program, wall: Int64, how: Completion.How, workout: String?
    ) {
        done.append(Completion(day: day, wall: wall, how: how, workout: workout))
        guard let current = nextDay(in: program), day >= current else { return }
        next = program.day(after: day)
    }
}

public enum ProgramProgressError: Error, Sendable, Equatable, CustomStringConvertible {
    case complete
    case nothingDone
    case noSuchDay(ProgramDay, weeks: Int)

    public var description: String {
        switch self {
        case .complete: tr("the program is complete; 'reset' starts it again, 'goto' goes to a day")
        case .nothingDone: tr("no day is done yet, so there is none to repeat")
        case .noSuchDay(let day, let weeks):
            tr(
                "the program has no day {day} (it has {weeks} weeks; a day is WEEK.DAY, as in 1.1)",
                ["day": day.description, "weeks": "\(weeks)"])
        }
    }
}

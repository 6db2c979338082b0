import ArgumentParser
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime

struct ProgramsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "programs", abstract: "List the training programs, with how far you are in each.")

    @OptionGroup var output: CatalogOutput

    func run() throws {
        let ledger = ProgramLookup.ledger
        func list() -> [Entry] {
            ledger.catalog.items().map { item in
                switch item.program {
                case .success(let program):
                    let progress = ledger.store.load(item.name, of: program).progress
                    return Entry(
                        name: item.name, path: item.path, title: program.name,
                        next: progress.nextDay(in: program)?.description, error: nil, weeks: program.weekCount,
                        days: program.days.count, done: Set(progress.done.map(\.day)).count)
                case .failure(let failure):
                    return Entry(
                        name: item.name, path: item.path, title: nil, next: nil, error: failure.description,
                        weeks: nil, days: nil, done: nil)
                }
            }
        }
        try output.print(
            empty: tr(
                "No programs in {directories}.",
                ["directories": ledger.catalog.searchDirectories.joined(separator: ", ")]),
            name: \.name,
            columns: { entry in
                guard let title = entry.title, let days = entry.days, let done = entry.done else {
                    return ["invalid", entry.error ?? ""]
                }
                let next =
                    entry.next.flatMap(ProgramDay.init).map { tr("next {day}", ["day": $0.title]) } ?? tr("complete")
                return [
                    "\(title) · "
                        + trn("{count} day done of {days}", "{count} days done of {days}", done, ["days": "\(days)"])
                        + " · \(next)"
                ]
            }, entries: list)
    }

    struct Entry: Encodable {
        let name, path: String
        let title, next, error: String?
        let weeks, days, done: Int?
    }
}

struct ProgramCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "program",
        abstract:
            "Show a training program and your progress in it; mark a day done, repeat one, go to one, reset; be "
            + "reminded on your training days.",
        discussion: """
            A day is done when its workout finishes ('intervalctl start NAME' starts the next day); a workout \
            stopped early leaves it to do. These commands correct the progress by hand.
            """,
        subcommands: [Show.self, Done.self, Repeat.self, Goto.self, Reset.self, Remind.self, Export.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a program's weeks and days: each day's length and workout, what is done, what is next.")

        @OptionGroup var target: Target

        @Flag(help: "Print stable JSON for scripts instead of text.")
        var json = false

        func run() throws {
            let (name, ledger) = (target.name, ProgramLookup.ledger)
            if json {
                let report = try Localization.inEnglish { () throws -> Report in
                    let program = try ProgramLookup.program(name, in: ledger)
                    return Report(
                        program, name: name, progress: ledger.store.load(name, of: program).progress,
                        reminder: ProgramReminders(paths: ProgramLookup.paths).calendar(of: name))
                }
                Console.print(try stableJSON(report))
                return
            }
            let program = try ProgramLookup.program(name, in: ledger)
            let progress = ledger.store.load(name, of: program).progress
            let next = progress.nextDay(in: program)
            var lines = [ProgramLookup.nextSentence(program, progress)]
            if let calendar = ProgramReminders(paths: ProgramLookup.paths).calendar(of: name) {
                lines.append(tr("Reminder: {calendar}", ["calendar": calendar]))
            }
            for week in 1...max(program.weekCount, 1) where !program.days(ofWeek: week).isEmpty {
                lines.append(tr("Week {week}", ["week": "\(week)"]))
                for day in program.days(ofWeek: week) {
                    let mark = day.id == next ? "→" : progress.isDone(day.id) ? "✓" : " "
                    lines.append(
                        "  \(mark) \(day.id.description.padding(to: 5)) "
                            + "\(PlanReport.timeText(day.plan).padding(to: 6))  "
                            + PlanWriter.oneLineItems(of: day.plan))
                }
            }
            Console.print(lines.joined(separator: "\n"))
        }

        struct Report: Encodable {
            struct Day: Encodable {
                let day, plan: String
                let durationUs: Int64
                let done, next: Bool
            }
            let name, title: String
            let weeks: Int
            /// Null once the program is complete.
            @NullWhenAbsent var next: String?
            let days: [Day]
            let doneDays: [ProgramProgress.Completion]
            /// The reminder's calendar expression; null without one.
            @NullWhenAbsent var reminder: String?

            init(_ program: Program, name: String, progress: ProgramProgress, reminder: String?) {
                let next = progress.nextDay(in: program)
                self.name = name
                title = program.name
                weeks = program.weekCount
                self.next = next?.description
                days = program.days.map { day in
                    Day(
                        day: day.id.description, plan: PlanWriter.oneLineItems(of: day.plan),
                        durationUs: day.plan.duration, done: progress.isDone(day.id), next: day.id == next)
                }
                doneDays = progress.done
                self.reminder = reminder
            }
        }
    }

    /// The program a command is about, by the name `intervalctl programs` lists; and, for a ``ProgressCorrection``,
    /// changing its progress and saying where it stands afterwards.
    struct Target: ParsableArguments {
        @Argument(help: "The program's name, as 'intervalctl programs' lists it.")
        var name: String

        func change(_ body: (inout ProgramProgress, Program) throws(ProgramProgressError) -> Void) throws {
            let ledger = ProgramLookup.ledger
            let program = try ProgramLookup.program(name, in: ledger)
            do {
                let progress = try ledger.store.update(name, of: program) { progress throws(ProgramProgressError) in
                    try body(&progress, program)
                }
                Console.print(ProgramLookup.nextSentence(program, progress))
            } catch let error as ProgramProgressError {
                printError(error.description)
                throw ExitCode.failure
            } catch {
                printError("\(error)")
                throw ExitCode.failure
            }
        }
    }

    struct Done: ProgressCorrection {
        static let configuration = CommandConfiguration(
            commandName: "done",
            abstract: "Mark the next day done without running it (say, you ran it with another app).")

        @OptionGroup var target: Target

        func correct(_ progress: inout ProgramProgress, in program: Program) throws(ProgramProgressError) {
            try progress.markNextDone(in: program, wall: WallClock.microseconds())
        }
    }

    struct Repeat: ProgressCorrection {
        static let configuration = CommandConfiguration(
            commandName: "repeat",
            abstract: "Make the day done last the next one again (it was too hard; do it once more).")

        @OptionGroup var target: Target

        func correct(_ progress: inout ProgramProgress, in program: Program) throws(ProgramProgressError) {
            try progress.repeatLastDone(in: program)
        }
    }

    struct Goto: ProgressCorrection {
        static let configuration = CommandConfiguration(
            commandName: "goto",
            abstract: "Make day WEEK.DAY the next one (say, 3.1 to start week 3), whatever is done.")

        @Argument(help: "The day, as WEEK.DAY: 3.2 is week 3, day 2.")
        var day: String

        @OptionGroup var target: Target

        func validate() throws {
            if ProgramDay(day) == nil {
                throw ValidationError(tr("'{day}' is not a day (a day is WEEK.DAY, as in 3.2)", ["day": day]))
            }
        }

        func correct(_ progress: inout ProgramProgress, in program: Program) throws(ProgramProgressError) {
            try progress.go(to: ProgramDay(day) ?? ProgramDay(week: 1, number: 1), in: program)
        }
    }

    struct Reset: ProgressCorrection {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Start the program again from week 1, day 1; the history keeps every workout.")

        @OptionGroup var target: Target

        func correct(_ progress: inout ProgramProgress, in program: Program) {
            progress.reset(to: program)
        }
    }
}

/// A correction of a program's progress by hand (`done`, `repeat`, `goto`, `reset`): its change, made on the
/// progress as stored; then where the program stands is said.
protocol ProgressCorrection: ParsableCommand {
    var target: ProgramCommand.Target { get }
    func correct(_ progress: inout ProgramProgress, in program: Program) throws(ProgramProgressError)
}

extension ProgressCorrection {
    func run() throws {
        try target.change { progress, program throws(ProgramProgressError) in try correct(&progress, in: program) }
    }
}

extension ProgramCommand {
    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remind",
            abstract: "Be reminded of a program's next day on your training days, through a systemd user timer.",
            discussion: """
                --on takes systemd's calendar expression ('Mon,Wed,Fri 18:00'; see 'man systemd.time'). At that \
                time a notification shows the next day with Start and Later (again in an hour); a reminder missed \
                while the computer was off comes at the next login. Nothing runs between reminders. Without an \
                option, prints the program's reminder.
                """)

        @OptionGroup var target: Target

        @Option(name: .customLong("on"), help: "When to remind, as systemd's calendar expression.")
        var calendar: String?

        @Flag(help: "Remove the program's reminder.")
        var off = false

        @Flag(help: "Show the reminder now (what the reminder's timer runs).")
        var now = false

        func validate() throws {
            guard [calendar != nil, off, now].filter({ $0 }).count <= 1 else {
                throw ValidationError(tr("give one of --on, --off and --now"))
            }
        }

        func run() throws {
            let (name, reminders) = (target.name, ProgramReminders(paths: ProgramLookup.paths))
            if now {
                try DaemonConnection.call { client throws(TimerClientError) in
                    try client.call(TimerMethods.RemindProgram(program: name))
                }
                return
            }
            if off {
                let had: Bool
                do {
                    had = try reminders.remove(program: name)
                } catch {
                    printError(error.description)
                    throw error.isUnreachable ? ExitStatus.unreachable : ExitCode.failure
                }
                Console.print(
                    had
                        ? tr("{name}: no more reminders.", ["name": name])
                        : tr("{name} had no reminder.", ["name": name]))
                return
            }
            // A reminder needs a program it can start.
            _ = try ProgramLookup.program(name, in: ProgramLookup.ledger)
            guard let calendar else {
                Console.print(
                    reminders.calendar(of: name).map { tr("Reminder: {calendar}", ["calendar": $0]) }
                        ?? tr("{name} has no reminder ('--on' sets one).", ["name": name]))
                return
            }
            let reminder: ProgramReminder
            do {
                reminder = try ProgramReminder(program: name, calendar: calendar)
            } catch {
                throw ValidationError(tr("--on: {reason}", ["reason": error.description]))
            }
            let next: UInt64?
            do {
                next = try reminders.install(reminder, intervalctl: InstallPrefix.sibling("intervalctl"))
            } catch {
                // A calendar expression systemd refused is a bad argument, as the one refused above.
                if error.isRefusedCalendar { throw ValidationError(error.description) }
                printError(error.description)
                throw error.isUnreachable ? ExitStatus.unreachable : ExitCode.failure
            }
            Console.print(ProgramReminders.setText(reminder.calendar, next: next))
        }
    }
}

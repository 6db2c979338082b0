import ArgumentParser
import IntervalCore
import IntervalRuntime
import IntervalWatch

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "List the connected Garmin watches, or send workouts to one (docs/fit.md).",
        discussion: """
            A watch is a mount with a GARMIN folder at its root (a watch as USB storage) or in one of its top-level \
            folders (an MTP watch, as GNOME Files shows it: "Internal Storage/GARMIN"). Workouts go to \
            GARMIN/NewFiles; the watch files them when it is unplugged.
            """,
        subcommands: [List.self, Send.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the connected watches: the name GIO shows, where the GARMIN folder is, and free space.",
            discussion: "With none connected: \"No watch is connected.\" on standard error, and exit 1.")

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let watches = WatchFinder.connected()
            if json { Console.print(try stableJSON(watches.map(Entry.init))) }
            guard !watches.isEmpty else {
                Console.error(WatchError(.noWatch).description + "\n")
                throw ExitCode.failure
            }
            guard !json else { return }
            let width = watches.map(\.name.count).max() ?? 0
            for watch in watches {
                Console.print("\(watch.name.padding(to: width))  \(watch.location)  \(watch.freeSpaceText)")
            }
        }

        struct Entry: Encodable {
            let name, location, uri: String
            /// Null when the watch does not say.
            @NullWhenAbsent var freeBytes: UInt64?

            init(_ watch: Watch) {
                (name, location, uri, freeBytes) = (watch.name, watch.location, watch.folder, watch.freeBytes)
            }
        }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send plans, or a training program's days, to a watch as FIT workouts.",
            discussion: """
                Each workout is copied to the watch's GARMIN/NewFiles, named as 'plan export' and 'program export' \
                name it; a file of that name there is replaced. A FILE that is a FIT workout is sent as it is (a step \
                intervald cannot time, ended by Lap, included: the watch runs it). \
                With --program, the program's next day is sent, or day --day WEEK.DAY, or every day of --week WEEK. \
                Every workout is made before the first is sent: an invalid plan exits 65 and sends nothing. A copy \
                that fails leaves nothing of its file on the watch, says why, and exits 1.
                """)

        @Argument(help: ArgumentHelp("Plan files or names, or FIT workout files.", valueName: "PLAN"))
        var plans: [String] = []

        @Option(
            name: [.customShort("e"), .customLong("expression")], help: "A one-line plan, e.g. '8x(30s run, 30s walk)'."
        )
        var expression: String?

        @Option(
            help: ArgumentHelp(
                "A training program, as 'intervalctl programs' lists it: its next day, or --day or --week.",
                valueName: "NAME"))
        var program: String?

        @Option(help: ArgumentHelp("With --program: day WEEK.DAY (3.2 is week 3, day 2).", valueName: "W.D"))
        var day: String?

        @Option(help: ArgumentHelp("With --program: every day of week WEEK.", valueName: "W"))
        var week: Int?

        @Option(
            help: ArgumentHelp("The watch to send to, by its name, when several are connected.", valueName: "NAME"),
            completion: .custom { _, _, _ in WatchFinder.connected().map(\.name) })
        var watch: String?

        func validate() throws {
            guard [!plans.isEmpty, expression != nil, program != nil].filter({ $0 }).count == 1 else {
                throw ValidationError(tr("Give PLAN…, -e EXPR or --program NAME (one of them)."))
            }
            if program == nil, day != nil || week != nil {
                throw ValidationError(tr("--day and --week are for --program."))
            }
            if day != nil, week != nil { throw ValidationError(tr("Give either --day or --week, not both.")) }
            if let week, week < 1 { throw ValidationError(tr("--week counts from 1.")) }
        }

        func run() throws {
            let workouts = try self.workouts()
            let chosen: Watch
            do throws(WatchError) {
                chosen = try Watch.choose(watch, from: WatchFinder.connected())
            } catch {
                // "No watch is connected." is said as `intervalctl watch` says it.
                if error.code == .noWatch {
                    Console.error(error.description + "\n")
                } else {
                    printError(error.description)
                }
                throw ExitCode.failure
            }
            var sent: [String] = []
            for workout in workouts {
                do throws(WatchError) {
                    let location = try WatchWriter.send(workout.bytes, as: workout.file, to: chosen)
                    Console.print(tr("Sent “{name}” as {file}", ["name": workout.name, "file": location]))
                    sent.append(workout.name)
                } catch {
                    printError(error.description)
                    throw ExitCode.failure
                }
            }
            Console.print(chosen.sentText(sent))
        }

        /// A workout to send: what it is called, its FIT bytes and the file it goes to.
        struct Workout {
            let name: String
            let bytes: [UInt8]
            let file: String
        }

        /// Every workout asked for, made before any is sent.
        func workouts() throws -> [Workout] {
            if let program { return try days(of: program) }
            let sources =
                if let expression { [try PlanSource.resolve(plan: nil, expression: expression)] } else {
                    try plans.map { try PlanSource.resolve(plan: $0, expression: nil) }
                }
            return try sources.map { source in
                if FIT.hasSignature(source.bytes) { return try fitFile(source) }
                let plan: Plan
                do {
                    plan = try source.parse()
                } catch {
                    Console.error("\(error)\n")
                    throw ExitStatus.invalidPlan
                }
                return Workout(
                    name: plan.name, bytes: try FITExport.bytes(of: plan, format: .fit),
                    file: FIT.fileName(for: plan.name, extension: "fit"))
            }
        }

        /// A FIT workout file, sent as it is under its own name once it is checked to be one.
        private func fitFile(_ source: PlanSource) throws -> Workout {
            do throws(FITWorkoutError) {
                let name = try Watch.workoutName(inFIT: source.bytes) ?? source.defaultName
                let file = source.origin.split(separator: "/").last.map(String.init) ?? source.origin
                return Workout(name: name, bytes: source.bytes, file: file)
            } catch {
                Console.error(tr("{file}: error: {message}", ["file": source.origin, "message": error.message]) + "\n")
                throw ExitStatus.invalidPlan
            }
        }

        /// The days of program `name` asked for: the next one, `--day` or every day of `--week`.
        private func days(of name: String) throws -> [Workout] {
            let ledger = ProgramLookup.ledger
            let program = try ProgramLookup.program(name, in: ledger)
            let days: [ProgramDay]
            if let week {
                days = program.days(ofWeek: week).map(\.id)
                guard !days.isEmpty else {
                    printError(
                        tr(
                            "{program} has no week {week} (it has {weeks})",
                            ["program": program.name, "week": "\(week)", "weeks": "\(program.weekCount)"]))
                    throw ExitCode.failure
                }
            } else {
                do throws(TimerCommandError) {
                    days = [try ledger.dayToStart(program, named: name, day: day ?? "").reference.day]
                } catch {
                    printError(error.message)
                    throw ExitCode.failure
                }
            }
            return try days.compactMap { id in
                guard let day = program.day(id) else { return nil }
                return Workout(
                    name: day.plan.name, bytes: try FITExport.bytes(of: day.plan, format: .fit),
                    file: FIT.fileName(for: Program.fileStem(program: program.name, day: id), extension: "fit"))
            }
        }
    }
}

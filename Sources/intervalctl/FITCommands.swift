import ArgumentParser
import Glibc
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime
import IntervalSettings

extension PlanCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a plan as a FIT workout for a watch or Garmin Connect (docs/fit.md), or as plan text.",
            discussion: """
                The file is named after the plan ("Galloway 30-30.fit") unless -o says otherwise; '-o -' writes to \
                standard output. A name longer than a watch shows is shortened, and said; a plan of more steps than \
                a FIT workout holds is refused (exit 65) and nothing is written.
                """
        )

        @OptionGroup var input: PlanInput

        @Option(help: "fit (a FIT workout) or plan (plan language).")
        var format: ExportFormat = .fit

        @Option(name: .shortAndLong, help: "The file to write ('-': standard output).")
        var output: String?

        func run() throws {
            let loaded = try input.load()
            let bytes = try FITExport.bytes(of: loaded.plan, format: format)
            let path = output ?? FIT.fileName(for: loaded.plan.name, extension: format.rawValue)
            try FITExport.write(bytes, to: path)
            if path != "-" {
                Console.error(tr("Wrote {path}", ["path": path]) + "\n")
            }
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Make a plan of a FIT workout (intervald's, Garmin Connect's) in your plans folder.",
            discussion: """
                The plan is added to $XDG_CONFIG_HOME/intervald/plans (never over another plan; a plan of the same \
                name, a bundled one too, is refused: give it another with --name), or written where -o says ('-': \
                standard output). Steps a watch ends by its Lap button, a distance or a sensor are open steps; \
                heart rates given as a percentage of the maximum become bpm with [sensors] max_heart_rate when it is set. A file \
                that is not a FIT workout, is damaged or repeats until a value only a sensor tells is refused (exit 65) and \
                nothing is written.
                """
        )

        @Argument(help: "A FIT workout file.")
        var file: String

        @Option(help: "The plan's name (default: the workout's name).")
        var name: String?

        @Option(name: .shortAndLong, help: "The plan file to write ('-': standard output).")
        var output: String?

        func run() throws {
            let bytes = try failingOnFileError { () throws(FileError) in
                try FileBytes.read(file, limit: WorkoutSession.maximumPlanTextBytes * 16)
            }
            let plan: Plan
            do throws(FITWorkoutError) {
                // Heart rates as a percentage of the maximum become bpm with the settings' maximum.
                plan = try FITWorkout.decode(
                    bytes, name: name, fallbackName: PlanLocator.planName(forPath: file),
                    maxHeartRate: SettingsFile.load(path: ProgramLookup.paths.settingsFile).0.sensors.maxHeartRate)
            } catch {
                Console.error(tr("{file}: error: {message}", ["file": file, "message": error.message]) + "\n")
                throw ExitStatus.invalidPlan
            }
            let text = PlanWriter.text(for: plan)
            if let output {
                try FITExport.write(Array(text.utf8), to: output)
                if output != "-" { Console.error(tr("Wrote {path}", ["path": output]) + "\n") }
                return
            }
            // The window's rule: no second plan of a name, which would hide a bundled one or list two alike.
            if let namesake = PlanCatalog(locator: PlanLocator(paths: ProgramLookup.paths)).namesake(of: plan.name) {
                printError(
                    tr(
                        "a plan named “{name}” exists already ({path}); import it under another name with --name NAME",
                        ["name": plan.name, "path": namesake.path]))
                throw ExitCode.failure
            }
            let path = try failingOnFileError { () throws(FileError) in
                try PlanLibrary(paths: ProgramLookup.paths).add(text, named: plan.name)
            }
            Console.print(tr("Imported {plan} as {path}", ["plan": plan.name, "path": path]))
        }
    }
}

extension ProgramCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a training program's days as FIT workouts, one file a day (\"Couch to 5K W3D2.fit\").")

        @OptionGroup var target: Target

        @Option(help: "Only day WEEK.DAY (3.2 is week 3, day 2).")
        var day: String?

        @Option(name: .shortAndLong, help: "The folder to write into (made if missing).")
        var output: String

        func run() throws {
            let program = try ProgramLookup.program(target.name, in: ProgramLookup.ledger)
            var days = program.days
            if let day {
                guard let id = ProgramDay(day), let chosen = program.day(id) else {
                    printError(tr("{program} has no day {day}", ["program": program.name, "day": day]))
                    throw ExitCode.failure
                }
                days = [chosen]
            }
            try failingOnFileError { () throws(FileError) in try FileBytes.makeDirectories(output) }
            for day in days {
                let bytes = try FITExport.bytes(of: day.plan, format: .fit)
                let file = FIT.fileName(for: Program.fileStem(program: program.name, day: day.id), extension: "fit")
                try FITExport.write(bytes, to: "\(output)/\(file)")
            }
            Console.error(
                trn(
                    "Wrote {count} workout to {folder}", "Wrote {count} workouts to {folder}", days.count,
                    ["folder": output])
                    + "\n")
        }
    }
}

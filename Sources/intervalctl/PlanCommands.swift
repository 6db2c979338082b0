import ArgumentParser
import FoundationEssentials
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Check plans, show their timelines and totals, and export and import them (FIT workouts).",
        subcommands: [Check.self, Show.self, Export.self, Import.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract:
                "Validate plan files and training programs (*.program); print every file's diagnostic and exit 65 if any is invalid (1 if one cannot be read)."
        )

        @Argument(help: "Plan files or names ('-' reads standard input).")
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError(tr("Give at least one plan file.")) }
        }

        func run() throws {
            var invalid = 0
            var unreadable = 0
            for file in files {
                if file.hasSuffix(".program") {
                    switch Self.checkProgram(file) {
                    case .success: break
                    case .failure(.invalid): invalid += 1
                    case .failure(.unreadable): unreadable += 1
                    }
                    continue
                }
                // An unreadable file is reported and counted; the others are still checked.
                guard let source = try? PlanSource.resolve(plan: file, expression: nil) else {
                    unreadable += 1
                    continue
                }
                do {
                    let plan = try source.parse()
                    Console.print("\(source.origin): ok: \(plan.name), \(PlanReport.lengthText(plan))")
                    for note in plan.notes { Console.error("\(note)\n") }
                } catch {
                    invalid += 1
                    Console.error("\(error)\n")
                }
            }
            if invalid > 0 { throw ExitStatus.invalidPlan }
            if unreadable > 0 { throw ExitCode.failure }
        }

        /// A training program's file (docs/programs.md): its weeks and days, or its diagnostic.
        static func checkProgram(_ path: String) -> Result<Void, PlanCatalog.LoadFailure> {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            let item = ProgramCatalog.load(name: String(base.dropLast(".program".count)), path: path)
            switch item.program {
            case .success(let program):
                Console.print(
                    "\(path): ok: \(program.name), "
                        + trn("{count} week", "{count} weeks", program.weekCount) + ", "
                        + trn("{count} day", "{count} days", program.days.count))
                return .success(())
            case .failure(.invalid(let diagnostic)):
                Console.error("\(diagnostic)\n")
                return .failure(.invalid(diagnostic))
            case .failure(.unreadable(let error)):
                printError(error.description)
                return .failure(.unreadable(error))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a plan's timeline, with repeats folded, and its totals.",
            discussion:
                "Totals: duration, segment count, repetitions, time per kind, and distance and average pace where every step has a pace."
        )

        @OptionGroup var input: PlanInput

        @Flag(help: "Print stable JSON for scripts instead of text.")
        var json = false

        func run() throws {
            let loaded = try input.load()
            if json {
                Console.print(try PlanJSON(loaded).encoded())
            } else {
                Console.print(PlanReport.text(for: loaded.plan))
            }
        }
    }
}

struct PlansCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plans", abstract: "List the named plans with their durations.")

    @OptionGroup var output: CatalogOutput

    func run() throws {
        let locator = PlanLocator(paths: XDGPaths(environment: ProcessInfo.processInfo.environment))
        func list() -> [NamedPlan] {
            PlanCatalog(locator: locator).items().map { item in
                switch item.plan {
                case .success(let plan):
                    NamedPlan(
                        name: item.name, path: item.path, title: plan.name, error: nil, durationUs: plan.duration,
                        openSteps: plan.openStepCount, length: PlanReport.timeText(plan))
                case .failure(let failure):
                    NamedPlan(
                        name: item.name, path: item.path, title: nil, error: failure.description, durationUs: nil,
                        openSteps: nil, length: nil)
                }
            }
        }
        try output.print(
            empty: tr(
                "No named plans in {directories}.", ["directories": locator.searchDirectories.joined(separator: ", ")]),
            name: \.name,
            columns: { entry in
                entry.length.map { [$0, Localization.planName(entry.title ?? "")] } ?? ["invalid", entry.error ?? ""]
            }, entries: list)
    }

    struct NamedPlan: Encodable {
        let name, path: String
        let title, error: String?
        /// The timed steps' time, and the steps the person ends (docs/plan-language.md).
        let durationUs, openSteps: Int64?
        /// "24:00 + 2 open steps", for the text listing only.
        let length: String?

        private enum CodingKeys: String, CodingKey {
            case name, path, title, error, durationUs, openSteps
        }
    }
}

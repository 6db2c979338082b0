import ArgumentParser
import FoundationEssentials
import IntervalCore
import IntervalRuntime

/// The programs and their progress, as this process's environment finds them (the daemon's, on one session).
package enum ProgramLookup {
    package static var paths: XDGPaths { XDGPaths(environment: ProcessInfo.processInfo.environment) }

    package static var ledger: ProgramLedger { ProgramLedger(paths: paths) }

    /// Program `name`, parsed; a missing one exits 1 with its message, an invalid one 65 with its diagnostic as is.
    package static func program(_ name: String, in ledger: ProgramLedger) throws -> Program {
        do {
            return try ledger.program(named: name)
        } catch {
            guard ledger.catalog.item(named: name) != nil else {
                printError(error.message)
                throw ExitCode.failure
            }
            Console.error(error.message + "\n")
            throw ExitStatus.invalidPlan
        }
    }

    /// "Couch to 5K: next is Week 3, Day 2 (25:00)", or that it is complete.
    package static func nextSentence(_ program: Program, _ progress: ProgramProgress) -> String {
        guard let next = progress.nextDay(in: program), let day = program.day(next) else {
            return tr("{program}: complete. Well done!", ["program": program.name])
        }
        return tr(
            "{program}: next is {day} ({length})",
            [
                "program": program.name, "day": next.title,
                "length": PlanReport.timeText(day.plan),
            ])
    }
}

import ArgumentParser
import FoundationEssentials
import IntervalCore
import IntervalRuntime

/// Every command, here and below, names itself (`commandName`): a name made from the type's costs a scan of every
/// protocol conformance in the binary, 1.5 ms of each `intervalctl start` (docs/benchmarks.md).
@main
struct IntervalCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervalctl",
        abstract: "Control intervald, the workout interval timer, and work with interval plans.",
        discussion: """
            PLAN is a path to a .plan file, or a name looked up as NAME.plan in $XDG_CONFIG_HOME/intervald/plans, \
            $XDG_DATA_HOME/intervald/plans and intervald/plans under each of $XDG_DATA_DIRS.

            Exit codes: 0 success, 64 usage, 65 invalid plan, 69 daemon unreachable, 1 any other failure.
            """,
        version: DesktopIdentity.version,
        subcommands: [
            StartCommand.self, DaemonControlCommand<TimerMethods.Stop>.self,
            DaemonControlCommand<TimerMethods.Pause>.self, DaemonControlCommand<TimerMethods.Resume>.self,
            DaemonControlCommand<TimerMethods.Skip>.self,
            StatusCommand.self, HistoryCommand.self, RunCommand.self, TestSoundCommand.self, PlanCommand.self,
            PlansCommand.self, ProgramsCommand.self, ProgramCommand.self, WatchCommand.self, SensorsCommand.self,
            CalcCommand.self, ReloadCommand.self,
        ]
    )

    /// Runs the command; usage errors are worded as every other error (`intervalctl: error: …`, docs/reference.md §2),
    /// followed by the usage, and exit 64.
    static func main() {
        Gettext.install(environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            var text = fullMessage(for: error)
            if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
            printError(text)
            exit(withError: ExitCode.validationFailure)
        }
    }
}

/// Exit codes of docs/reference.md §2.
enum ExitStatus {
    /// A plan, or a settings file, that is not valid.
    static let invalidPlan = ExitCode(65)
    static let unreachable = ExitCode(69)
}

/// Writes `intervalctl: error: …` to stderr.
func printError(_ message: String) {
    Console.error(tr("intervalctl: error: {message}", ["message": message]) + "\n")
}

/// What `body` answers; a file it cannot read or write is said, and exits 1.
func failingOnFileError<Value>(_ body: () throws(FileError) -> Value) throws -> Value {
    do throws(FileError) {
        return try body()
    } catch {
        printError(error.description)
        throw ExitCode.failure
    }
}

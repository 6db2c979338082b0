import ArgumentParser
import IntervalCore
import IntervalCtlCommon
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
            StatusCommand.self, HistoryCommand.self, RunCommand<DesktopExecutable>.self,
            TestSoundCommand<DesktopExecutable>.self, PlanCommand.self,
            PlansCommand.self, ProgramsCommand.self, ProgramCommand.self, WatchCommand<DesktopExecutable>.self,
            SensorsCommand.self,
            CalcCommand.self, ReloadCommand.self,
        ]
    )

    static func main() {
        CommandLineTool.main(Self.self)
    }
}

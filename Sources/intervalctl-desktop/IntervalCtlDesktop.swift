import ArgumentParser
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime

/// intervalctl's desktop half (``DesktopCommandPerformer``): intervalctl hands it `run`, `test-sound` and `watch`,
/// with the command line it was given. Named `intervalctl` too, so that its usage and errors read as intervalctl's.
@main
struct IntervalCtlDesktop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervalctl",
        abstract: "The commands of intervalctl that use the desktop; intervalctl runs this for them.",
        version: DesktopIdentity.version,
        subcommands: [RunCommand<InProcess>.self, TestSoundCommand<InProcess>.self, WatchCommand<InProcess>.self]
    )

    static func main() {
        CommandLineTool.main(Self.self)
    }
}

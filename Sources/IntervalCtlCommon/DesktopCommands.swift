import ArgumentParser
import Glibc
import IntervalCore
import IntervalRuntime

/// The commands that use the desktop: a workout in the foreground, with notifications, sounds and the media player
/// (`run`), the sound check (`test-sound`) and the watches, found through GIO (`watch`). Their work is done by a second
/// executable, intervalctl-desktop, so that every other command of intervalctl starts without loading libnotify,
/// libcanberra, libpulse, GIO and the forty libraries those load (docs/benchmarks.md, "The command line's start").
///
/// Both executables parse these commands with the same definitions, each with its own `Performer`: intervalctl's
/// (``DesktopExecutable``) replaces the process with intervalctl-desktop, given the same arguments; the desktop
/// half's runs the command. So intervalctl's help, completions and man page describe them as before.
package protocol DesktopCommandPerformer: SendableMetatype {
    static func run(_ command: RunCommand<Self>) throws
    static func testSound(_ command: TestSoundCommand<Self>) throws
    static func listWatches(_ command: WatchListCommand<Self>) throws
    static func sendToWatch(_ command: WatchSendCommand<Self>) throws
    /// The names `watch send --watch` completes.
    static func connectedWatchNames() -> [String]
}

package struct RunCommand<Performer: DesktopCommandPerformer>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "run",
            abstract:
                "Run a plan in the foreground, without the daemon: terminal progress and notifications with Stop.",
            discussion: """
                Ctrl-C or the notification's Stop button ends the workout; both exit 0 and say how it ended. \
                A step you end yourself ('open', or a distance without a pace) ends with Enter on the terminal, the \
                notification's Done button or the media player's Next. \
                The daemon's settings file applies (buttons, urgency, sounds, voice, countdown, hooks); \
                --silent and --voice override it.
                """
        )
    }

    @OptionGroup package var input: PlanInput

    @Flag(help: "Show no desktop notifications, only terminal progress.")
    package var noNotifications = false

    @Flag(help: "Play no sound with the cues.")
    package var silent = false

    @Flag(help: "Speak each change, the countdown and the summary (through speech-dispatcher).")
    package var voice = false

    @Option(help: "Settings file to read instead of $XDG_CONFIG_HOME/intervald/intervald.toml.")
    package var config: String?

    package init() {}

    package func run() throws {
        try Performer.run(self)
    }
}

package struct TestSoundCommand<Performer: DesktopCommandPerformer>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "test-sound",
            abstract: "Play each cue sound once, so that you hear them before a workout.",
            discussion: """
                Plays the sounds of a change to work and to rest, the countdown pips and the finish, through the \
                desktop's sound server (libcanberra), with the defaults of intervald.toml's [sound]. Exits 1 if a \
                sound could not be played (no audio server, say), saying which and why.
                """
        )
    }

    @Flag(help: "Also say a phrase through speech-dispatcher, as `voice = true` does.")
    package var voice = false

    package init() {}

    package func run() throws {
        try Performer.testSound(self)
    }
}

/// intervalctl's performer: this process becomes intervalctl-desktop, with the same arguments, standard streams and
/// signals; what it prints and its exit status are the command's.
package enum DesktopExecutable: DesktopCommandPerformer {
    private static let name = "intervalctl-desktop"

    package static func run(_: RunCommand<Self>) throws {
        try replaceProcess()
    }

    package static func testSound(_: TestSoundCommand<Self>) throws {
        try replaceProcess()
    }

    package static func listWatches(_: WatchListCommand<Self>) throws {
        try replaceProcess()
    }

    package static func sendToWatch(_: WatchSendCommand<Self>) throws {
        try replaceProcess()
    }

    /// A shell's completion asks with `intervalctl ---completion watch send -- --watch …`: the desktop half, given
    /// the same arguments, answers it.
    package static func connectedWatchNames() -> [String] {
        try? replaceProcess()
        return []
    }

    private static func replaceProcess() throws {
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        // Installed: PREFIX/libexec/intervald beside PREFIX/bin (scripts/install, the package); else beside
        // intervalctl (a build's, `.build/debug`).
        let installed = InstallPrefix.path("libexec/intervald/\(name)")
        let candidates = [installed, InstallPrefix.sibling(name)].compactMap(\.self)
        var failure = (path: candidates[0], code: ENOENT)
        for path in candidates {
            execv(path, arguments)
            let code = errno
            // Only a missing file sends the search on: one that is there but cannot run is said as it is.
            guard code == ENOENT || code == ENOTDIR else {
                failure = (path, code)
                break
            }
            failure.code = code
        }
        printError(tr("cannot run '{path}': {reason}", ["path": failure.path, "reason": errnoText(failure.code)]))
        throw ExitCode.failure
    }
}

/// `intervalctl watch`: its subcommands list the watches and send workouts to one, through GIO (IntervalWatch).
package struct WatchCommand<Performer: DesktopCommandPerformer>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "watch",
            abstract: "List the connected Garmin watches, or send workouts to one (docs/fit.md).",
            discussion: """
                A watch is a mount with a GARMIN folder at its root (a watch as USB storage) or in one of its \
                top-level folders (an MTP watch, as GNOME Files shows it: "Internal Storage/GARMIN"). Workouts go to \
                GARMIN/NewFiles; the watch files them when it is unplugged.
                """,
            subcommands: [WatchListCommand<Performer>.self, WatchSendCommand<Performer>.self],
            defaultSubcommand: WatchListCommand<Performer>.self
        )
    }

    package init() {}
}

package struct WatchListCommand<Performer: DesktopCommandPerformer>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "list",
            abstract: "List the connected watches: the name GIO shows, where the GARMIN folder is, and free space.",
            discussion: "With none connected: \"No watch is connected.\" on standard error, and exit 1.")
    }

    @Flag(help: "Print JSON instead of text.")
    package var json = false

    package init() {}

    package func run() throws {
        try Performer.listWatches(self)
    }
}

package struct WatchSendCommand<Performer: DesktopCommandPerformer>: ParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
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
    }

    @Argument(help: ArgumentHelp("Plan files or names, or FIT workout files.", valueName: "PLAN"))
    package var plans: [String] = []

    @Option(
        name: [.customShort("e"), .customLong("expression")], help: "A one-line plan, e.g. '8x(30s run, 30s walk)'."
    )
    package var expression: String?

    @Option(
        help: ArgumentHelp(
            "A training program, as 'intervalctl programs' lists it: its next day, or --day or --week.",
            valueName: "NAME"))
    package var program: String?

    @Option(help: ArgumentHelp("With --program: day WEEK.DAY (3.2 is week 3, day 2).", valueName: "W.D"))
    package var day: String?

    @Option(help: ArgumentHelp("With --program: every day of week WEEK.", valueName: "W"))
    package var week: Int?

    @Option(
        help: ArgumentHelp("The watch to send to, by its name, when several are connected.", valueName: "NAME"),
        completion: .custom { _, _, _ in Performer.connectedWatchNames() })
    package var watch: String?

    package func validate() throws {
        guard [!plans.isEmpty, expression != nil, program != nil].filter({ $0 }).count == 1 else {
            throw ValidationError(tr("Give PLAN…, -e EXPR or --program NAME (one of them)."))
        }
        if program == nil, day != nil || week != nil {
            throw ValidationError(tr("--day and --week are for --program."))
        }
        if day != nil, week != nil { throw ValidationError(tr("Give either --day or --week, not both.")) }
        if let week, week < 1 { throw ValidationError(tr("--week counts from 1.")) }
    }

    package init() {}

    package func run() throws {
        try Performer.sendToWatch(self)
    }
}

import ArgumentParser
import FoundationEssentials
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalSettings

struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the daemon read intervald.toml again; print the file's problems (exit 65 if any).",
        discussion: """
            The running daemon applies the settings from its next cue, without interrupting a workout (as SIGHUP \
            and a change of the file do); a setting whose new value is invalid keeps the value it had. With no \
            daemon running, the file is only checked: the next daemon reads it as it starts.
            """
    )

    func run() throws {
        let answer = try DaemonConnection.call { client throws(TimerClientError) in
            try client.callIfRunning(TimerMethods.ReloadSettings())?.problems
        }
        let problems: [String]
        if let answer {
            problems = answer
        } else {
            let paths = XDGPaths(environment: ProcessInfo.processInfo.environment)
            problems = SettingsFile.read(path: paths.settingsFile).problems
            Console.print(tr("intervald is not running; it reads the settings when it starts."))
        }
        for problem in problems { Console.error(problem + "\n") }
        if !problems.isEmpty { throw ExitStatus.invalidPlan }
    }
}

import ArgumentParser
import FoundationEssentials
import Glibc
import IntervalCore
import IntervalRuntime
import IntervalSettings
import IntervalSound
import Logging

@main
struct Intervald: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intervald",
        abstract:
            "The intervald daemon: runs interval workouts, cues them as desktop notifications, and serves org.intervald.Timer1 on the session bus.",
        discussion: """
            Normally started by D-Bus activation or by systemd (intervald.service); logs go to stderr.
            Control it with intervalctl. Settings: $XDG_CONFIG_HOME/intervald/intervald.toml, read again when it \
            changes, on SIGHUP and on 'intervalctl reload'. SIGTERM and SIGINT stop the workout and exit.
            """,
        version: DesktopIdentity.version
    )

    @Option(help: "Settings file to read instead of $XDG_CONFIG_HOME/intervald/intervald.toml.")
    var config: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func run() throws {
        // Before anything else: it may exec this binary again.
        let threadCaches = MallocTuning.turnOffThreadCaches()
        // First, before any thread, queue or bus name exists: a SIGTERM from here on takes the clean shutdown path.
        let signals = try SignalWatcher.catching([SIGTERM, SIGINT, SIGHUP])
        MallocTuning.useOneArena()
        // The session's language for the desktop's words, before any thread starts (docs/reference.md §9).
        Gettext.install(environment: ProcessInfo.processInfo.environment)
        SpeechVoice.tagSpeechServiceStreams()
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "intervald")
        if case .failed(let error) = threadCaches {
            logger.warning(
                "Could not turn malloc's per-thread caches off; running with them.",
                metadata: ["error": "\(errnoText(error))"])
        }
        let paths = XDGPaths(environment: ProcessInfo.processInfo.environment)
        let settingsPath = config ?? paths.settingsFile
        let settings = SettingsFile.read(path: settingsPath)
        for problem in settings.problems {
            logger.warning("Ignoring a problem in the settings.", metadata: ["problem": "\(problem)"])
        }
        let daemon = Daemon(
            logger: logger, settings: settings, settingsPath: settingsPath, paths: paths, signals: signals)
        do {
            try daemon.start()
        } catch {
            logger.critical("Failed to start.", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
        // The main thread only waits from here on; nothing in the daemon runs on the main queue. Not dispatchMain():
        // it ends the main thread with pthread_exit, whose unwinding of the thread's stack loads libgcc_s and reads
        // 0.3 MiB of the binary's unwind tables for good (docs/benchmarks.md, "Footprint of the package").
        while true {
            pause()
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

import FoundationEssentials
import Glibc
import IntervalRuntime
import Logging

// The Interval Timer window (docs/reference.md §10). `interval-timer` opens it; `--start PLAN` starts a plan and shows
// it; GApplication's own options (`--gapplication-service` for D-Bus activation) are understood too.
Gettext.install(environment: ProcessInfo.processInfo.environment)
var logger = Logger(label: "interval-timer")
logger.logLevel = ProcessInfo.processInfo.environment["INTERVALD_WINDOW_DEBUG"] == nil ? .notice : .debug
let application = TimerApplication(environment: ProcessInfo.processInfo.environment, logger: logger)
exit(application.run(CommandLine.arguments))

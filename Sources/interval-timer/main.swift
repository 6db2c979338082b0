import FoundationEssentials
import Glibc
import IntervalRuntime
import Logging

// The Interval Timer window (docs/reference.md §10). `interval-timer` opens it; `--start PLAN` starts a plan and shows
// it; GApplication's own options (`--gapplication-service` for D-Bus activation) are understood too.
let environment = ProcessInfo.processInfo.environment
Gettext.install(environment: environment)
// Without a GPU (no DRM render node), GTK's GL renderer runs in software (Mesa's llvmpipe) and paints the digits
// 17–35 ms after their instant; cairo paints them within one frame (docs/benchmarks.md, "The window"). A renderer
// the user chose is kept.
if environment["GSK_RENDERER"] == nil, !hasRenderNode() {
    setenv("GSK_RENDERER", "cairo", 1)
}
var logger = Logger(label: "interval-timer")
logger.logLevel = environment["INTERVALD_WINDOW_DEBUG"] == nil ? .notice : .debug
let application = TimerApplication(environment: environment, logger: logger)
exit(application.run(CommandLine.arguments))

/// Whether the machine has a GPU that GL can render on: a DRM render node.
func hasRenderNode() -> Bool {
    guard let directory = opendir("/dev/dri") else { return false }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix("renderD") { return true }
    }
    return false
}

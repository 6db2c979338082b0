import ArgumentParser
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what runs now; with --follow, keep printing for status bars.",
        discussion: """
            Prints e.g. 'running · Galloway run/walk 30:30 · Run 0:12 left (23/56) · next Walk · 14:48/40:00', \
            or 'idle' (also when the daemon does not run: status never starts it).

            --format takes a template with the fields \(StatusTemplateError.fieldList) ({index} counts from 1, \
            {progress} is a whole percentage; while idle all but {state} and {text} are empty); {{ and }} are \
            literal braces.

            --follow prints a line at once, at every change, and every second while a workout runs (nothing \
            periodic while idle or paused), flushing each line. It exits 0 on SIGINT, SIGTERM or when the reader \
            closes the pipe, and 69 when the session bus goes away. See docs/status-bars.md for waybar, \
            i3status-rs and polybar.
            """
    )

    @Flag(help: "Print one JSON object per line (stable snake_case keys, times in microseconds).")
    var json = false

    @Flag(help: "Print waybar's custom-module JSON: text, tooltip, class and percentage.")
    var waybar = false

    @Option(
        help: ArgumentHelp(
            "A template for the line (or for the 'text' of --json and --waybar), e.g. '{label} {remaining}'.",
            valueName: "template"))
    var format: String?

    @Option(
        help: ArgumentHelp(
            "What to print instead of the line while idle, e.g. '' (with --waybar: the text while idle, default '').",
            valueName: "text"))
    var idleText: String?

    @Flag(help: "Keep printing: at every change, and every second while a workout runs.")
    var follow = false

    func validate() throws {
        _ = try output()
    }

    func run() throws {
        let output = try output()
        StatusLineWriter.ignoreBrokenPipes()
        if follow {
            StatusLineWriter.exitQuietlyOnInterrupt()
            try Follower(client: try DaemonConnection.open(callTimeout: Self.callTimeout), output: output).run()
        } else {
            let status = try DaemonConnection.call(callTimeout: Self.callTimeout) { client throws(TimerClientError) in
                try client.status()
            }
            try Follower.emit(output.render(status))
        }
    }

    /// Status calls never activate the daemon; a daemon that does not answer within this is reported.
    private static let callTimeout = Duration.seconds(5)

    private func output() throws -> StatusOutput {
        if json && waybar { throw ValidationError(tr("Give either --json or --waybar, not both.")) }
        var output = StatusOutput(style: json ? .json : waybar ? .waybar : .text, idleText: idleText)
        if let format {
            do throws(StatusTemplateError) {
                output.template = try StatusTemplate(format)
            } catch {
                throw ValidationError(error.description)
            }
        }
        return output
    }
}

/// `status --follow`: a line at once, after every event, and while running each time the shown second changes.
private struct Follower {
    let client: TimerBusClient
    let output: StatusOutput
    private let clock = ContinuousClock()
    /// Ticks come this long after the daemon's remaining time crossed a whole second.
    private static let margin = Duration.milliseconds(5)

    init(client: TimerBusClient, output: StatusOutput) {
        self.client = client
        self.output = output
    }

    func run() throws {
        var current = TimerStatus.idle
        var readAt = clock.now
        var printed: (shown: TimerStatus, at: ContinuousClock.Instant)?
        var warned = false
        var exit: ExitCode?

        let nextTick = { () -> Duration? in
            // Only a running workout changes without an event.
            guard let wait = StatusText.microsecondsUntilNextSecond(current) else { return nil }
            let due = readAt.advanced(by: .microseconds(wait) + Self.margin)
            return max(clock.now.duration(to: due), .zero)
        }
        do throws(TimerClientError) {
            try client.follow(nextTick: nextTick) { event in
                do throws(TimerClientError) {
                    current = try client.status()
                    readAt = clock.now
                    warned = false
                } catch {
                    if case .busUnavailable = error {
                        exit = DaemonConnection.exitCode(reporting: error)
                        return .stop
                    }
                    if !warned {
                        Console.error(
                            "intervalctl: warning: cannot read the status, waiting for the next change: \(error)\n")
                        warned = true
                    }
                    return .continue
                }
                // Print every change that shows, and every tick of a running workout (about once a second);
                // not the same line twice for one change (SegmentStarted and PropertiesChanged come together).
                let shown = StatusText.shown(current)
                if let printed, printed.shown == shown {
                    let isSecondTick = event == .tick && current.state == .running
                    if !isSecondTick || printed.at.duration(to: readAt) < .milliseconds(500) { return .continue }
                }
                do throws(ExitCode) {
                    try Self.emit(output.render(current))
                } catch {
                    exit = error
                    return .stop
                }
                printed = (shown, readAt)
                return .continue
            }
        } catch {
            throw DaemonConnection.exitCode(reporting: error)
        }
        if let exit { throw exit }
    }

    /// Writes one line; a closed pipe ends the command with status 0, other write errors with 1.
    static func emit(_ line: String) throws(ExitCode) {
        do throws(Console.WriteFailure) {
            try StatusLineWriter.write(line)
        } catch {
            switch error {
            case .readerGone:
                throw .success
            case .failed(let code):
                printError(tr("cannot write the status: {reason}", ["reason": errnoText(code)]))
                throw .failure
            }
        }
    }
}

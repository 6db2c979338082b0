import ArgumentParser
import FoundationEssentials
import Glibc
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime
import Logging

struct StartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start a plan in the daemon (D-Bus activation starts intervald if needed).",
        discussion: """
            The plan is checked here first: an invalid plan exits 65 with its diagnostic and reaches no daemon. \
            While a plan runs, start fails (exit 1) unless --replace is given.
            """
    )

    @OptionGroup var input: PlanInput

    @Flag(help: "Stop the running plan, if any (reason 'replaced'), and start this one.")
    var replace = false

    @Option(help: "With a training program: start day WEEK.DAY (3.2 is week 3, day 2) instead of the next one.")
    var day: String?

    func run() throws {
        if let name = input.plan, try startProgram(name) { return }
        if day != nil {
            throw ValidationError(tr("--day is for training programs; 'intervalctl programs' lists them."))
        }
        let loaded = try input.load()
        try DaemonConnection.call { client throws(TimerClientError) in
            try client.call(
                TimerMethods.Start(plan: loaded.source.text, origin: loaded.recordedOrigin, replace: replace))
        }
        Console.print(
            tr("Started {plan} ({length})", ["plan": loaded.plan.name, "length": PlanReport.lengthText(loaded.plan)]))
    }

    /// Starts program `name`'s next day (or `--day`) when `name` names a program and no plan; false otherwise. The day
    /// is chosen and checked here first, and the daemon is asked for that very day.
    private func startProgram(_ name: String) throws -> Bool {
        guard ProgramCatalog.isName(name) else { return false }
        let environment = ProcessInfo.processInfo.environment
        let plans = PlanLocator(paths: XDGPaths(environment: environment))
        let isPlan = plans.candidates(for: name).contains { FileManager.default.isReadableFile(atPath: $0) }
        let ledger = ProgramLookup.ledger
        guard day != nil || !isPlan, ledger.catalog.item(named: name) != nil else { return false }
        let chosen: (plan: Plan, text: String, origin: String, reference: ProgramDayReference)
        let program = try ProgramLookup.program(name, in: ledger)
        do {
            chosen = try ledger.dayToStart(program, named: name, day: day ?? "")
        } catch {
            printError(error.message)
            throw error.code == .invalidPlan ? ExitStatus.invalidPlan : ExitCode.failure
        }
        try DaemonConnection.call { client throws(TimerClientError) in
            try client.call(
                TimerMethods.StartProgram(program: name, day: chosen.reference.day.description, replace: replace))
        }
        Console.print(
            tr("Started {plan} ({length})", ["plan": chosen.plan.name, "length": PlanReport.lengthText(chosen.plan)]))
        return true
    }
}

/// `intervalctl stop`, `pause`, `resume` and `skip`: a method of the daemon without arguments, as a command of its name.
struct DaemonControlCommand<Method: ControlCommandMethod>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Method.name.lowercased(), abstract: Method.commandAbstract)
    }

    func run() throws {
        try DaemonConnection.call { client throws(TimerClientError) in try client.call(Method()) }
    }
}

/// A control of the workout that `intervalctl` offers as a command: what the command does, for its help.
protocol ControlCommandMethod: TimerControl {
    static var commandAbstract: String { get }
}

extension TimerMethods.Stop: ControlCommandMethod {
    static let commandAbstract = "Stop the running plan; succeeds when nothing runs."
}

extension TimerMethods.Pause: ControlCommandMethod {
    static let commandAbstract = "Pause the running plan; fails (exit 1) when nothing runs or it is already paused."
}

extension TimerMethods.Resume: ControlCommandMethod {
    static let commandAbstract = "Resume the paused plan; fails (exit 1) when nothing runs or it is not paused."
}

extension TimerMethods.Skip: ControlCommandMethod {
    static let commandAbstract =
        "End the current segment now and go on with the next; fails (exit 1) when nothing runs."
}

/// The session-bus connection of the daemon-control commands, and how its failures become messages and exit codes.
enum DaemonConnection {
    /// Opens a client; an unreachable session bus is reported and exits 69.
    static func open(callTimeout: Duration = .seconds(10)) throws -> TimerBusClient {
        do throws(TimerClientError) {
            return try TimerBusClient(callTimeout: callTimeout, logger: logger)
        } catch {
            throw exitCode(reporting: error)
        }
    }

    /// Opens a client and runs `body` with it; a refusal or a failure is reported and becomes its exit code.
    @discardableResult
    static func call<Result>(
        callTimeout: Duration = .seconds(10), _ body: (TimerBusClient) throws(TimerClientError) -> Result
    ) throws -> Result {
        let client = try open(callTimeout: callTimeout)
        do throws(TimerClientError) {
            return try body(client)
        } catch {
            throw exitCode(reporting: error)
        }
    }

    /// Writes what went wrong to stderr and returns the exit code of docs/reference.md §2: 65 for a plan the daemon
    /// refused (its diagnostic as is), 69 when the bus or the daemon cannot be reached, 1 for anything else.
    static func exitCode(reporting error: TimerClientError) -> ExitCode {
        switch error {
        case .busUnavailable(let cause):
            let detail = "\(cause.function): \(cause.message ?? cause.errnoDescription)"
            printError(
                tr(
                    "cannot reach intervald on the session bus: the session bus is unavailable ({detail})",
                    ["detail": detail]))
            return ExitStatus.unreachable
        case .daemonUnreachable(let cause) where cause.errno == ETIMEDOUT:
            printError(
                tr(
                    "cannot reach intervald on the session bus: it did not answer in time ({detail})",
                    ["detail": cause.message ?? cause.errnoDescription]))
            return ExitStatus.unreachable
        case .daemonUnreachable(let cause):
            printError(
                tr(
                    "cannot reach intervald on the session bus: {detail}",
                    ["detail": cause.message ?? cause.name ?? cause.errnoDescription]))
            return ExitStatus.unreachable
        case .command(let refusal):
            switch refusal.code {
            case .invalidPlan:
                Console.error(refusal.message.hasSuffix("\n") ? refusal.message : refusal.message + "\n")
                return ExitStatus.invalidPlan
            case .alreadyRunning:
                printError(refusal.message)
                Console.error(
                    tr("intervalctl: hint: 'intervalctl start --replace …' stops it and starts the new plan.") + "\n")
                return .failure
            case .notRunning, .invalidState:
                printError(refusal.message)
                return .failure
            }
        case .failed(let cause):
            printError(tr("the call to intervald failed: {detail}", ["detail": "\(cause)"]))
            return .failure
        }
    }

    /// Warnings and errors of the bus client go to stderr; stdout stays for the commands' output.
    static let logger = Logger(label: "intervalctl") { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .warning
        return handler
    }
}

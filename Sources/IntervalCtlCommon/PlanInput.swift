import ArgumentParser
import FoundationEssentials
import Glibc
import IntervalCore
import IntervalRuntime

/// Where a plan comes from: `PLAN` (a path or a name), `-e EXPR`, or `-` for stdin.
package struct PlanInput: ParsableArguments {
    @Argument(help: "A plan file, a plan name, or '-' to read the plan from standard input.")
    package var plan: String?

    @Option(
        name: [.customShort("e"), .customLong("expression")], help: "A one-line plan, e.g. '8x(30s run, 30s walk)'.")
    package var expression: String?

    package init() {}

    package func validate() throws {
        switch (plan, expression) {
        case (nil, nil): throw ValidationError(tr("Give a PLAN, -e EXPR, or '-' for standard input."))
        case (.some, .some): throw ValidationError(tr("Give either a PLAN or -e EXPR, not both."))
        default: break
        }
    }

    /// Reads and parses the plan; prints the diagnostic and exits 65 when it is invalid, and prints the notes on a
    /// valid one (`400m` is 400 minutes).
    package func load() throws -> LoadedPlan {
        let source = try PlanSource.resolve(plan: plan, expression: expression)
        do {
            let plan = try source.parse()
            for note in plan.notes { Console.error("\(note)\n") }
            return LoadedPlan(source: source, plan: plan)
        } catch {
            Console.error("\(error)\n")
            throw ExitStatus.invalidPlan
        }
    }
}

package struct LoadedPlan {
    package let source: PlanSource
    package let plan: Plan

    /// Where the plan came from as the daemon and the history name it: the absolute path of a file, "" for inline
    /// text (`-e`, standard input).
    package var recordedOrigin: String {
        source.isInline ? "" : PlanLocator.absolutePath(source.origin, from: FileManager.default.currentDirectoryPath)
    }
}

/// Plan text with the origin that names it in diagnostics.
package struct PlanSource {
    package let bytes: [UInt8]
    package let origin: String
    package let defaultName: String

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text was given inline (`-e`) or on standard input, not read from a file.
    package var isInline: Bool { origin == Self.inlineOrigin || origin == Self.standardInputOrigin }

    package static let inlineOrigin = "<inline>"
    package static let standardInputOrigin = "<stdin>"

    package func parse() throws(PlanDiagnostic) -> Plan {
        try PlanParser.parse(bytes: bytes, origin: origin, defaultName: defaultName)
    }

    package static func resolve(plan: String?, expression: String?) throws -> PlanSource {
        if let expression {
            return PlanSource(
                bytes: Array(expression.utf8), origin: inlineOrigin,
                defaultName: PlanLocator.inlineName(for: expression))
        }
        guard let plan else { throw ValidationError(tr("Give a PLAN, -e EXPR, or '-' for standard input.")) }
        if plan == "-" {
            let bytes = Console.readStandardInput()
            let text = String(decoding: bytes, as: UTF8.self)
            return PlanSource(bytes: bytes, origin: standardInputOrigin, defaultName: PlanLocator.inlineName(for: text))
        }
        return try file(at: locate(plan))
    }

    /// Far more than any plan (`plan show` reads millions of segments), and a bound for a file that never ends
    /// (`/dev/zero`). The daemon takes at most 1 MiB (``WorkoutSession/maximumPlanTextBytes``).
    package static let maximumFileBytes = 64 << 20

    package static func file(at path: String) throws -> PlanSource {
        let bytes: [UInt8]
        do throws(FileError) {
            // read(2) reads a pipe, a FIFO and /dev/null as it reads a file; FileManager refused them, as root too,
            // with "permission denied".
            bytes = try FileBytes.read(path, limit: maximumFileBytes)
        } catch {
            printError(tr("cannot read '{path}': {reason}", ["path": path, "reason": readFailure(error.errno)]))
            throw ExitCode.failure
        }
        return PlanSource(bytes: bytes, origin: path, defaultName: PlanLocator.planName(forPath: path))
    }

    /// A path as given, or the first file a plan name resolves to.
    package static func locate(_ argument: String) throws -> String {
        if !PlanLocator.isName(argument)
            || FileManager.default.fileExists(atPath: argument) && argument.hasSuffix(".plan")
        {
            return argument
        }
        let locator = PlanLocator(paths: XDGPaths(environment: ProcessInfo.processInfo.environment))
        if let found = locator.candidates(for: argument).first(where: { FileManager.default.isReadableFile(atPath: $0) }
        ) {
            return found
        }
        if FileManager.default.fileExists(atPath: argument) { return argument }
        printError(
            tr(
                "no plan named '{name}' (looked in {directories}; 'intervalctl plans' lists the named plans)",
                ["name": argument, "directories": locator.searchDirectories.joined(separator: ", ")])
        )
        throw ExitCode.failure
    }

    private static func readFailure(_ code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: tr("no such file")
        case EISDIR: tr("it is a directory")
        case EACCES, EPERM: tr("permission denied")
        case EFBIG: tr("it is too large to be a plan (over 64 MiB)")
        default: errnoText(code)
        }
    }
}

import ArgumentParser
import FoundationEssentials
import IntervalCore
import IntervalRuntime

/// What intervalctl and its desktop half, intervalctl-desktop, share: how a command line is run and how it fails.
package enum CommandLineTool {
    /// Parses the arguments as `Root`'s and runs the command; usage errors are worded as every other error
    /// (`intervalctl: error: …`, docs/reference.md §2), followed by the usage, and exit 64.
    package static func main<Root: ParsableCommand>(_ root: Root.Type) {
        Gettext.install(environment: ProcessInfo.processInfo.environment)
        do {
            var command = try Root.parseAsRoot()
            try command.run()
        } catch {
            guard Root.exitCode(for: error) == .validationFailure else { Root.exit(withError: error) }
            var text = Root.fullMessage(for: error)
            if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
            printError(text)
            Root.exit(withError: ExitCode.validationFailure)
        }
    }
}

/// Exit codes of docs/reference.md §2.
package enum ExitStatus {
    /// A plan, or a settings file, that is not valid.
    package static let invalidPlan = ExitCode(65)
    package static let unreachable = ExitCode(69)
}

/// Writes `intervalctl: error: …` to stderr.
package func printError(_ message: String) {
    Console.error(tr("intervalctl: error: {message}", ["message": message]) + "\n")
}

/// What `body` answers; a file it cannot read or write is said, and exits 1.
package func failingOnFileError<Value>(_ body: () throws(FileError) -> Value) throws -> Value {
    do throws(FileError) {
        return try body()
    } catch {
        printError(error.description)
        throw ExitCode.failure
    }
}

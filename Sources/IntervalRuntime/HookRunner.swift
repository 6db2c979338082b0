import Dispatch
import Glibc
import IntervalCore
import Logging

/// What ``HookOutput`` starts hooks with: ``HookRunner``, or a test's recorder.
public protocol HookLaunching {
    @discardableResult
    func run(_ argv: [String], for event: HookEvent) -> pid_t?
}

/// Runs hook commands (docs/reference.md §4a) directly with `posix_spawnp`: argv, no shell, `INTERVALD_*` added to the
/// environment. Hooks never block the caller: each child is reaped on a worker thread and its failure logged. At most
/// `limit` hooks run at once (docs/reference.md §5): a hook that would exceed it is skipped with a log line, so a slow
/// hook program cannot pile up processes cue after cue.
public struct HookRunner: HookLaunching, Sendable {
    private let logger: Logger
    private let limit: Int
    private let running = SharedCount()

    public init(logger: Logger, limit: Int = 4) {
        self.logger = logger
        self.limit = limit
    }

    /// How many hook processes run now.
    public var runningCount: Int { running.value }

    /// Starts `argv` with `event`'s variables; returns the child's pid, or nil if it could not be started.
    @discardableResult
    public func run(_ argv: [String], for event: HookEvent) -> pid_t? {
        let arguments = event.expand(argv)
        guard let program = arguments.first, !program.isEmpty else { return nil }
        guard running.increment(below: limit) else {
            logger.warning(
                "Too many hooks running, skipping one.",
                metadata: ["hook": "\(event.kind.rawValue)", "program": "\(program)", "limit": "\(limit)"])
            return nil
        }
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let pair = String(cString: pointer)
            if let equals = pair.firstIndex(of: "=") {
                environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            entry += 1
        }
        environment.merge(event.environment) { _, new in new }
        let pid: pid_t
        do {
            pid = try Self.spawn(arguments, environment: environment.map { "\($0.key)=\($0.value)" })
        } catch {
            running.decrement()
            logger.warning(
                "Failed to run a hook, ignoring.",
                metadata: ["hook": "\(event.kind.rawValue)", "program": "\(program)", "error": "\(error)"])
            return nil
        }
        let logger = self.logger
        let kind = event.kind.rawValue
        let running = self.running
        DispatchQueue.global(qos: .utility).async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            running.decrement()
            let exited = status & 0x7F == 0
            let code = (status >> 8) & 0xFF
            if !exited || code != 0 {
                logger.warning(
                    "A hook failed.",
                    metadata: [
                        "hook": "\(kind)", "program": "\(program)",
                        "status": "\(exited ? "exit status \(code)" : "signal \(status & 0x7F)")",
                    ])
            }
        }
        return pid
    }

    struct SpawnError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { errnoText(code) }
    }

    /// The daemon's queues run with signals blocked and SIGTERM/SIGINT ignored; a child must start with neither,
    /// or SIGTERM would not stop it.
    private static func spawn(_ arguments: [String], environment: [String]) throws(SpawnError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var pid: pid_t = 0
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                guard let path = argv.first ?? nil else { return ENOENT }
                return posix_spawnp(&pid, path, nil, &attributes, argv, envp)
            }
        }
        guard result == 0 else { throw SpawnError(code: result) }
        return pid
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
private func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}

/// A count shared by copies of a ``HookRunner`` and its reaping threads.
private final class SharedCount: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    /// Adds one unless the count has reached `limit`; whether it did.
    func increment(below limit: Int) -> Bool {
        count.withLock { value in
            guard value < limit else { return false }
            value += 1
            return true
        }
    }

    func decrement() {
        count.withLock { $0 -= 1 }
    }
}

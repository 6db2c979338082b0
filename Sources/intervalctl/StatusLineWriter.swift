import Glibc
import IntervalCore
import IntervalCtlCommon

/// Lines for status bars: written straight to file descriptor 1 with `write(2)`, so each one reaches the pipe at
/// once (no stdio or FileHandle buffering), and a reader that went away is seen as ``Console/WriteFailure/readerGone`` rather than a signal.
enum StatusLineWriter {
    /// Ignores SIGPIPE, so that a closed pipe shows up as ``Failure/readerGone``.
    static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Makes SIGINT and SIGTERM end the process with status 0 (`_exit` is async-signal-safe; every line written
    /// so far is already in the pipe).
    static func exitQuietlyOnInterrupt() {
        let handler: @convention(c) (Int32) -> Void = { _ in _exit(0) }
        _ = signal(SIGINT, handler)
        _ = signal(SIGTERM, handler)
    }

    /// Writes `line` and a newline.
    static func write(_ line: String) throws(Console.WriteFailure) {
        try Console.write(line + "\n", to: STDOUT_FILENO)
    }
}

import IntervalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Lines for status bars: written straight to file descriptor 1 with `write(2)`, so each one reaches the pipe at
/// once (no stdio or FileHandle buffering), and a reader that went away is seen as `EPIPE` rather than a signal.
enum StatusLineWriter {
    enum Failure: Error {
        /// The reader closed the pipe: a normal end for `--follow`.
        case readerGone
        case failed(errno: Int32)
    }

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
    static func write(_ line: String) throws(Failure) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                writeStandardOutput(buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:  // A non-blocking stdout that is full: wait until it drains.
                var descriptor = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
                _ = poll(&descriptor, 1, -1)
            case EPIPE: throw .readerGone
            case let code: throw .failed(errno: code)
            }
        }
    }

    /// The text of `strerror` for `code`.
    static func describe(errno code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `write(2)` on standard output (named apart from ``StatusLineWriter/write(_:)``).
private func writeStandardOutput(_ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(STDOUT_FILENO, bytes, count)
}

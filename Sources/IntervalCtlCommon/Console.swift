import FoundationEssentials
import Glibc
import IntervalCore

/// The process's standard streams, written with `write(2)`: nothing is buffered, so each line reaches a pipe (a
/// status bar) at once and stdout and stderr interleave in the order they were written.
package enum Console {
    package enum WriteFailure: Error {
        /// The reader closed the pipe (with SIGPIPE ignored).
        case readerGone
        case failed(errno: Int32)
    }

    /// Writes `text` and a newline to stdout; a failure to write there has no better place to be reported. Names and
    /// labels in it may come from anyone who started a plan: what could steer the terminal is escaped (JSON text
    /// stays valid, see ``Swift/String/jsonTerminalEscaped``).
    package static func print(_ text: String) {
        try? write(text.terminalEscapedKeepingLines + "\n", to: STDOUT_FILENO)
    }

    /// Writes `text` to stdout as it is.
    package static func output(_ text: String) {
        try? write(text, to: STDOUT_FILENO)
    }

    /// Writes `text` to stderr, escaped as ``print(_:)`` does (diagnostics quote plan text; the daemon's refusals
    /// name the running plan).
    package static func error(_ text: String) {
        try? write(text.terminalEscapedKeepingLines, to: STDERR_FILENO)
    }

    /// Writes all of `text`, through interrupted and partial writes and a full non-blocking pipe.
    package static func write(_ text: String, to descriptor: Int32) throws(WriteFailure) {
        try write(Array(text.utf8), to: descriptor)
    }

    /// Writes all of `bytes`, as ``write(_:to:)-(String,_)`` writes a text.
    package static func write(_ bytes: [UInt8], to descriptor: Int32) throws(WriteFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, -1)
            case EPIPE: throw .readerGone
            case let code: throw .failed(errno: code)
            }
        }
    }

    /// All of standard input.
    package static func readStandardInput() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 || errno != EINTR {
                return bytes
            }
        }
    }
}

/// The JSON of every `--json` listing: sorted snake_case keys (from camelCase properties), pretty-printed.
package func stableJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    // JSONEncoder escapes only C0 controls; C1 controls and bidirectional overrides would reach the terminal.
    return String(decoding: try encoder.encode(value), as: UTF8.self).jsonTerminalEscaped
}

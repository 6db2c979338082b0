/// A located error in plan text: `origin:line:col: error: message`, then the line and a caret.
public struct PlanDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the text came from: a path, or `<inline>` / `<stdin>`.
    public var origin: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int
    /// What is wrong and what was expected, without location.
    public var message: String
    /// The offending line, made printable and cut to a window around the column when very long.
    public var sourceLine: String
    /// The column of the caret within `sourceLine` (1-based).
    public var caretColumn: Int
    /// Not an error: something the author may not have meant (`400m` is 400 minutes), said beside a valid plan.
    public var isNote = false

    public init(origin: String, line: Int, column: Int, message: String, sourceLine: String, caretColumn: Int) {
        (self.origin, self.line, self.column, self.message, self.sourceLine, self.caretColumn) = (
            origin, line, column, message, sourceLine, caretColumn
        )
    }

    /// The one-line form: `galloway.plan:4:7: error: unknown duration unit 'sx' (expected ms, s, m or h)`.
    public var headline: String {
        if isNote {
            // TRANSLATORS: a located note about a valid plan, as compilers print them: keep "{origin}:{line}:{column}: "
            // as it is, editors and tools read it.
            return tr(
                "{origin}:{line}:{column}: note: {message}",
                ["origin": origin, "line": "\(line)", "column": "\(column)", "message": message])
        }
        // TRANSLATORS: a located diagnostic, as compilers print them: keep "{origin}:{line}:{column}: " as it is, editors
        // and tools read it.
        return tr(
            "{origin}:{line}:{column}: error: {message}",
            [
                "origin": origin, "line": "\(line)", "column": "\(column)", "message": message,
            ])
    }

    /// What is wrong as a sentence, for a window that marks the place itself: "Unknown duration unit 'sx' (expected
    /// ms, s, m or h)."
    public var sentence: String {
        guard let first = message.first else { return message }
        return first.uppercased() + message.dropFirst() + (message.hasSuffix(".") ? "" : ".")
    }

    /// The UTF-8 byte range of `text` that the diagnostic points at: the character at its line and column, or the
    /// last character when it points past the end of its line (something is missing there).
    public func markedBytes(in text: String) -> Range<Int> {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return 0..<0 }
        let lineStart = lines[..<(line - 1)].reduce(0) { $0 + $1.utf8.count + 1 }
        let scalars = Array(lines[line - 1].unicodeScalars)
        guard !scalars.isEmpty else { return lineStart..<lineStart }
        let index = min(max(column - 1, 0), scalars.count - 1)
        let start = lineStart + scalars[..<index].reduce(0) { $0 + $1.utf8.count }
        return start..<(start + scalars[index].utf8.count)
    }

    /// The headline, the source line and a caret under the column.
    public var description: String {
        let pad = sourceLine.unicodeScalars.prefix(max(caretColumn - 1, 0)).map { $0 == "\t" ? "\t" : " " }.joined()
        return "\(headline)\n\(sourceLine)\n\(pad)^"
    }
}

extension PlanDiagnostic {
    /// The widest source line a diagnostic shows; longer lines are cut to a window around the column.
    static let maximumShownLineWidth = 100

    /// Locates byte `offset` of `text` and builds the diagnostic.
    static func at(_ offset: Int, in text: [UInt8], origin: String, _ message: String) -> PlanDiagnostic {
        let offset = min(max(offset, 0), text.count)
        var lineStart = 0
        var line = 1
        for index in 0..<offset where text[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        var lineEnd = offset
        while lineEnd < text.count, text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
        // A CRLF file's line ends before its carriage return.
        if lineEnd > offset, text[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        let before = String(decoding: text[lineStart..<offset], as: UTF8.self).unicodeScalars.map(printable)
        let after = String(decoding: text[offset..<lineEnd], as: UTF8.self).unicodeScalars.map(printable)
        let column = before.count + 1
        var shownBefore = before[...]
        var shownAfter = after[...]
        var prefix = ""
        var suffix = ""
        let half = maximumShownLineWidth / 2
        if shownBefore.count > half {
            shownBefore = shownBefore.suffix(half)
            prefix = "…"
        }
        if shownAfter.count > half {
            shownAfter = shownAfter.prefix(half)
            suffix = "…"
        }
        var shown = String.UnicodeScalarView()
        shown.append(contentsOf: prefix.unicodeScalars)
        shown.append(contentsOf: shownBefore)
        shown.append(contentsOf: shownAfter)
        shown.append(contentsOf: suffix.unicodeScalars)
        return PlanDiagnostic(
            origin: origin, line: line, column: column, message: message, sourceLine: String(shown),
            caretColumn: prefix.unicodeScalars.count + shownBefore.count + 1
        )
    }

    /// Control characters would garble a terminal; show them as U+FFFD, but keep tabs for alignment.
    private static func printable(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar == "\t" { return scalar }
        if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) { return "\u{FFFD}" }
        return scalar
    }
}

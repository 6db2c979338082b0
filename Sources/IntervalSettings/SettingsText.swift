import Glibc
import IntervalCore
import IntervalRuntime

/// A setting's value as Preferences sets it, written as TOML.
public enum SettingValue: Sendable, Equatable {
    case bool(Bool)
    case integer(Int)
    /// A number with a fraction, written with one decimal: `12.5`, `16.0`.
    case decimal(Double)
    case string(String)
    case strings([String])

    /// The value in TOML: `true`, `40`, `"bell"`, `["stop", "skip"]`.
    public var toml: String {
        switch self {
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .decimal(let number):
            // Tenths, as a person sets them (12.3, never 12.299999…); infinity and NaN as Swift and TOML write them.
            if let tenths = Int(exactly: (number * 10).rounded()) {
                "\(tenths < 0 ? "-" : "")\(tenths.magnitude / 10).\(tenths.magnitude % 10)"
            } else {
                "\(number)"
            }
        // A JSON string is a TOML basic string: the same escapes.
        case .string(let text): text.jsonQuoted
        case .strings(let texts): "[" + texts.map(\.jsonQuoted).joined(separator: ", ") + "]"
        }
    }
}

/// Why a setting could not be written into the file's text; the text is left as it was.
public struct SettingsTextError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

/// Writes one setting into the text of `intervald.toml` as Preferences does (docs/reference.md §4c): only that value's
/// text changes, and comments, order, blank lines, unknown keys and hooks stay byte for byte. A setting the file does
/// not have yet is added at the end of its table (the table at the end of the file, when it has none).
///
/// Every edit is checked by reading the new text back: it must be TOML, hold the new value where the setting is read
/// from, a value the setting takes, and hold every other setting as before; otherwise the edit is refused with what went
/// wrong.
public enum SettingsText {
    /// `text` with `setting` set to `value`, or taken out of the file (nil: back to its default).
    public static func setting(
        _ setting: Setting, to value: SettingValue?, in text: String
    ) throws(SettingsTextError) -> String {
        var bytes = Array(text.utf8)
        let root = try parse(bytes, what: "The settings file")
        let lines = LineIndex(bytes)
        let table = setting.section.map { root[$0]?.table } ?? root
        if let existing = table?[setting.key] {
            let start = lines.offset(of: existing.begin, in: bytes)
            let end = lines.offset(of: existing.end, in: bytes)
            guard let start, let end, start <= end else { throw SettingsTextError(description: unplaced(setting)) }
            if let value {
                bytes.replaceSubrange(start..<end, with: Array(value.toml.utf8))
            } else {
                try removeLine(of: setting, existing, lines: lines, bytes: &bytes)
            }
        } else if let value {
            insert("\(setting.key) = \(value.toml)\n", for: setting, root: root, lines: lines, bytes: &bytes)
        }
        let edited = String(decoding: bytes, as: UTF8.self)
        try check(edited, setting: setting, value: value, against: text)
        return edited
    }

    private static func parse(_ bytes: [UInt8], what: String) throws(SettingsTextError) -> TOMLTable {
        switch TOMLDocument.parse(bytes) {
        case .success(let root): return root
        case .failure(let error):
            throw SettingsTextError(
                description: "\(what) is not valid TOML at line \(error.line), column \(error.column): "
                    + "\(error.description); fix it in a text editor first.")
        }
    }

    private static func unplaced(_ setting: Setting) -> String {
        "\(setting.name) is written in a way Preferences cannot change; change it in a text editor."
    }

    /// Takes out the line that holds only `setting` (and maybe a comment after it).
    private static func removeLine(
        of setting: Setting, _ existing: TOMLValue, lines: LineIndex, bytes: inout [UInt8]
    ) throws(SettingsTextError) {
        guard let key = lines.offset(of: existing.key, in: bytes), let end = lines.offset(of: existing.end, in: bytes)
        else { throw SettingsTextError(description: unplaced(setting)) }
        let lineStart = lines.start(ofLine: existing.key.line)
        let lineEnd = bytes[end...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.endIndex
        let before = bytes[lineStart..<key]
        let after = bytes[end..<lineEnd].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard before.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }),
            after.isEmpty || after.first == UInt8(ascii: "#") || after.first == UInt8(ascii: "\n")
                || after.first == UInt8(ascii: "\r")
        else { throw SettingsTextError(description: unplaced(setting)) }
        bytes.removeSubrange(lineStart..<lineEnd)
    }

    /// Adds `line` after the last value of the setting's table, or at the end of the file in a table header of its
    /// own; a top-level setting after the last top-level value, or above the first table (and the comments on it).
    private static func insert(
        _ line: String, for setting: Setting, root: TOMLTable, lines: LineIndex, bytes: inout [UInt8]
    ) {
        let position: Int
        if let section = setting.section {
            guard let table = root[section], hasHeader(table, named: section, lines: lines, bytes: bytes),
                let contents = table.table
            else {
                appendAtEnd("\n[\(section)]\n" + line, to: &bytes)
                return
            }
            let lastLine = lastValueLine(of: contents) ?? table.end.line
            position = lines.start(ofLine: lastLine + 1)
        } else if let lastLine = lastValueLine(of: root) {
            position = lines.start(ofLine: lastLine + 1)
        } else if let firstHeader = root.keys.compactMap({ root[$0] }).filter({ $0.table != nil && !$0.isInlineTable })
            .map(\.begin.line).min()
        {
            var above = firstHeader
            while above > 1, lines.isComment(line: above - 1, in: bytes) { above -= 1 }
            position = lines.start(ofLine: above)
        } else {
            appendAtEnd(line, to: &bytes)
            return
        }
        if position >= bytes.count {
            appendAtEnd(line, to: &bytes)
        } else {
            bytes.insert(contentsOf: Array(line.utf8), at: position)
        }
    }

    /// The last line of a table's own values: not of the tables under it, which have headers of their own.
    private static func lastValueLine(of table: TOMLTable) -> Int? {
        table.keys.compactMap { table[$0] }.filter { $0.table == nil || $0.isInlineTable }.map(\.end.line).max()
    }

    /// Whether the table was opened by `[name]` itself (not made by `[name.sub]`, or by a dotted key).
    private static func hasHeader(_ table: TOMLValue, named name: String, lines: LineIndex, bytes: [UInt8]) -> Bool {
        guard !table.isInlineTable, let start = lines.offset(of: table.begin, in: bytes),
            let end = lines.offset(of: table.end, in: bytes), start < end
        else { return false }
        let header = String(decoding: bytes[start..<end], as: UTF8.self).filter { $0 != " " && $0 != "\t" }
        return header == "[\(name)]"
    }

    private static func appendAtEnd(_ text: String, to bytes: inout [UInt8]) {
        if let last = bytes.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        bytes.append(contentsOf: Array(text.utf8))
    }

    /// Reads the edited text back: TOML, the new value where the setting is read from, every other setting as it was.
    private static func check(
        _ edited: String, setting: Setting, value: SettingValue?, against original: String
    ) throws(SettingsTextError) {
        let root = try parse(Array(edited.utf8), what: "The edited file")
        let before = SettingsFile.read(original, path: "")
        let after = SettingsFile.read(edited, path: "")
        let holder = setting.section.map { root[$0]?.table } ?? root
        let written = holder?[setting.key]
        var settled = value == nil ? written == nil : false
        if let value, let written {
            let expected = try parse(Array("v = \(value.toml)\n".utf8), what: "The value")["v"]
            settled = expected.map { written.sameContent(as: $0) } ?? false
            var scratch = Settings.defaults
            if let expectation = setting.read(written, &scratch) {
                throw SettingsTextError(description: "\(setting.name) cannot be \(value.toml): \(expectation).")
            }
        }
        let othersKept =
            Set(before.goodValues.keys).subtracting([setting.name])
            == Set(after.goodValues.keys).subtracting([setting.name])
            && before.goodValues.allSatisfy { name, old in
                name == setting.name || after.goodValues[name].map { old.sameContent(as: $0) } == true
            }
        guard settled, othersKept else { throw SettingsTextError(description: unplaced(setting)) }
    }
}

/// Where each line of a text starts, to turn toml++'s positions into byte offsets.
private struct LineIndex {
    private let starts: [Int]
    private let count: Int

    init(_ bytes: [UInt8]) {
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") { starts.append(offset + 1) }
        self.starts = starts
        count = bytes.count
    }

    /// The offset where `line` (1-based) starts; past the last line, the end of the text.
    func start(ofLine line: Int) -> Int {
        line >= 1 && line <= starts.count ? starts[line - 1] : count
    }

    /// The byte offset of `position`, its column counted in Unicode scalars; nil outside the text.
    func offset(of position: TextPosition, in bytes: [UInt8]) -> Int? {
        guard position.line >= 1, position.line <= starts.count, position.column >= 1 else { return nil }
        var offset = starts[position.line - 1]
        var column = 1
        while column < position.column {
            guard offset < bytes.count else { return nil }
            offset += 1
            // A scalar's continuation bytes (10xxxxxx) do not count.
            while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            column += 1
        }
        return offset
    }

    /// Whether `line` holds a comment and nothing else.
    func isComment(line: Int, in bytes: [UInt8]) -> Bool {
        let text = bytes[start(ofLine: line)..<start(ofLine: line + 1)].drop {
            $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")
        }
        return text.first == UInt8(ascii: "#")
    }
}

extension SettingsFile {
    /// Sets `setting` to `value` (nil: takes it out, back to its default) in the file at `path`, made if missing, and
    /// answers the file's new text; nil when the file already held that. The file is replaced whole (never half
    /// written), and only when the edit reads back as asked (``SettingsText/setting(_:to:in:)``). What Preferences and
    /// `intervalctl sensors use` write settings with.
    public static func write(_ setting: Setting, _ value: SettingValue?, at path: String) throws(SettingsWriteError)
        -> String?
    {
        let text: String
        do throws(FileError) {
            text = String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self)
        } catch {
            guard error.errno == ENOENT else { throw .file(error) }
            text = ""
        }
        let edited: String
        do throws(SettingsTextError) {
            edited = try SettingsText.setting(setting, to: value, in: text)
        } catch {
            throw .text(error)
        }
        guard edited != text else { return nil }
        do throws(FileError) {
            if let slash = path.lastIndex(of: "/") { try FileBytes.makeDirectories(String(path[..<slash])) }
            try FileBytes.replace(path, with: Array(edited.utf8))
        } catch {
            throw .file(error)
        }
        return edited
    }
}

/// Why a setting was not written: the file could not be read or replaced, or the edit was refused.
public enum SettingsWriteError: Error, Sendable, CustomStringConvertible {
    case file(FileError)
    case text(SettingsTextError)

    public var description: String {
        switch self {
        case .file(let error): error.description
        case .text(let error): error.description
        }
    }
}

import CTOMLReader

/// A TOML value as the settings reader uses it, with the line it was written on.
struct TOMLValue: Sendable {
    enum Content: Sendable {
        case table(TOMLTable)
        case array([TOMLValue])
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// A date or time: valid TOML that no setting takes.
        case other
    }

    let content: Content
    /// Where the value (for a table entry, its key) was written, 1-based.
    let line: Int
    /// Where the entry begins (its key in a table), and where its value's text begins and ends (just after it); for a
    /// table, its header or the key that made it.
    var key = TextPosition(line: 0, column: 0)
    var begin = TextPosition(line: 0, column: 0)
    var end = TextPosition(line: 0, column: 0)
    /// A table written inline, `{ a = 1 }`.
    var isInlineTable = false

    var table: TOMLTable? { if case .table(let table) = content { table } else { nil } }
    var array: [TOMLValue]? { if case .array(let array) = content { array } else { nil } }
    var string: String? { if case .string(let string) = content { string } else { nil } }
    var int: Int? { if case .integer(let integer) = content { Int(exactly: integer) } else { nil } }
    var bool: Bool? { if case .boolean(let flag) = content { flag } else { nil } }
    /// A float, or an integer as one (`16` and `16.0` are the same speed).
    var number: Double? {
        switch content {
        case .float(let number): number.isFinite ? number : nil
        case .integer(let integer): Double(integer)
        default: nil
        }
    }

    /// The same value, wherever it was written.
    func sameContent(as other: TOMLValue) -> Bool {
        switch (content, other.content) {
        case (.table(let mine), .table(let theirs)):
            return mine.keys == theirs.keys
                && mine.keys.allSatisfy { key in
                    guard let value = mine[key], let other = theirs[key] else { return false }
                    return value.sameContent(as: other)
                }
        case (.array(let mine), .array(let theirs)):
            return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0.sameContent(as: $1) }
        case (.string(let mine), .string(let theirs)): return mine == theirs
        case (.integer(let mine), .integer(let theirs)): return mine == theirs
        case (.float(let mine), .float(let theirs)): return mine == theirs
        case (.boolean(let mine), .boolean(let theirs)): return mine == theirs
        case (.other, .other): return true
        default: return false
        }
    }
}

/// A place in a text: line and column, 1-based, the column counted in Unicode scalars as toml++ counts it.
struct TextPosition: Sendable, Equatable {
    let line: Int
    let column: Int
}

/// A TOML table: its keys in the order written.
struct TOMLTable: Sendable {
    let keys: [String]
    private let values: [String: TOMLValue]

    init(entries: [(key: String, value: TOMLValue)]) {
        keys = entries.map(\.key)
        values = Dictionary(entries, uniquingKeysWith: { first, _ in first })
    }

    subscript(key: String) -> TOMLValue? { values[key] }
}

/// TOML text that is not TOML: toml++'s description and where it found the problem.
struct TOMLSyntaxError: Error {
    let description: String
    let line: Int
    let column: Int
}

/// Parses TOML with toml++ (through the CTOMLReader target, which compiles it without assertions).
enum TOMLDocument {
    /// The root table of `bytes`, or where and why they are not TOML.
    static func parse(_ bytes: [UInt8]) -> Result<TOMLTable, TOMLSyntaxError> {
        guard
            let document = bytes.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { tr_parse($0.baseAddress, $0.count) }
            })
        else {
            return .failure(TOMLSyntaxError(description: "out of memory", line: 1, column: 1))
        }
        defer { tr_document_free(document) }
        let view = document.pointee
        let text = UnsafeRawBufferPointer(start: view.text, count: view.text_length)
        func string(_ offset: Int, _ length: Int) -> String {
            String(decoding: text[offset..<offset + length], as: UTF8.self)
        }
        if view.failed != 0 {
            return .failure(
                TOMLSyntaxError(
                    description: string(view.error_offset, view.error_length), line: Int(view.error_line),
                    column: Int(view.error_column)))
        }
        let nodes = UnsafeBufferPointer(start: view.nodes, count: view.node_count)
        var next = 0
        /// The node at `next` and its descendants, which follow it in document order.
        func value() -> (key: String, value: TOMLValue) {
            let node = nodes[next]
            next += 1
            let children = (0..<Int(node.child_count)).map { _ in value() }
            let content: TOMLValue.Content
            switch node.kind {
            case TR_TABLE: content = .table(TOMLTable(entries: children))
            case TR_ARRAY: content = .array(children.map(\.value))
            case TR_STRING: content = .string(string(node.string_offset, node.string_length))
            case TR_INTEGER: content = .integer(node.integer)
            case TR_FLOAT: content = .float(node.floating)
            case TR_BOOLEAN: content = .boolean(node.boolean != 0)
            default: content = .other
            }
            var value = TOMLValue(content: content, line: Int(node.line))
            value.key = TextPosition(line: Int(node.line), column: Int(node.column))
            value.begin = TextPosition(line: Int(node.value_line), column: Int(node.value_column))
            value.end = TextPosition(line: Int(node.end_line), column: Int(node.end_column))
            value.isInlineTable = node.inline_table != 0
            return (string(node.key_offset, node.key_length), value)
        }
        return .success(value().value.table ?? TOMLTable(entries: []))
    }
}

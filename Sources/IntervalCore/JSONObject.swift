/// A JSON object written in the order its members are added (no Foundation in the core).
struct JSONObject {
    private var text = "{"
    private var isEmpty = true

    mutating func add(_ key: String, string: String) {
        add(key, raw: quoted(string))
    }

    /// `number` must already be a JSON number.
    mutating func add(_ key: String, number: String) {
        add(key, raw: number)
    }

    /// `number` must already be a JSON number; nil is `null`.
    mutating func add(_ key: String, number: String?) {
        add(key, raw: number ?? "null")
    }

    mutating func add(_ key: String, bool: Bool) {
        add(key, raw: bool ? "true" : "false")
    }

    /// nil is `null`.
    mutating func add(_ key: String, object: JSONObject?) {
        add(key, raw: object?.closed ?? "null")
    }

    mutating func add(_ key: String, objects: [JSONObject]) {
        add(key, raw: "[" + objects.map(\.closed).joined(separator: ",") + "]")
    }

    mutating func add(_ key: String, array: [String]) {
        add(key, raw: "[" + array.map(quoted).joined(separator: ",") + "]")
    }

    private mutating func add(_ key: String, raw: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        text += quoted(key) + ":" + raw
    }

    var closed: String { text + "}" }

    private func quoted(_ string: String) -> String { string.jsonQuoted }
}

extension String {
    /// The string as a JSON string literal, every control character, separator and bidirectional override escaped (so
    /// that it is safe on a terminal too). It is a TOML basic string as well: TOML's escapes are JSON's.
    public var jsonQuoted: String {
        var quoted = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\u{08}": quoted += "\\b"
            case "\u{0C}": quoted += "\\f"
            default:
                quoted.unicodeScalars.append(scalar)
            }
        }
        // The other controls, separators and bidirectional overrides as \uXXXX: valid JSON, and safe on a terminal.
        return (quoted + "\"").jsonTerminalEscaped
    }
}

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

    mutating func add(_ key: String, array: [String]) {
        add(key, raw: "[" + array.map(quoted).joined(separator: ",") + "]")
    }

    private mutating func add(_ key: String, raw: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        text += quoted(key) + ":" + raw
    }

    var closed: String { text + "}" }

    private func quoted(_ string: String) -> String {
        var quoted = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\u{08}": quoted += "\\b"
            case "\u{0C}": quoted += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16, uppercase: false)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

extension String {
    /// The string with every character that could steer a terminal (C0 and C1 controls, DEL, line and paragraph
    /// separators, bidirectional overrides) written as a visible `\u{…}` escape: what comes from plan text or a
    /// file is printed as text, never as a terminal command.
    public var terminalEscaped: String {
        escapingTerminalSteering { "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" }
    }

    /// ``terminalEscaped``, except that line breaks and tabs pass: for text a terminal shows as lines, such as a
    /// plan's timeline or a diagnostic with its caret.
    public var terminalEscapedKeepingLines: String {
        escapingTerminalSteering(keeping: ["\n", "\t"]) {
            "\\u{" + String($0.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// JSON text with every character that could steer a terminal written as a `\uXXXX` escape, so that JSON printed
    /// to a terminal is as safe as text. Still the same JSON: outside its strings a JSON text holds only ASCII
    /// punctuation and whitespace (kept), and inside them an encoder has already escaped line breaks and tabs.
    public var jsonTerminalEscaped: String {
        escapingTerminalSteering(keeping: ["\n", "\t", "\r"]) {
            let hex = String($0.value, radix: 16, uppercase: false)
            return "\\u" + String(repeating: "0", count: max(4 - hex.count, 0)) + hex
        }
    }

    private func escapingTerminalSteering(
        keeping kept: Set<Unicode.Scalar> = [], _ escape: (Unicode.Scalar) -> String
    ) -> String {
        guard unicodeScalars.contains(where: { $0.steersTerminal && !kept.contains($0) }) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar.steersTerminal && !kept.contains(scalar) {
                escaped += escape(scalar)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

extension Unicode.Scalar {
    /// A control character, a line or paragraph separator, or a bidirectional embedding, override or isolate.
    var steersTerminal: Bool {
        switch value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

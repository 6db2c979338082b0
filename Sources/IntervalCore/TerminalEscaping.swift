extension String {
    /// The string with every character that could steer a terminal (C0 and C1 controls, DEL, line and paragraph
    /// separators, bidirectional overrides) written as a visible `\u{…}` escape: what comes from plan text or a
    /// file is printed as text, never as a terminal command.
    public var terminalEscaped: String {
        guard unicodeScalars.contains(where: \.steersTerminal) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if scalar.steersTerminal {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
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

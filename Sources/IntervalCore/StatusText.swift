/// How `intervalctl status` shows the daemon's properties: the text line, `--format` templates, the JSON object and
/// waybar's object. Pure, like the rest of the core, so that every shape is tested without a bus.
///
/// Times are shown to the second as a countdown reads: the segment's remaining time is rounded up ("0:01" during the
/// last second, never "0:00" while a segment runs), the elapsed time is rounded down, so both change at the same
/// instant when segments last whole seconds.
public enum StatusText {
    /// `running · Galloway run/walk 30:30 · Run 0:12 left (23/56) · next Walk · 14:48/40:00`, or `idle`.
    /// The `next` part is left out during the last segment.
    public static func line(_ status: TimerStatus) -> String {
        guard status.state != .idle else { return TimerState.idle.rawValue }
        var parts = [status.state.rawValue]
        if !status.planName.isEmpty { parts.append(status.planName) }
        parts.append("\(status.segmentLabel) \(remaining(status)) left (\(position(status)))")
        if !status.nextLabel.isEmpty { parts.append("next \(status.nextLabel)") }
        parts.append("\(elapsed(status))/\(duration(status))")
        return parts.joined(separator: " · ")
    }

    /// What `{field}` stands for in a template. While idle every field but `state` and `text` is empty.
    public static func value(_ field: StatusField, of status: TimerStatus) -> String {
        switch field {
        case .state: return status.state.rawValue
        case .text: return line(status)
        default: break
        }
        guard status.state != .idle else { return "" }
        switch field {
        case .state, .text: return ""  // Answered above.
        case .plan: return status.planName
        case .kind: return status.segmentKind
        case .label: return status.segmentLabel
        case .remaining: return remaining(status)
        case .elapsed: return elapsed(status)
        case .duration: return duration(status)
        case .index: return String(UInt64(status.segmentIndex) + 1)
        case .count: return String(status.segmentCount)
        case .next: return status.nextLabel
        case .progress: return String(percent(status))
        }
    }

    /// The segment's remaining time, rounded up to the second: "0:12" for 11.2 s.
    public static func remaining(_ status: TimerStatus) -> String {
        TimeText.countdown(microseconds: Int64(clamping: status.segmentRemaining))
    }

    /// The workout's elapsed time, rounded down to the second: "14:48".
    public static func elapsed(_ status: TimerStatus) -> String {
        TimeText.clock(microseconds: Int64(clamping: status.elapsed / 1_000_000 * 1_000_000))
    }

    /// The plan's total duration: "40:00".
    public static func duration(_ status: TimerStatus) -> String {
        TimeText.clock(microseconds: Int64(clamping: status.planDuration))
    }

    /// "23/56": the 1-based segment number and the segment count.
    public static func position(_ status: TimerStatus) -> String {
        "\(UInt64(status.segmentIndex) + 1)/\(status.segmentCount)"
    }

    /// How much of the plan has elapsed, 0...1 (0 while idle or for a plan without duration).
    public static func progress(_ status: TimerStatus) -> Double {
        guard status.state != .idle, status.planDuration > 0 else { return 0 }
        return min(Double(status.elapsed) / Double(status.planDuration), 1)
    }

    /// ``progress(_:)`` as a whole percentage, rounded down so that 100 means done.
    public static func percent(_ status: TimerStatus) -> Int {
        Int((progress(status) * 100).rounded(.down))
    }

    /// Microseconds until the shown remaining time changes (`SegmentRemaining` crosses a whole second), or nil when
    /// nothing changes without an event (idle, paused). At most one second.
    public static func microsecondsUntilNextSecond(_ status: TimerStatus) -> UInt64? {
        guard status.state == .running else { return nil }
        let fraction = status.segmentRemaining % 1_000_000
        return fraction == 0 ? 1_000_000 : fraction
    }

    /// `status` with its times rounded as they are shown: two statuses that print the same compare equal.
    public static func shown(_ status: TimerStatus) -> TimerStatus {
        var shown = status
        shown.elapsed = status.elapsed / 1_000_000
        shown.segmentRemaining = UInt64(TimeText.roundedUpToSecond(Int64(clamping: status.segmentRemaining)) / 1_000_000)
        return shown
    }

    // MARK: JSON

    /// One line of JSON with stable snake_case keys: the properties (times in microseconds, `segment_index` 0-based as
    /// on the bus), then human fields: `position` "23/56", `remaining`, `elapsed`, `duration`, `progress` 0...1, and
    /// `text` (the text line, or what `--format` made of the status).
    public static func json(_ status: TimerStatus, text: String) -> String {
        var object = JSONObject()
        object.add("state", string: status.state.rawValue)
        object.add("plan_name", string: status.planName)
        object.add("plan_duration_us", number: String(status.planDuration))
        object.add("segment_index", number: String(status.segmentIndex))
        object.add("segment_count", number: String(status.segmentCount))
        object.add("segment_kind", string: status.segmentKind)
        object.add("segment_label", string: status.segmentLabel)
        object.add("segment_duration_us", number: String(status.segmentDuration))
        object.add("next_label", string: status.nextLabel)
        object.add("elapsed_us", number: String(status.elapsed))
        object.add("segment_remaining_us", number: String(status.segmentRemaining))
        object.add("position", string: value(.index, of: status).isEmpty ? "" : position(status))
        object.add("remaining", string: value(.remaining, of: status))
        object.add("elapsed", string: value(.elapsed, of: status))
        object.add("duration", string: value(.duration, of: status))
        object.add("progress", number: String((progress(status) * 10_000).rounded() / 10_000))
        object.add("text", string: text)
        return object.closed
    }

    // MARK: waybar

    /// waybar's custom-module object (`"return-type": "json"`): exactly `text`, `tooltip`, `class` and `percentage`.
    /// `class` is an array: the state (`idle`, `running`, `paused`) and, during a workout, `kind-KIND` (`kind-run`).
    /// `text` is used as given (the caller escapes field values for Pango); the tooltip is escaped here.
    public static func waybar(_ status: TimerStatus, text: String) -> String {
        var classes = [status.state.rawValue]
        if status.state != .idle, !status.segmentKind.isEmpty { classes.append("kind-" + status.segmentKind) }
        var object = JSONObject()
        object.add("text", string: text)
        object.add("tooltip", string: pangoEscaped(tooltip(status)))
        object.add("class", array: classes)
        object.add("percentage", number: String(percent(status)))
        return object.closed
    }

    /// Several lines for a tooltip:
    /// ```
    /// Galloway run/walk 30:30 · running
    /// Run · 0:12 left · segment 23 of 56
    /// Next: Walk
    /// 14:48 of 40:00 · 37 %
    /// ```
    public static func tooltip(_ status: TimerStatus) -> String {
        guard status.state != .idle else { return "intervald: idle" }
        let position = "segment \(value(.index, of: status)) of \(status.segmentCount)"
        return [
            "\(status.planName) · \(status.state.rawValue)",
            "\(status.segmentLabel) · \(remaining(status)) left · \(position)",
            status.nextLabel.isEmpty ? "Last segment" : "Next: \(status.nextLabel)",
            "\(elapsed(status)) of \(duration(status)) · \(percent(status)) %",
        ].joined(separator: "\n")
    }

    /// Escapes `&`, `<` and `>` for Pango markup, which waybar applies to `text` and `tooltip`.
    public static func pangoEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

}

/// A field of a `--format` template: `{state}`, `{plan}`, ….
public enum StatusField: String, CaseIterable, Sendable {
    /// `idle`, `running` or `paused`.
    case state
    /// The plan's name.
    case plan
    /// The segment's kind: `run`.
    case kind
    /// The segment's label: `Run`.
    case label
    /// The segment's remaining time: `0:12`.
    case remaining
    /// The workout's elapsed time: `14:48`.
    case elapsed
    /// The plan's duration: `40:00`.
    case duration
    /// The segment's number, from 1.
    case index
    /// The number of segments.
    case count
    /// The next segment's label, empty during the last one.
    case next
    /// Elapsed share of the plan as a whole percentage: `37`.
    case progress
    /// The default text line.
    case text
}

/// A `--format` template: text with `{field}` placeholders; `{{` and `}}` stand for literal braces.
public struct StatusTemplate: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        case field(StatusField)
    }

    let pieces: [Piece]

    /// What waybar shows by default: `Run 0:12`.
    public static let waybarDefault = StatusTemplate(pieces: [.field(.label), .literal(" "), .field(.remaining)])

    init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// Parses `template`; throws for an unknown field, a `{` that is not closed, or a lone `}`.
    public init(_ template: String) throws(StatusTemplateError) {
        var pieces: [Piece] = []
        var literal = ""
        var characters = Array(template)[...]
        var column = 1
        while let character = characters.popFirst() {
            let start = column
            column += 1
            switch character {
            case "{" where characters.first == "{", "}" where characters.first == "}":
                characters.removeFirst()
                column += 1
                literal.append(character)
            case "{":
                guard let close = characters.firstIndex(of: "}") else {
                    throw StatusTemplateError(.unclosedBrace, column: start)
                }
                let name = String(characters[..<close])
                guard let field = StatusField(rawValue: name) else {
                    throw StatusTemplateError(.unknownField(name), column: start)
                }
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = ""
                pieces.append(.field(field))
                column += name.count + 1
                characters = characters[(close + 1)...]
            case "}":
                throw StatusTemplateError(.loneClosingBrace, column: start)
            default:
                literal.append(character)
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// The template filled in from `status`; every field value goes through `escaping` (e.g. for Pango markup),
    /// the template's own text does not.
    public func render(_ status: TimerStatus, escaping: (String) -> String = { $0 }) -> String {
        var text = ""
        for piece in pieces {
            switch piece {
            case .literal(let literal): text += literal
            case .field(let field): text += escaping(StatusText.value(field, of: status))
            }
        }
        return text
    }
}

/// A `--format` template that cannot be used.
public struct StatusTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// `{name}` names no field.
        case unknownField(String)
        /// A `{` with no `}` after it.
        case unclosedBrace
        /// A `}` that closes nothing and is not doubled.
        case loneClosingBrace
    }

    public var code: Code
    /// The 1-based column (in characters) of the brace that starts the problem.
    public var column: Int

    public init(_ code: Code, column: Int) {
        self.code = code
        self.column = column
    }

    /// `{state} {plan} {kind} …`: every field, as written in a template.
    public static var fieldList: String {
        StatusField.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
    }

    public var description: String {
        let problem: String
        switch code {
        case .unknownField(let name): problem = "Unknown field {\(name)} at column \(column) of the format."
        case .unclosedBrace: problem = "The '{' at column \(column) of the format is not closed."
        case .loneClosingBrace: problem = "The '}' at column \(column) of the format closes nothing."
        }
        return "\(problem) The fields are \(Self.fieldList); write {{ and }} for literal braces."
    }
}

/// How `intervalctl status` prints one status, from its flags.
public struct StatusOutput: Sendable, Equatable {
    public enum Style: Sendable, Equatable {
        /// The text line, or the template.
        case text
        /// ``StatusText/json(_:text:)``, whose `text` is what the `.text` style prints.
        case json
        /// ``StatusText/waybar(_:text:)``; `text` is the template (``StatusTemplate/waybarDefault`` without one)
        /// with Pango-escaped values, and empty while idle, which hides the module.
        case waybar
    }

    public var style: Style
    /// `--format`.
    public var template: StatusTemplate?
    /// `--idle TEXT`: what the text (or waybar's `text`) is while idle, instead of the template or `idle`.
    public var idleText: String?

    public init(style: Style = .text, template: StatusTemplate? = nil, idleText: String? = nil) {
        self.style = style
        self.template = template
        self.idleText = idleText
    }

    /// One line, without its newline.
    public func render(_ status: TimerStatus) -> String {
        switch style {
        case .text:
            return text(status)
        case .json:
            return StatusText.json(status, text: text(status))
        case .waybar:
            let shown: String
            if status.state == .idle {
                shown = idleText ?? ""
            } else {
                shown = (template ?? .waybarDefault).render(status, escaping: StatusText.pangoEscaped)
            }
            return StatusText.waybar(status, text: shown)
        }
    }

    private func text(_ status: TimerStatus) -> String {
        if status.state == .idle, let idleText { return idleText }
        return template?.render(status) ?? StatusText.line(status)
    }
}

/// A JSON object written in the order its members are added (no Foundation in the core).
private struct JSONObject {
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

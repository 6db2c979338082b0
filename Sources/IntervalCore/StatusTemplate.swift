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

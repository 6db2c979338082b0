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
            // Names and labels come from whoever started the plan: printed as text, never as terminal commands.
            return text(status).terminalEscaped
        case .json:
            // Machine output: the same bytes in every locale (docs/reference.md §9).
            return Localization.inEnglish { StatusText.json(status, text: text(status)) }
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

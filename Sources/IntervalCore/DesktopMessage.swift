/// A notification that is not a cue: what the desktop's requests answer when there is no terminal to print to
/// (docs/reference.md §8) — why a plan did not start, or the plans to choose from, as buttons.
public struct DesktopMessage: Sendable, Equatable {
    public var summary: String
    public var body: String
    /// Buttons, in order: the action key sent back, and the label.
    public var buttons: [Button]

    public struct Button: Sendable, Equatable {
        public var key: String
        public var label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    public init(summary: String, body: String, buttons: [Button] = []) {
        self.summary = summary
        self.body = body
        self.buttons = buttons
    }
}

/// The window's keys, one table per action set (docs/window.md): each action's name, its accelerators as GTK writes
/// them, and its label in a menu (untranslated, ``tr(_:_:)`` where shown; nil where no menu lists it). The window
/// builds its actions, accelerators and menus from these, and a test checks them against the Keyboard Shortcuts
/// window (ui/shortcuts.ui): a key added here and not listed there, or listed there and not here, fails it.
public struct WindowKey: Sendable, Equatable {
    /// The action, in its group: `win.new-plan`, `editor.save`, `row.duplicate`.
    public let action: String
    public let accelerators: [String]
    public let menuLabel: String?

    init(_ action: String, _ accelerators: [String], menu menuLabel: String? = nil) {
        (self.action, self.accelerators, self.menuLabel) = (action, accelerators, menuLabel)
    }

    /// The action's name without its group: `new-plan`.
    public var name: String { String(action.split(separator: ".").last ?? "") }

    /// The application's accelerators, whichever control has the focus (the workout's own keys are the workout
    /// page's controls').
    public static let application: [WindowKey] = [
        WindowKey("app.preferences", ["<Control>comma"]),
        WindowKey("win.fullscreen", ["F11"]),
        // GtkApplicationWindow's own action for the Keyboard Shortcuts window: GTK gives it Ctrl+? only for an overlay
        // loaded from the application's resources, not for one set with gtk_application_window_set_help_overlay.
        WindowKey("win.show-help-overlay", ["<Control>question"]),
        WindowKey("win.new-plan", ["<Control>n"]),
        WindowKey("window.close", ["<Control>q", "<Control>w"]),
    ]

    /// The plan editor's keys, wherever the focus is in it; those of a step or a repeat are also its row's menu.
    public static let editor: [WindowKey] = EditorAction.allCases.map(\.key)

    /// What the plan editor's keys do, each action's key its row of ``editor``: the editor acts on one of these, so
    /// that an action without a key, or a key without an action, does not compile.
    public enum EditorAction: String, CaseIterable, Sendable {
        case addStep = "add-step", addRepeat = "add-repeat", moveUp = "move-up", moveDown = "move-down", duplicate,
            remove, save

        public var key: WindowKey {
            switch self {
            case .addStep: key(["<Control>Return"])
            case .addRepeat: key(["<Control><Shift>Return"])
            case .moveUp: key(["<Alt>Up"], menu: trLater("Move Up"))
            case .moveDown: key(["<Alt>Down"], menu: trLater("Move Down"))
            case .duplicate: key(["<Control><Shift>d"], menu: trLater("Duplicate"))
            case .remove: key(["<Alt>Delete"], menu: trLater("Remove"))
            case .save: key(["<Control>s"])
            }
        }

        /// The action `editor.NAME`.
        private func key(_ accelerators: [String], menu menuLabel: String? = nil) -> WindowKey {
            WindowKey("editor.\(rawValue)", accelerators, menu: menuLabel)
        }
    }
}

import IntervalCore

/// How a setting is shown in the window's Preferences (docs/reference.md §14): its group, its title, the control that
/// sets it, and the value the settings hold now. A setting of ``Setting/all`` with a preference appears in Preferences
/// from its row alone; the hooks have none.
public struct Preference: Sendable {
    /// The groups of Preferences, in their order.
    public enum Group: String, Sendable, CaseIterable {
        case sound, haptics, voice, music, notifications, workout
        /// The ceilings of a treadmill or bike that follows the plan.
        case machine
        /// The daemon's own knobs, which a runner does not need.
        case advanced

        /// Untranslated; ``tr(_:_:)`` where shown.
        public var title: String {
            switch self {
            case .sound: trLater("Cue Sounds")
            case .haptics: trLater("Vibration")
            case .voice: trLater("Voice")
            case .music: trLater("Music")
            case .notifications: trLater("Notifications")
            case .workout: trLater("Workout")
            case .machine: trLater("Machine")
            case .advanced: trLater("Advanced")
            }
        }
    }

    public enum Control: Sendable, Equatable {
        /// A switch.
        case toggle
        /// A whole number in a range, which `range` says in words under the title (untranslated, ``tr(_:_:)`` where
        /// shown): "1 to 100".
        case number(ClosedRange<Int>, range: String)
        /// A number with one decimal in a range, changed by `step` at a time; `range` as for ``number(_:range:)``.
        case decimal(ClosedRange<Double>, step: Double, range: String)
        /// One of these string values; ``Preference/choiceTitle(_:)`` names each.
        case choice([String])
        /// Some of these string values, each a check box; `always` comes first in the list written.
        case flags([String], always: [String])
        /// A cue's sound: one of ``namedSounds`` by its title (or the file or theme sound the file names), with a button
        /// that plays it.
        case sound(SoundCue)
        /// Free text; an empty text writes `empty` (nil: the setting is taken out of the file).
        case text(empty: SettingValue?)
        /// Words separated by commas, written as a list of strings.
        case words
    }

    public let group: Group
    /// Untranslated; ``tr(_:_:)`` where shown.
    public let title: String
    public let control: Control
    /// What `settings` hold for the setting, as the control shows it.
    public let current: @Sendable (Settings) -> SettingValue

    /// What a ``Control/text(empty:)`` entry showing `text` writes: `empty` for an empty text (nil: the setting is
    /// taken out of the file), else the text.
    public func value(ofText text: String) -> SettingValue? {
        if case .text(let empty) = control, text.isEmpty { return empty }
        return .string(text)
    }

    /// The words for a value of a ``Control/choice(_:)`` or ``Control/flags(_:always:)``, translated.
    public static func choiceTitle(_ value: String) -> String {
        switch value {
        case "low": tr("Low")
        case "normal": tr("Normal")
        case "critical": tr("Critical")
        case "pause": NotificationAction.pause.label
        // TRANSLATORS: Preferences, "When the computer sleeps": the workout goes on through the sleep.
        case "continue": tr("Keep going")
        case "skip": NotificationAction.skip.label
        default: value
        }
    }

    /// The sounds offered by name for a cue, id and untranslated title: intervald's own, then those of the
    /// freedesktop sound theme that suit a cue.
    public static let namedSounds: [(id: String, title: String)] =
        SoundCue.allCases.map { ($0.defaultSound, $0.soundTitle) } + [
            ("bell", trLater("Bell")), ("message", trLater("Message")), ("complete", trLater("Complete")),
            ("audio-volume-change", trLater("Click")), ("alarm-clock-elapsed", trLater("Alarm clock")),
            ("dialog-information", trLater("Information")), ("phone-incoming-call", trLater("Phone ringing")),
            ("service-login", trLater("Log-in chime")), ("window-attention", trLater("Attention")),
        ]

    /// A sound's name in Preferences, translated: a named sound's title, a file's name, or the theme sound's id.
    public static func soundTitle(_ sound: String) -> String {
        if let named = namedSounds.first(where: { $0.id == sound }) { return tr(named.title) }
        guard let slash = sound.lastIndex(of: "/") else { return sound }
        return tr("File {name}", ["name": String(sound[sound.index(after: slash)...])])
    }

    /// A duration as the plan language writes it, as short as exact: "3s", "1500ms".
    static func durationText(_ microseconds: Int64) -> String {
        microseconds % 1_000_000 == 0 ? "\(microseconds / 1_000_000)s" : "\(microseconds / 1000)ms"
    }
}

extension Setting {
    /// This setting, shown in Preferences.
    func shown(
        in group: Preference.Group, _ title: String, _ control: Preference.Control,
        current: @escaping @Sendable (Settings) -> SettingValue
    ) -> Setting {
        var shown = self
        shown.preference = Preference(group: group, title: title, control: control, current: current)
        return shown
    }
}

import IntervalCore

/// One setting of `intervald.toml`: where it is, what it holds, its default and a line of doc, and how a value is read
/// into ``Settings``. ``all`` is the one table: the reader, the unknown-key warning, the check of the shipped
/// `config/intervald.toml` and docs/settings.md all come from it. Adding a setting is a row here and its field in
/// ``Settings``.
public struct Setting: Sendable {
    /// The table it is in (`notifications`, `sound`); nil at the top of the file.
    public let section: String?
    public let key: String
    /// What a value is, in words: "whole number", "true or false", …
    public let type: String
    /// The default as TOML writes it; nil when unset by default.
    public let defaultValue: String?
    public let doc: String
    /// Stores a valid `value` into the settings, or returns what a valid one would be.
    let read: @Sendable (TOMLValue, inout Settings) -> String?
    /// How Preferences shows it; nil: not shown there (the hooks, the kinds' own sounds).
    public internal(set) var preference: Preference?

    init(
        section: String?, key: String, type: String, defaultValue: String?, doc: String,
        read: @escaping @Sendable (TOMLValue, inout Settings) -> String?
    ) {
        self.section = section
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.doc = doc
        self.read = read
    }

    /// `[section] key`, or `key` at the top.
    public var name: String { section.map { "[\($0)] \(key)" } ?? key }

    /// The tables a file may have, in the order of the table.
    public static var sections: [String] {
        var seen = Set<String>()
        return all.compactMap(\.section).filter { seen.insert($0).inserted }
    }

    /// Every setting, in the order of the shipped file and of docs/settings.md.
    public static let all: [Setting] =
        [
            Setting(
                section: nil, key: "idle-exit", type: "whole number of seconds, 0 to 31536000", defaultValue: "120",
                doc: "How long an idle daemon (no workout, nothing to resume) waits before it exits; 0 never."
            ) { value, settings in
                guard let seconds = value.int, seconds >= 0, seconds <= 86_400 * 365 else {
                    return "expected a whole number of seconds, 0 for never"
                }
                settings.idleExit = seconds == 0 ? nil : Int64(seconds) * 1_000_000
                return nil
            }.shown(
                in: .advanced, trLater("Seconds an idle timer service waits before it exits"),
                .number(0...86_400 * 365, range: trLater("0 (never) to 31536000 (a year)"))
            ) { .integer(Int(($0.idleExit ?? 0) / 1_000_000)) },
            Setting(
                section: "notifications", key: "sound", type: "sound name, or false", defaultValue: "\"bell\"",
                doc: "The `sound-name` hint of each cue, only with `[sound] enabled = false` (else intervald plays its "
                    + "cues itself and asks the server for silence)."
            ) { value, settings in
                if value.bool == false {
                    settings.style.soundName = nil
                } else if let name = value.string, !name.isEmpty {
                    settings.style.soundName = name
                } else {
                    return "expected a sound name such as \"bell\", or false"
                }
                return nil
            }.shown(in: .notifications, trLater("Notification sound, with cue sounds off"), .text(empty: .bool(false)))
            {
                .string($0.style.soundName ?? "")
            },
            Setting(
                section: "notifications", key: "urgency", type: "\"low\", \"normal\" or \"critical\"",
                defaultValue: "\"normal\"", doc: "The urgency hint of each cue."
            ) { value, settings in
                guard let urgency = value.string.flatMap(NotificationUrgency.init(rawValue:)) else {
                    return "expected \"low\", \"normal\" or \"critical\""
                }
                settings.style.urgency = urgency
                return nil
            }.shown(in: .notifications, trLater("Urgency"), .choice(["low", "normal", "critical"])) {
                .string($0.style.urgency.rawValue)
            },
            Setting(
                section: "notifications", key: "buttons", type: "list of \"stop\", \"pause\", \"skip\"",
                defaultValue: "[\"stop\", \"pause\", \"skip\"]",
                doc: "The buttons of each cue; Stop is always there, Pause becomes Resume while paused."
            ) { value, settings in
                let names = value.array.map { array in array.map { $0.string } } ?? [nil]
                let actions = names.compactMap { $0.flatMap(NotificationAction.init(rawValue:)) }
                guard actions.count == names.count, !actions.contains(.resume), !actions.contains(.done) else {
                    return "expected a list of \"stop\", \"pause\" and \"skip\""
                }
                settings.style.extraButtons = actions.filter { $0 != .stop }
                return nil
            }.shown(in: .notifications, trLater("Buttons besides Stop"), .flags(["pause", "skip"], always: ["stop"])) {
                .strings(["stop"] + $0.style.extraButtons.map(\.rawValue))
            },
            Setting(
                section: "timing", key: "countdown", type: "duration (\"3s\"), or false", defaultValue: "false",
                doc: "A pre-cue this long before every change, for plans without a `countdown` directive."
            ) { value, settings in
                if value.bool == false {
                    settings.defaultCountdown = nil
                } else if let text = value.string, let countdown = duration(text) {
                    settings.defaultCountdown = countdown
                } else {
                    return "expected a duration such as \"3s\", or false"
                }
                return nil
            }.shown(in: .workout, trLater("Countdown before each change, such as 3s"), .text(empty: .bool(false))) {
                .string($0.defaultCountdown.map(Preference.durationText) ?? "")
            },
            Setting(
                section: "timing", key: "on-sleep", type: "\"pause\" or \"continue\"", defaultValue: "\"pause\"",
                doc: "When the computer sleeps during a workout: pause it (resume where you were), or continue (after "
                    + "the wake, the segment due then)."
            ) { value, settings in
                guard let text = value.string, let policy = Settings.SleepPolicy(rawValue: text) else {
                    return "expected \"pause\" or \"continue\""
                }
                settings.onSleep = policy
                return nil
            }.shown(in: .workout, trLater("When the computer sleeps"), .choice(["pause", "continue"])) {
                .string($0.onSleep.rawValue)
            },
            flag("sound", "enabled", \.sound.enabled, "Play the cue sounds (through libcanberra).")
                .shown(in: .sound, trLater("Play cue sounds"), .toggle) { .bool($0.sound.enabled) },
            Setting(
                section: "sound", key: "volume", type: "whole number, 1 to 100", defaultValue: "100",
                doc: "Loudness in percent of the sounds' own."
            ) { value, settings in
                guard let volume = value.int, (1...100).contains(volume) else {
                    return "expected a percentage from 1 to 100"
                }
                settings.sound.volume = volume
                return nil
            }.shown(in: .sound, trLater("Volume in percent"), .number(1...100, range: trLater("1 to 100"))) {
                .integer($0.sound.volume)
            },
        ]
        + SoundCue.allCases.map { cue in
            Setting(
                section: "sound", key: cue.rawValue, type: "sound theme event id, or a file",
                defaultValue: "\"\(cue.defaultSound)\"", doc: cue.doc
            ) { value, settings in
                guard let name = soundName(value) else { return soundExpectation }
                settings.sound.sounds[cue] = name
                return nil
            }.shown(in: .sound, cue.title, .sound(cue)) { .string($0.sound.sound(for: cue)) }
        }
        + [
            Setting(
                section: "sound", key: "rest-kinds", type: "list of kinds",
                defaultValue: "[" + SoundSettings.defaultRestKindsInOrder.map { "\"\($0)\"" }.joined(separator: ", ")
                    + "]",
                doc: "The kinds that count as rest (the `rest` sound, the window's cool colour); every other is work."
            ) { value, settings in
                let kinds = value.array.map { array in array.compactMap { $0.string } }
                guard let kinds, kinds.count == value.array?.count else {
                    return "expected a list of kinds such as [\"walk\", \"rest\"]"
                }
                settings.sound.restKinds = Set(kinds)
                return nil
            }.shown(in: .sound, trLater("Kinds that are rest, separated by commas"), .words) {
                .strings($0.sound.restKinds.sorted())
            },
            flag(
                "sound", "voice", \.sound.voice, "Speak each change, the countdown and the summary (speech-dispatcher)."
            ).shown(in: .voice, trLater("Speak each change"), .toggle) { .bool($0.sound.voice) },
            Setting(
                section: "sound", key: "voice-language", type: "language tag (\"en\", \"de\")", defaultValue: nil,
                doc: "The voice's language; unset, the language of the phrases (your locale's)."
            ) { value, settings in
                guard let language = value.string, !language.isEmpty,
                    language.allSatisfy({ $0.isLetter || $0 == "-" })
                else { return "expected a language tag such as \"en\" or \"de\"" }
                settings.sound.voiceLanguage = language
                return nil
            }.shown(in: .voice, trLater("Language, such as de (empty: the language of the window)"), .text(empty: nil))
            {
                .string($0.sound.voiceLanguage ?? "")
            },
            Setting(
                section: "sound", key: "voice-rate", type: "whole number, -100 to 100", defaultValue: "0",
                doc: "The voice's rate, from -100 (slowest) to 100."
            ) { value, settings in
                guard let rate = value.int, (-100...100).contains(rate) else {
                    return "expected a whole number from -100 (slowest) to 100"
                }
                settings.sound.voiceRate = rate
                return nil
            }.shown(
                in: .voice, trLater("Rate"), .number(-100...100, range: trLater("-100 (slowest) to 100 (fastest)"))
            ) {
                .integer($0.sound.voiceRate)
            },
            flag(
                "sound", "voice-halfway", \.sound.voiceHalfway,
                "Also say \"Halfway, 2 minutes left\" in segments of 2 minutes or more."
            ).shown(in: .voice, trLater("Say halfway in segments of 2 minutes or more"), .toggle) {
                .bool($0.sound.voiceHalfway)
            },
            Setting(
                section: "sound", key: "duck", type: "whole number, 0 to 100", defaultValue: "30",
                doc: "How loud other playback (music, video) is while a cue sounds or speaks, in percent of its "
                    + "loudness (30: 10.5 dB lower); 100 leaves it alone."
            ) { value, settings in
                guard let duck = value.int, (0...100).contains(duck) else {
                    return "expected a percentage from 0 to 100"
                }
                settings.sound.duck = duck
                return nil
            }.shown(
                in: .music, trLater("Music volume under a cue, in percent"),
                .number(0...100, range: trLater("0 (silent) to 100 (left alone)"))
            ) {
                .integer($0.sound.duck)
            },
            flag("sound", "duck-voice-only", \.sound.duckVoiceOnly, "Only the spoken phrases lower the music.")
                .shown(in: .music, trLater("Only the voice lowers the music"), .toggle) {
                    .bool($0.sound.duckVoiceOnly)
                },
            Setting(
                section: "sound", key: "kinds", type: "table of kind = sound", defaultValue: nil,
                doc: "`[sound.kinds]`: a sound of its own for some kinds, over the work or rest sound."
            ) { value, settings in
                guard let kinds = value.table else { return "expected a [sound.kinds] table of kind = \"sound\"" }
                var sounds: [String: String] = [:]
                for kind in kinds.keys.sorted() {
                    guard let name = kinds[kind].flatMap(soundName) else { return soundExpectation }
                    sounds[kind] = name
                }
                settings.sound.kindSounds = sounds
                return nil
            },
            flag(
                "haptics", "enabled", \.hapticsEnabled,
                "Ask feedbackd for a tap at each change, countdown pip and the finish (a phone's vibration)."
            ).shown(in: .haptics, trLater("Vibrate at each change"), .toggle) { .bool($0.hapticsEnabled) },
            flag(
                "tray", "enabled", \.trayEnabled,
                "Show the workout as a tray item with the countdown and a menu, in the panels that host them."
            ).shown(in: .workout, trLater("Show the workout in the tray"), .toggle) { .bool($0.trayEnabled) },
            heartRateSensor, machineSensor,
            Setting(
                section: "sensors", key: "max_heart_rate", type: "whole number of bpm, 100 to 250", defaultValue: nil,
                doc: "Your maximum heart rate, for heart rates a FIT workout gives as a percentage of it."
            ) { value, settings in
                guard let bpm = value.int, (100...250).contains(bpm) else {
                    return "expected a whole number of beats per minute from 100 to 250"
                }
                settings.sensors.maxHeartRate = bpm
                return nil
            },
            Setting(
                section: "machine", key: "max_speed", type: "number of km/h, 1 to 30", defaultValue: "16",
                doc: "The fastest a treadmill is asked to go: a step's faster pace is sent as this, and said once."
            ) { value, settings in
                guard let speed = value.number, (1...30).contains(speed) else {
                    return "expected a speed in km/h from 1 to 30, such as 16 or 12.5"
                }
                settings.machineMaxSpeed = speed
                return nil
            }.shown(
                in: .machine, trLater("Top speed of a treadmill, in km/h"),
                .decimal(1...30, step: 0.5, range: trLater("1 to 30"))
            ) { .decimal($0.machineMaxSpeed) },
            Setting(
                section: "machine", key: "max_power", type: "whole number of watts, 50 to 2000", defaultValue: "400",
                doc: "The most a bike is asked to hold: a step's higher power is sent as this, and said once."
            ) { value, settings in
                guard let watts = value.int, (50...2000).contains(watts) else {
                    return "expected a whole number of watts from 50 to 2000"
                }
                settings.machineMaxPower = watts
                return nil
            }.shown(
                in: .machine, trLater("Top power of a bike, in watts"),
                .number(50...2000, range: trLater("50 to 2000"))
            ) { .integer($0.machineMaxPower) },
            hook("on-cue", \.onCue, "Run at each change of segment."),
            hook("on-finish", \.onFinish, "Run when the plan ends."),
            hook("on-stop", \.onStop, "Run when the workout is stopped early."),
        ]

    private static let soundExpectation =
        "expected a sound theme name such as \"bell\" or a file such as \"/path/to/cue.oga\""

    /// A sound theme event id such as "bell", or a file (a path with a `/`).
    private static func soundName(_ value: TOMLValue) -> String? {
        guard let name = value.string, !name.isEmpty, !name.contains(where: \.isNewline) else { return nil }
        return name
    }

    /// A duration in the plan language, e.g. "3s" or "1:30".
    private static func duration(_ text: String) -> Int64? {
        guard let plan = try? PlanParser.parse("\(text) countdown", origin: "", defaultName: "") else { return nil }
        return plan.duration
    }

    private static func flag(
        _ section: String, _ key: String, _ field: WritableKeyPath<Settings, Bool> & Sendable, _ doc: String
    ) -> Setting {
        Setting(
            section: section, key: key, type: "true or false",
            defaultValue: "\(Settings.defaults[keyPath: field])", doc: doc
        ) { value, settings in
            guard let flag = value.bool else { return "expected true or false" }
            settings[keyPath: field] = flag
            return nil
        }
    }

    /// The `[sensors]` setting that holds the device chosen for `kind`: `heart_rate`, or `machine` for either machine.
    public static func chosenSensor(_ kind: SensorKind) -> Setting {
        kind == .heartRate ? heartRateSensor : machineSensor
    }

    private static let heartRateSensor = address(
        "heart_rate", \.heartRate,
        "The heart-rate strap's Bluetooth address, as `intervalctl sensors use NAME` or Preferences › Sensors writes it; unset: no strap."
    )
    private static let machineSensor = address(
        "machine", \.machine,
        "The treadmill's or bike's Bluetooth address, as `intervalctl sensors use NAME` or Preferences › Sensors writes it; unset: none."
    )

    /// A device chosen in `[sensors]`, by its Bluetooth address.
    private static func address(
        _ key: String, _ field: WritableKeyPath<Settings.Sensors, String?> & Sendable, _ doc: String
    ) -> Setting {
        Setting(section: "sensors", key: key, type: "Bluetooth address", defaultValue: nil, doc: doc) {
            value, settings in
            guard let text = value.string, Settings.Sensors.isAddress(text) else {
                return "expected a Bluetooth address such as \"C0:FF:EE:12:34:56\" (intervalctl sensors lists them)"
            }
            settings.sensors[keyPath: field] = text.uppercased()
            return nil
        }
    }

    /// A command run directly (argv, no shell) with the workout's fields filled in (docs/workout-fields.md).
    private static func hook(
        _ key: String, _ field: WritableKeyPath<Settings.Hooks, [String]?> & Sendable, _ doc: String
    ) -> Setting {
        Setting(section: "hooks", key: key, type: "command: list of strings", defaultValue: nil, doc: doc) {
            value, settings in
            let argv = value.array.map { array in array.compactMap { $0.string } }
            guard let argv, !argv.isEmpty, argv.count == value.array?.count, !(argv.first?.isEmpty ?? true) else {
                return "expected a command as a list of strings, such as [\"espeak-ng\", \"{label}\"]"
            }
            settings.hooks[keyPath: field] = argv
            return nil
        }
    }
}

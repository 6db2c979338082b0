import IntervalCore
import IntervalRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Reads `intervald.toml` (spec §4a). A broken file is reported with its line and the defaults are used; a bad value
/// is reported with its key and line, and that one setting keeps its default.
public enum SettingsFile {
    /// The settings in `path` and the problems found; a missing file gives the defaults and no problem.
    public static func load(path: String) -> (Settings, [String]) {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: maximumBytes)
        } catch {
            if error.errno == ENOENT { return (.defaults, []) }
            return (.defaults, ["\(error); using the default settings."])
        }
        return parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Far more than any settings file needs; a larger file is refused rather than read.
    static let maximumBytes = 1 << 20

    public static func parse(_ text: String, path: String) -> (Settings, [String]) {
        let table: TOMLTable
        switch TOMLDocument.parse(Array(text.utf8)) {
        case .success(let root):
            table = root
        case .failure(let error):
            return (
                .defaults,
                ["\(path):\(error.line):\(error.column): \(error.description); using the default settings."]
            )
        }
        var reader = Reader(table: table, path: path)
        return (reader.settings(), reader.problems)
    }

    private struct Reader {
        let table: TOMLTable
        let path: String
        var problems: [String] = []

        mutating func settings() -> Settings {
            var settings = Settings.defaults
            check(table, known: ["idle-exit", "notifications", "timing", "hooks", "sound"], section: nil)
            if let value = table["idle-exit"] {
                if let seconds = value.int, seconds >= 0, seconds <= 86_400 * 365 {
                    settings.idleExit = seconds == 0 ? nil : Int64(seconds) * 1_000_000
                } else {
                    report("idle-exit", value, "expected a whole number of seconds, 0 for never")
                }
            }
            if let notifications = section("notifications") {
                check(notifications, known: ["sound", "urgency", "buttons"], section: "notifications")
                if let value = notifications["sound"] {
                    if value.bool == false {
                        settings.style.soundName = nil
                    } else if let name = value.string, !name.isEmpty {
                        settings.style.soundName = name
                    } else {
                        report("sound", value, "expected a sound name such as \"bell\", or false")
                    }
                }
                if let value = notifications["urgency"] {
                    if let urgency = value.string.flatMap(NotificationUrgency.init(rawValue:)) {
                        settings.style.urgency = urgency
                    } else {
                        report("urgency", value, "expected \"low\", \"normal\" or \"critical\"")
                    }
                }
                if let value = notifications["buttons"] {
                    let names = value.array.map { array in array.map { $0.string } } ?? [nil]
                    let actions = names.compactMap { $0.flatMap(NotificationAction.init(rawValue:)) }
                    if actions.count == names.count, !actions.contains(.resume) {
                        settings.style.extraButtons = actions.filter { $0 != .stop }
                    } else {
                        report("buttons", value, "expected a list of \"stop\", \"pause\" and \"skip\"")
                    }
                }
            }
            if let timing = section("timing") {
                check(timing, known: ["countdown"], section: "timing")
                if let value = timing["countdown"] {
                    if value.bool == false {
                        settings.defaultCountdown = nil
                    } else if let text = value.string, let countdown = Self.duration(text) {
                        settings.defaultCountdown = countdown
                    } else {
                        report("countdown", value, "expected a duration such as \"3s\", or false")
                    }
                }
            }
            if let hooks = section("hooks") {
                check(hooks, known: ["on-cue", "on-finish", "on-stop"], section: "hooks")
                settings.hooks.onCue = command(hooks, "on-cue")
                settings.hooks.onFinish = command(hooks, "on-finish")
                settings.hooks.onStop = command(hooks, "on-stop")
            }
            if let sound = section("sound") {
                settings.sound = sounds(sound)
            }
            return settings
        }

        /// `[sound]` (spec §4b): cue sounds and the voice.
        mutating func sounds(_ table: TOMLTable) -> SoundSettings {
            var sound = SoundSettings.defaults
            let cues = SoundCue.allCases.map(\.rawValue)
            check(
                table,
                known: Set(
                    cues + [
                        "enabled", "volume", "rest-kinds", "kinds", "voice", "voice-language", "voice-rate",
                        "voice-halfway",
                    ]),
                section: "sound")
            sound.enabled = flag(table, "enabled") ?? sound.enabled
            sound.voice = flag(table, "voice") ?? sound.voice
            sound.voiceHalfway = flag(table, "voice-halfway") ?? sound.voiceHalfway
            if let value = table["volume"] {
                if let volume = value.int, (1...100).contains(volume) {
                    sound.volume = volume
                } else {
                    report("volume", value, "expected a percentage from 1 to 100")
                }
            }
            for cue in SoundCue.allCases {
                if let name = soundName(table, cue.rawValue) { sound.sounds[cue] = name }
            }
            if let value = table["rest-kinds"] {
                let kinds = value.array.map { array in array.compactMap { $0.string } }
                if let kinds, kinds.count == value.array?.count {
                    sound.restKinds = Set(kinds)
                } else {
                    report("rest-kinds", value, "expected a list of kinds such as [\"walk\", \"rest\"]")
                }
            }
            if let value = table["kinds"] {
                if let kinds = value.table {
                    for kind in kinds.keys.sorted() {
                        if let name = soundName(kinds, kind) { sound.kindSounds[kind] = name }
                    }
                } else {
                    report("kinds", value, "expected a [sound.kinds] table of kind = \"sound\"")
                }
            }
            if let value = table["voice-language"] {
                if let language = value.string, !language.isEmpty, language.allSatisfy({ $0.isLetter || $0 == "-" }) {
                    sound.voiceLanguage = language
                } else {
                    report("voice-language", value, "expected a language tag such as \"en\" or \"de\"")
                }
            }
            if let value = table["voice-rate"] {
                if let rate = value.int, (-100...100).contains(rate) {
                    sound.voiceRate = rate
                } else {
                    report("voice-rate", value, "expected a whole number from -100 (slowest) to 100")
                }
            }
            return sound
        }

        mutating func flag(_ table: TOMLTable, _ key: String) -> Bool? {
            guard let value = table[key] else { return nil }
            guard let flag = value.bool else {
                report(key, value, "expected true or false")
                return nil
            }
            return flag
        }

        /// A sound theme event id such as "bell", or a file (a path with a `/`).
        mutating func soundName(_ table: TOMLTable, _ key: String) -> String? {
            guard let value = table[key] else { return nil }
            guard let name = value.string, !name.isEmpty, !name.contains(where: \.isNewline) else {
                report(
                    key, value, "expected a sound theme name such as \"bell\" or a file such as \"/path/to/cue.oga\"")
                return nil
            }
            return name
        }

        /// A duration in the plan language, e.g. "3s" or "1:30".
        static func duration(_ text: String) -> Int64? {
            guard let plan = try? PlanParser.parse("\(text) countdown", origin: "", defaultName: "") else { return nil }
            return plan.duration
        }

        mutating func section(_ name: String) -> TOMLTable? {
            guard let value = table[name] else { return nil }
            guard let section = value.table else {
                report(name, value, "expected a [\(name)] table")
                return nil
            }
            return section
        }

        mutating func command(_ hooks: TOMLTable, _ key: String) -> [String]? {
            guard let value = hooks[key] else { return nil }
            let argv = value.array.map { array in array.compactMap { $0.string } }
            guard let argv, !argv.isEmpty, argv.count == value.array?.count, !(argv.first?.isEmpty ?? true) else {
                report(key, value, "expected a command as a list of strings, such as [\"espeak-ng\", \"{label}\"]")
                return nil
            }
            return argv
        }

        mutating func check(_ table: TOMLTable, known: Set<String>, section: String?) {
            for key in table.keys where !known.contains(key) {
                let name = section.map { "[\($0)] \(key)" } ?? key
                problems.append("\(path):\(table[key]?.line ?? 1): unknown setting '\(name)', ignoring it.")
            }
        }

        mutating func report(_ key: String, _ value: TOMLValue, _ expectation: String) {
            problems.append("\(path):\(value.line): \(key): \(expectation); using the default.")
        }
    }
}

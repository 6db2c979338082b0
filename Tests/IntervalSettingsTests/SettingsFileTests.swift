import Foundation
import IntervalCore
import Testing

@testable import IntervalSettings

@Suite struct SettingsFileTests {
    @Test func theShippedFileGivesTheDefaults() throws {
        let path = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let (settings, problems) = SettingsFile.load(path: "/\(path)/config/intervald.toml")
        #expect(problems == [])
        #expect(settings == .defaults)
    }

    @Test func everySettingIsRead() {
        let text = """
            [notifications]
            sound = false
            urgency = "critical"
            buttons = ["stop", "skip"]
            [timing]
            countdown = "3s"
            on-sleep = "continue"
            [hooks]
            on-cue = ["espeak-ng", "{label}"]
            on-finish = ["true"]
            on-stop = ["logger", "stopped {reason}"]
            """
        let (settings, problems) = SettingsFile.parse(text, path: "s.toml")
        #expect(problems == [])
        #expect(settings.style == CueStyle(soundName: nil, urgency: .critical, extraButtons: [.skip]))
        #expect(settings.defaultCountdown == 3_000_000)
        #expect(settings.onSleep == .keepRunning)
        #expect(
            settings.hooks
                == Settings.Hooks(
                    onCue: ["espeak-ng", "{label}"], onFinish: ["true"], onStop: ["logger", "stopped {reason}"]))
    }

    /// `intervalctl sensors use` writes an address; one written by hand in lower case is the same address.
    @Test func theSensorsAreReadByTheirAddressesAndABadOneIsSaid() {
        let (settings, problems) = SettingsFile.parse(
            "[sensors]\nheart_rate = \"c0:ff:ee:12:34:56\"\nmachine = \"strap\"\nmax_heart_rate = 185\n", path: "s.toml"
        )
        #expect(settings.sensors.heartRate == "C0:FF:EE:12:34:56" && settings.sensors.machine == nil)
        #expect(settings.sensors.maxHeartRate == 185)
        #expect(problems.count == 1 && problems[0].contains("machine: expected a Bluetooth address"), "\(problems)")
    }

    /// A speed written as a whole number is the same speed; a ceiling out of its range, or a fraction of a watt, keeps
    /// the default and is said with its line.
    @Test func theMachinesCeilingsAreReadWithinTheirRanges() {
        let (settings, problems) = SettingsFile.parse("[machine]\nmax_speed = 12.5\nmax_power = 250\n", path: "s.toml")
        #expect(problems == [])
        #expect(settings.machineMaxSpeed == 12.5 && settings.machineMaxPower == 250)
        #expect(SettingsFile.parse("[machine]\nmax_speed = 20\n", path: "s.toml").0.machineMaxSpeed == 20)
        #expect(Settings.defaults.machineMaxSpeed == 16 && Settings.defaults.machineMaxPower == 400)
        let (bad, said) = SettingsFile.parse(
            "[machine]\nmax_speed = 31\nmax_power = 250.5\n[machine.more]\n", path: "s.toml")
        #expect(bad.machineMaxSpeed == 16 && bad.machineMaxPower == 400)
        #expect(
            said == [
                "s.toml:4: unknown setting '[machine] more', ignoring it.",
                "s.toml:2: max_speed: expected a speed in km/h from 1 to 30, such as 16 or 12.5; using the default.",
                "s.toml:3: max_power: expected a whole number of watts from 50 to 2000; using the default.",
            ])
        for text in ["max_speed = 0.5", "max_speed = \"fast\"", "max_speed = nan", "max_speed = inf"] {
            let (settings, problems) = SettingsFile.parse("[machine]\n\(text)\n", path: "s.toml")
            #expect(settings.machineMaxSpeed == 16 && problems.count == 1, "\(text): \(problems)")
        }
    }

    @Test func aBrokenFileIsReportedWithItsLineAndTheDefaultsAreUsed() {
        let (settings, problems) = SettingsFile.parse("[notifications]\nsound = \"bell\nurgency = 3\n", path: "s.toml")
        #expect(settings == .defaults)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("s.toml:2:") == true)
        #expect(problems.first?.hasSuffix("using the default settings.") == true)
    }

    @Test func badValuesKeepTheirDefaultsAndNameTheirLine() {
        let text =
            "[notifications]\nsound = 3\n\nurgency = \"loud\"\nbuttons = [\"stop\", \"dance\"]\nvolume = 11\n[timing]\ncountdown = \"soon\"\non-sleep = \"hibernate\"\n[hooks]\non-cue = []\n"
        let (settings, problems) = SettingsFile.parse(text, path: "s.toml")
        #expect(settings == .defaults)
        #expect(
            problems == [
                "s.toml:6: unknown setting '[notifications] volume', ignoring it.",
                "s.toml:2: sound: expected a sound name such as \"bell\", or false; using the default.",
                "s.toml:4: urgency: expected \"low\", \"normal\" or \"critical\"; using the default.",
                "s.toml:5: buttons: expected a list of \"stop\", \"pause\" and \"skip\"; using the default.",
                "s.toml:8: countdown: expected a duration such as \"3s\", or false; using the default.",
                "s.toml:9: on-sleep: expected \"pause\" or \"continue\"; using the default.",
                "s.toml:11: on-cue: expected a command as a list of strings, such as [\"espeak-ng\", \"{label}\"]; using the default.",
            ])
    }

    /// Found by the settings fuzzer (Fuzz/SettingsFuzzer): toml++ with its assertions on aborts the daemon on a table
    /// header whose key starts with a line break, `#` or a non-ASCII character (an invalid byte read from the file
    /// becomes U+FFFD), and on `a = [}`. CTOMLReader compiles it with them off in every build configuration, so a
    /// plain `swift build` reports these files.
    @Test(arguments: [
        "[\u{FFFD}]\n", "[a\u{FFFD}]\ncountdown = false\n", "[[é]]\n", "[x.\u{8C}]\n", "[\nintg]\n", "[", "[#\na]",
        "[\r\na]", "[[\na]]", "a = [}",
    ])
    func tableHeadersWithoutAKeyAreReportedNotFatal(text: String) {
        let (settings, problems) = SettingsFile.parse(text, path: "broken.toml")
        #expect(settings == .defaults)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("broken.toml:1:") == true)
    }

    @Test func aMissingFileIsNotAProblem() {
        let (settings, problems) = SettingsFile.load(path: "/nonexistent/intervald.toml")
        #expect(settings == .defaults)
        #expect(problems.isEmpty)
    }
}

@Suite struct SoundSettingsFileTests {
    @Test func theSoundSectionIsRead() {
        let text = """
            [sound]
            enabled = false
            volume = 40
            work = "complete"
            countdown = "/home/me/pip.oga"
            rest-kinds = ["walk", "jog"]
            voice = true
            voice-language = "de"
            voice-rate = -20
            voice-halfway = true
            [sound.kinds]
            hill = "bell"
            """
        let (settings, problems) = SettingsFile.parse(text, path: "s.toml")
        #expect(problems == [])
        let sound = settings.sound
        #expect(!sound.enabled && sound.voice && sound.volume == 40)
        #expect(sound.sound(for: .work) == "complete")
        #expect(sound.sound(for: .rest) == "intervald-rest")
        #expect(sound.sound(for: .countdown) == "/home/me/pip.oga")
        #expect(sound.restKinds == ["walk", "jog"])
        #expect(sound.kindSounds == ["hill": "bell"])
        #expect(sound.voiceLanguage == "de" && sound.voiceRate == -20 && sound.voiceHalfway)
        #expect(settings.notificationStyle.suppressSound == false, "no sound of its own: the server may play one")
        #expect(Settings.defaults.notificationStyle.suppressSound)
    }

    @Test func badSoundValuesAreLocated() {
        let text = "[sound]\nenabled = \"yes\"\nvolume = 0\nwork = \"\"\nvoice-rate = 200\nloudness = 3\n"
        let (settings, problems) = SettingsFile.parse(text, path: "s.toml")
        #expect(settings.sound == .defaults)
        #expect(
            problems == [
                "s.toml:6: unknown setting '[sound] loudness', ignoring it.",
                "s.toml:2: enabled: expected true or false; using the default.",
                "s.toml:3: volume: expected a percentage from 1 to 100; using the default.",
                "s.toml:4: work: expected a sound theme name such as \"bell\" or a file such as \"/path/to/cue.oga\"; using the default.",
                "s.toml:5: voice-rate: expected a whole number from -100 (slowest) to 100; using the default.",
            ])
    }
}

/// The settings table (``Setting/all``) against the shipped file and the defaults.
@Suite struct SettingTableTests {
    static let shipped =
        "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") + "/config/intervald.toml"

    /// Every `key = …` of the shipped file, set or commented out, with its table (`[sound.kinds]` is `kinds` of
    /// `sound`).
    static func shippedKeys() throws -> [String] {
        var section: String?
        var names: [String] = []
        for line in try String(contentsOfFile: shipped, encoding: .utf8).split(separator: "\n") {
            let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
                let header = text[text.index(after: text.startIndex)..<end].split(separator: ".")
                // The keys of a table inside a table (`[sound.kinds]`) are the user's, not settings.
                section = header.joined(separator: ".")
                if header.count == 2 { names.append("[\(header[0])] \(header[1])") }
            } else if let equals = text.range(of: " = "), text.first?.isLetter == true,
                !text[..<equals.lowerBound].contains(" ")
            {
                let key = String(text[..<equals.lowerBound])
                names.append(section.map { "[\($0)] \(key)" } ?? key)
            }
        }
        return names
    }

    @Test func theShippedFileHasEverySettingOnceAndNoOther() throws {
        let shipped = try Self.shippedKeys().filter { !$0.hasPrefix("[sound.kinds]") }
        #expect(shipped == Setting.all.map(\.name), "\(shipped) ≠ \(Setting.all.map(\.name))")
    }

    @Test func eachDefaultOfTheTableIsTheDefault() {
        for setting in Setting.all {
            guard let value = setting.defaultValue else { continue }
            let text = setting.section.map { "[\($0)]\n" } ?? ""
            let (settings, problems) = SettingsFile.parse(text + "\(setting.key) = \(value)\n", path: "s.toml")
            #expect(problems == [], "\(setting.name)")
            #expect(settings == .defaults, "\(setting.name)")
        }
    }

    @Test func everySettingRefusesAValueOfAnotherTypeWithItsLine() {
        for setting in Setting.all {
            // A date, which no setting takes (1.5 is a speed).
            let text = (setting.section.map { "[\($0)]\n" } ?? "") + "\(setting.key) = 1979-05-27\n"
            let (settings, problems) = SettingsFile.parse(text, path: "s.toml")
            #expect(settings == .defaults, "\(setting.name)")
            #expect(problems.count == 1 && problems[0].hasPrefix("s.toml:"), "\(setting.name): \(problems)")
        }
    }

    // MARK: Reading again over earlier settings (the daemon's reload, docs/reference.md §4c)

    @Test func aValueThatBecomesInvalidKeepsItsEarlierValueAndTheRestChange() {
        let first = SettingsFile.read("[sound]\nvolume = 40\nvoice = true\n", path: "s.toml")
        #expect(first.problems.isEmpty)
        let second = SettingsFile.read("[sound]\nvolume = 400\nvoice = false\n", path: "s.toml", over: first)
        #expect(second.settings.sound.volume == 40)
        #expect(second.settings.sound.voice == false)
        #expect(
            second.problems == [
                "s.toml:2: volume: expected a percentage from 1 to 100; keeping the value read before."
            ])
        // Kept once, kept again: the last valid value is carried through any number of bad edits.
        let third = SettingsFile.read("[sound]\nvolume = \"loud\"\n", path: "s.toml", over: second)
        #expect(third.settings.sound.volume == 40)
        #expect(third.settings.sound.voice == false)
    }

    @Test func aValueNeverValidBeforeFallsBackToItsDefault() {
        let first = SettingsFile.read("", path: "s.toml")
        let second = SettingsFile.read("[sound]\nvolume = 0\n", path: "s.toml", over: first)
        #expect(second.settings.sound.volume == SoundSettings.defaults.volume)
        #expect(second.problems == ["s.toml:2: volume: expected a percentage from 1 to 100; using the default."])
    }

    @Test func aValueRemovedFromTheFileGoesBackToItsDefault() {
        let first = SettingsFile.read("[tray]\nenabled = false\n", path: "s.toml")
        let second = SettingsFile.read("", path: "s.toml", over: first)
        #expect(second.settings.trayEnabled == Settings.defaults.trayEnabled)
        #expect(second.problems.isEmpty)
    }

    @Test func aFileThatIsNotTOMLKeepsEverySettingReadBefore() {
        let first = SettingsFile.read("idle-exit = 5\n[sound]\nvolume = 40\n", path: "s.toml")
        let second = SettingsFile.read("idle-exit = 5\n[sound\nvolume = 90\n", path: "s.toml", over: first)
        #expect(second.settings == first.settings)
        #expect(second.problems.count == 1)
        #expect(second.problems.first?.hasPrefix("s.toml:2:") == true)
        #expect(second.problems.first?.hasSuffix("keeping the settings read before.") == true)
        // Fixed, it is read again as a whole.
        let third = SettingsFile.read("[sound]\nvolume = 90\n", path: "s.toml", over: second)
        #expect(third.settings.sound.volume == 90)
        #expect(third.settings.idleExit == Settings.defaults.idleExit)
    }

    @Test func anUnreadableFileKeepsEverySettingReadBefore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(getpid())-unreadable")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = SettingsFile.read("[sound]\nvolume = 40\n", path: "s.toml")
        // A directory where the file should be: open succeeds, read fails with EISDIR, whoever runs the test.
        let second = SettingsFile.read(path: directory.path, over: first)
        #expect(second.settings == first.settings)
        #expect(second.problems.count == 1)
        #expect(second.problems.first?.hasSuffix("keeping the settings read before.") == true)
    }
}

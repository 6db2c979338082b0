import Foundation
import IntervalCore
import Testing

@testable import IntervalSettings

/// Preferences' writes into `intervald.toml` (docs/reference.md §4c): only the value's text changes.
@Suite struct SettingsTextTests {
    func setting(_ name: String) throws -> Setting {
        try #require(Setting.all.first { $0.name == name })
    }

    static let shipped: String = {
        let path = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        return (try? String(contentsOfFile: "/\(path)/config/intervald.toml", encoding: .utf8)) ?? ""
    }()

    @Test func aValueIsReplacedAndEveryOtherByteStays() throws {
        let text = "# mine\n[sound]  # the sounds\nvolume = 100   # loud\nwork = \"/home/me/sön.oga\" # é\nodd = 1\n"
        let edited = try SettingsText.setting(setting("[sound] volume"), to: .integer(40), in: text)
        #expect(edited == text.replacingOccurrences(of: "volume = 100", with: "volume = 40"))
        // After a value with non-ASCII text on its line: columns are counted in characters, not bytes.
        let renamed = try SettingsText.setting(setting("[sound] work"), to: .string("bell"), in: text)
        #expect(renamed == text.replacingOccurrences(of: "\"/home/me/sön.oga\"", with: "\"bell\""))
    }

    @Test func everySettingOfTheShippedFileCanBeChangedAloneInPlace() throws {
        #expect(!Self.shipped.isEmpty)
        let before = Self.shipped.split(separator: "\n", omittingEmptySubsequences: false)
        for (name, value) in [
            ("idle-exit", SettingValue.integer(0)), ("[notifications] urgency", .string("critical")),
            ("[notifications] buttons", .strings(["stop"])), ("[timing] countdown", .string("3s")),
            ("[sound] enabled", .bool(false)), ("[sound] rest-kinds", .strings(["walk", "jog"])),
            ("[sound] countdown", .string("/tmp/pip \"1\".oga")), ("[tray] enabled", .bool(false)),
            ("[machine] max_speed", .decimal(12.5)), ("[machine] max_power", .integer(300)),
        ] {
            let edited = try SettingsText.setting(setting(name), to: value, in: Self.shipped)
            let after = edited.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(after.count == before.count, "\(name)")
            let changed = zip(before, after).filter { $0 != $1 }
            #expect(changed.count == 1, "\(name): \(changed)")
            #expect(changed.first?.1.contains(value.toml) == true, "\(name): \(changed)")
        }
    }

    @Test func aSettingTheFileLacksGoesAtTheEndOfItsTable() throws {
        let text = "[sound]\nvolume = 50\n\n# My own kinds.\n[sound.kinds]\nhill = \"bell\"\n[tray]\nenabled = true\n"
        let edited = try SettingsText.setting(setting("[sound] voice"), to: .bool(true), in: text)
        #expect(
            edited
                == "[sound]\nvolume = 50\nvoice = true\n\n# My own kinds.\n[sound.kinds]\nhill = \"bell\"\n[tray]\nenabled = true\n"
        )
    }

    @Test func aTableTheFileLacksIsAddedAtItsEnd() throws {
        #expect(
            try SettingsText.setting(setting("[sound] volume"), to: .integer(20), in: "idle-exit = 5")
                == "idle-exit = 5\n\n[sound]\nvolume = 20\n")
        #expect(
            try SettingsText.setting(setting("[tray] enabled"), to: .bool(false), in: "")
                == "\n[tray]\nenabled = false\n")
    }

    @Test func aTopLevelSettingGoesAboveTheFirstTableAndItsComments() throws {
        let text = "# Settings.\n\n# Sounds:\n[sound]\nvolume = 5\n"
        #expect(
            try SettingsText.setting(setting("idle-exit"), to: .integer(30), in: text)
                == "# Settings.\n\nidle-exit = 30\n# Sounds:\n[sound]\nvolume = 5\n")
    }

    @Test func takingOutASettingRemovesItsLineOnly() throws {
        let text = "[sound]\nvoice = true\nvoice-language = \"de\"   # German\nvoice-rate = 10\n"
        #expect(
            try SettingsText.setting(setting("[sound] voice-language"), to: nil, in: text)
                == "[sound]\nvoice = true\nvoice-rate = 10\n")
        #expect(try SettingsText.setting(setting("[sound] voice-language"), to: nil, in: "[sound]\n") == "[sound]\n")
    }

    @Test func unknownKeysHooksAndAnInvalidValueElsewhereStay() throws {
        let text = "mystery = 1\n[hooks]\non-cue = [\"espeak-ng\", \"{label}\"]\n[sound]\nvolume = 400\nvoice = 3\n"
        let edited = try SettingsText.setting(setting("[sound] volume"), to: .integer(60), in: text)
        #expect(edited == text.replacingOccurrences(of: "volume = 400", with: "volume = 60"))
    }

    @Test func aFileThatIsNotTOMLIsRefusedWithWhere() throws {
        let volume = try setting("[sound] volume")
        let error = #expect(throws: SettingsTextError.self) {
            try SettingsText.setting(volume, to: .integer(60), in: "[sound\nvolume = 1\n")
        }
        #expect(error?.description.contains("line 1") == true, "\(String(describing: error))")
    }

    @Test func whatCannotBeWrittenInPlaceIsRefusedNotMangled() throws {
        // The table made by a dotted key: a [sound] header after it would be invalid TOML.
        #expect(throws: SettingsTextError.self) {
            try SettingsText.setting(setting("[sound] voice"), to: .bool(true), in: "sound.volume = 5\n")
        }
        // In an inline table, the line holds more than the setting: it is not taken out.
        #expect(throws: SettingsTextError.self) {
            try SettingsText.setting(
                setting("[sound] voice-language"), to: nil, in: "sound = { voice-language = \"de\", volume = 5 }\n")
        }
        // But its value can be replaced where it stands.
        #expect(
            try SettingsText.setting(
                setting("[sound] volume"), to: .integer(7), in: "sound = { voice = true, volume = 5 }\n")
                == "sound = { voice = true, volume = 7 }\n")
    }

    @Test func stringsAreEscaped() throws {
        let edited = try SettingsText.setting(setting("[sound] work"), to: .string("a\"b\\c\u{1}"), in: "")
        let (settings, problems) = SettingsFile.parse(edited, path: "s.toml")
        #expect(problems.isEmpty)
        #expect(settings.sound.sound(for: .work) == "a\"b\\c\u{1}")
    }

    /// Preferences show `current` and write it back: for every setting in Preferences, what it shows of the defaults,
    /// written, reads back as the defaults.
    /// A spin button's 12.3 is 12.299999999999999 as a double: the file says 12.3, and a whole speed 16.0.
    @Test func aDecimalIsWrittenInTenths() throws {
        let speed = try setting("[machine] max_speed")
        #expect(
            try SettingsText.setting(speed, to: .decimal(12.299999999999999), in: "")
                == "\n[machine]\nmax_speed = 12.3\n")
        #expect(
            try SettingsText.setting(speed, to: .decimal(16), in: "[machine]\nmax_speed = 12\n")
                == "[machine]\nmax_speed = 16.0\n")
        #expect(throws: SettingsTextError.self) { try SettingsText.setting(speed, to: .decimal(.infinity), in: "") }
    }

    @Test func everySettingInPreferencesWritesBackWhatItShows() throws {
        let shown = Setting.all.filter { $0.preference != nil }
        let notShown = Setting.all.filter { $0.section == "hooks" || $0.section == "sensors" || $0.key == "kinds" }
        #expect(notShown.count == 7)
        #expect(
            shown.count == Setting.all.count - notShown.count,
            "every setting but the three hooks, the kinds' sounds and the sensors (chosen in a group of their own)")
        for setting in shown {
            let preference = try #require(setting.preference)
            var value: SettingValue? = preference.current(.defaults)
            if case .text = preference.control, case .string(let text) = value {
                value = preference.value(ofText: text)
            }
            let edited = try SettingsText.setting(setting, to: value, in: "")
            let (settings, problems) = SettingsFile.parse(edited, path: "s.toml")
            #expect(problems.isEmpty, "\(setting.name): \(problems)")
            #expect(settings == .defaults, "\(setting.name): \(edited)")
        }
    }
}

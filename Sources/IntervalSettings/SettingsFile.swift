import Glibc
import IntervalCore
import IntervalRuntime

/// What a read of `intervald.toml` gave: the settings, the problems found (each with its line), and the last valid
/// value of each setting, so that a later read (the daemon's reload) keeps a setting whose new value is invalid.
public struct SettingsReading: Sendable {
    public let settings: Settings
    public let problems: [String]
    /// The valid values read, by ``Setting/name``.
    let goodValues: [String: TOMLValue]

    /// The defaults, from no file.
    public static let defaults = SettingsReading(settings: .defaults, problems: [], goodValues: [:])
}

/// Reads `intervald.toml` (docs/reference.md §4a). A broken file is reported with its line and the defaults are used; a
/// bad value is reported with its key and line, and that one setting keeps its default. Read again over an earlier
/// reading (the daemon's reload, docs/reference.md §4c), a broken file keeps every earlier setting, and a bad value
/// keeps that setting's earlier value.
public enum SettingsFile {
    /// The settings in `path` and the problems found; a missing file gives the defaults and no problem.
    public static func load(path: String) -> (Settings, [String]) {
        let reading = read(path: path)
        return (reading.settings, reading.problems)
    }

    public static func parse(_ text: String, path: String) -> (Settings, [String]) {
        let reading = read(text, path: path)
        return (reading.settings, reading.problems)
    }

    /// Reads `path` over `previous` (nil: over the defaults).
    public static func read(path: String, over previous: SettingsReading? = nil) -> SettingsReading {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: maximumBytes)
        } catch {
            if error.errno == ENOENT { return .defaults }
            return keeping(previous, problem: "\(error)")
        }
        return read(String(decoding: bytes, as: UTF8.self), path: path, over: previous)
    }

    /// Reads `text`, as the file at `path`, over `previous` (nil: over the defaults).
    public static func read(_ text: String, path: String, over previous: SettingsReading? = nil) -> SettingsReading {
        let table: TOMLTable
        switch TOMLDocument.parse(Array(text.utf8)) {
        case .success(let root):
            table = root
        case .failure(let error):
            return keeping(previous, problem: "\(path):\(error.line):\(error.column): \(error.description)")
        }
        var reader = Reader(table: table, path: path, previous: previous?.goodValues)
        let settings = reader.settings()
        return SettingsReading(settings: settings, problems: reader.problems, goodValues: reader.goodValues)
    }

    /// Far more than any settings file needs; a larger file is refused rather than read.
    static let maximumBytes = 1 << 20

    /// A file that cannot be read as a whole: the earlier settings stay, or the defaults at the first read.
    private static func keeping(_ previous: SettingsReading?, problem: String) -> SettingsReading {
        guard let previous else {
            return SettingsReading(
                settings: .defaults, problems: ["\(problem); using the default settings."], goodValues: [:])
        }
        return SettingsReading(
            settings: previous.settings, problems: ["\(problem); keeping the settings read before."],
            goodValues: previous.goodValues)
    }

    /// Reads every setting of ``Setting/all`` that `table` has; warns of the keys that are none.
    private struct Reader {
        let table: TOMLTable
        let path: String
        /// The earlier reading's valid values, for the settings whose value is invalid now.
        let previous: [String: TOMLValue]?
        var problems: [String] = []
        var goodValues: [String: TOMLValue] = [:]

        mutating func settings() -> Settings {
            var settings = Settings.defaults
            let top = Setting.all.filter { $0.section == nil }.map(\.key)
            check(table, known: Set(top + Setting.sections), section: nil)
            var sections: [String: TOMLTable] = [:]
            for name in Setting.sections {
                guard let value = table[name] else { continue }
                guard let section = value.table else {
                    report(name, value, "expected a [\(name)] table", outcome: "using the defaults")
                    continue
                }
                check(section, known: Set(Setting.all.filter { $0.section == name }.map(\.key)), section: name)
                sections[name] = section
            }
            for setting in Setting.all {
                let holder = setting.section.map { sections[$0] } ?? table
                guard let value = holder?[setting.key] else { continue }
                guard let expectation = setting.read(value, &settings) else {
                    goodValues[setting.name] = value
                    continue
                }
                if let earlier = previous?[setting.name], setting.read(earlier, &settings) == nil {
                    goodValues[setting.name] = earlier
                    report(setting.key, value, expectation, outcome: "keeping the value read before")
                } else {
                    report(setting.key, value, expectation, outcome: "using the default")
                }
            }
            return settings
        }

        mutating func check(_ table: TOMLTable, known: Set<String>, section: String?) {
            for key in table.keys where !known.contains(key) {
                let name = section.map { "[\($0)] \(key)" } ?? key
                problems.append("\(path):\(table[key]?.line ?? 1): unknown setting '\(name)', ignoring it.")
            }
        }

        mutating func report(_ key: String, _ value: TOMLValue, _ expectation: String, outcome: String) {
            problems.append("\(path):\(value.line): \(key): \(expectation); \(outcome).")
        }
    }
}

import IntervalCore
import IntervalRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// Reads `intervald.toml` (docs/reference.md §4a). A broken file is reported with its line and the defaults are used; a
/// bad value is reported with its key and line, and that one setting keeps its default.
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

    /// Reads every setting of ``Setting/all`` that `table` has; warns of the keys that are none.
    private struct Reader {
        let table: TOMLTable
        let path: String
        var problems: [String] = []

        mutating func settings() -> Settings {
            var settings = Settings.defaults
            let top = Setting.all.filter { $0.section == nil }.map(\.key)
            check(table, known: Set(top + Setting.sections), section: nil)
            var sections: [String: TOMLTable] = [:]
            for name in Setting.sections {
                guard let value = table[name] else { continue }
                guard let section = value.table else {
                    report(name, value, "expected a [\(name)] table")
                    continue
                }
                check(section, known: Set(Setting.all.filter { $0.section == name }.map(\.key)), section: name)
                sections[name] = section
            }
            for setting in Setting.all {
                let holder = setting.section.map { sections[$0] } ?? table
                guard let value = holder?[setting.key] else { continue }
                if let expectation = setting.read(value, &settings) {
                    report(setting.key, value, expectation)
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

        mutating func report(_ key: String, _ value: TOMLValue, _ expectation: String) {
            problems.append("\(path):\(value.line): \(key): \(expectation); using the default.")
        }
    }
}

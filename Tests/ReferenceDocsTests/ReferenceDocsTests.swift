import Foundation
import IntervalCore
import IntervalSettings
import Testing

/// The reference pages made from the code's tables: each is rendered here and must equal its file in docs/, so that a
/// table and its page cannot drift apart. `scripts/update-docs` (INTERVALD_UPDATE_DOCS=1) writes them instead.
@Suite struct ReferenceDocsTests {
    static let repository = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    static func check(_ rendered: String, _ page: String) throws {
        try check(rendered, file: "docs/\(page)")
    }

    /// `file`, relative to the repository, must be `rendered`.
    static func check(_ rendered: String, file: String) throws {
        let path = "\(repository)/\(file)"
        if ProcessInfo.processInfo.environment["INTERVALD_UPDATE_DOCS"] != nil {
            try rendered.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOfFile: path, encoding: .utf8)
        #expect(committed == rendered, "\(file) is not what its table renders: run scripts/update-docs")
    }

    /// The tray item's icons in the icon theme are the ones it draws as pixmaps.
    @Test(arguments: WorkoutDisplay.Tone.allCases) func trayIcon(_ tone: WorkoutDisplay.Tone) throws {
        try Self.check(TrayIcon.svg(tone), file: "desktop/\(TrayIcon.name(tone)).svg")
    }

    static func header(_ title: String, from table: String) -> String {
        """
        # \(title)

        <!-- Rendered from \(table) by Tests/ReferenceDocsTests; scripts/update-docs writes it. Do not edit by hand. -->

        """
    }

    /// A table cell: `|` escaped, never empty.
    static func cell(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "–" }
        return text.replacingOccurrences(of: "|", with: "\\|")
    }

    static func arguments(_ arguments: [BusInterface.Argument]) -> String {
        arguments.isEmpty ? "–" : arguments.map { "`\($0.signature)` \($0.name)" }.joined(separator: ", ")
    }

    @Test func dbusInterfaces() throws {
        var page = Self.header("D-Bus interfaces", from: "BusInterface.exported and TimerCommandError.Code")
        page += """

            What intervald exports on the session bus, every object with its methods, properties and signals (times in
            microseconds). The daemon owns `\(BusNames.service)` while it runs (D-Bus activation starts it) and
            `\(MediaPlayer.service)` while a workout exists; `intervalctl run` owns
            `\(MediaPlayer.service).instance<pid>` for its own workout. Every interface is also introspectable, and
            answers `org.freedesktop.DBus.Properties` and `org.freedesktop.DBus.Peer`. docs/reference.md §3 and §8
            say what the calls do to a workout.

            """
        for interface in BusInterface.exported {
            page += "\n## `\(interface.name)` at `\(interface.path)`\n\n\(interface.summary)\n"
            if !interface.methods.isEmpty {
                page += "\n| method | arguments | results | does |\n| --- | --- | --- | --- |\n"
                for case .method(let name, let arguments, let results, let doc) in interface.methods {
                    page +=
                        "| `\(name)` | \(Self.arguments(arguments)) | \(Self.arguments(results)) | \(Self.cell(doc)) |\n"
                }
            }
            if !interface.properties.isEmpty {
                page += "\n| property | type | change signal | value |\n| --- | --- | --- | --- |\n"
                for case .property(let name, let signature, let change, let doc) in interface.properties {
                    let announced =
                        switch change {
                        case .constant: "constant"
                        case .emitsChange: "`PropertiesChanged`"
                        case .readTime: "none: read at the call"
                        }
                    page += "| `\(name)` | `\(signature)` | \(announced) | \(Self.cell(doc)) |\n"
                }
            }
            if !interface.signals.isEmpty {
                page += "\n| signal | arguments | when |\n| --- | --- | --- |\n"
                for case .signal(let name, let arguments, let doc) in interface.signals {
                    page += "| `\(name)` | \(Self.arguments(arguments)) | \(Self.cell(doc)) |\n"
                }
            }
        }
        page += """

            ## Errors

            The timer's own errors, with a sentence as their message:

            | error | when |
            | --- | --- |

            """
        for code in TimerCommandError.Code.allCases {
            page += "| `\(code.rawValue)` | \(Self.cell(code.doc)) |\n"
        }
        page += """

            Arguments of the wrong types get `\(BusErrorName.invalidArgs)` from sd-bus before they reach intervald; a
            call that arrives while the daemon shuts down gets `\(BusErrorName.failed)`.

            """
        try Self.check(page, "dbus-interfaces.md")
    }

    @Test func settings() throws {
        var page = Self.header("Settings", from: "Setting.all")
        page += """

            Every setting of `$XDG_CONFIG_HOME/intervald/intervald.toml`, which the daemon reads at start and again
            whenever the file changes (docs/reference.md §4c), and `intervalctl run` each time it runs (§4a). The
            shipped `config/intervald.toml` has each of them with its default and a comment. A value of the wrong kind
            is reported with its line and that setting keeps the value it had (at start, its default); an unknown key
            is reported and ignored. The window's Preferences set every setting that has a row there (its title in the
            last column), changing only that value's text in the file.

            """
        var section: String?? = .none
        for setting in Setting.all {
            if section != .some(setting.section) {
                section = .some(setting.section)
                page += "\n## \(setting.section.map { "`[\($0)]`" } ?? "At the top")\n\n"
                page += "| key | value | default | meaning | in Preferences |\n| --- | --- | --- | --- | --- |\n"
            }
            let defaultValue = setting.defaultValue.map { "`\($0)`" } ?? "unset"
            let preference = setting.preference.map { "\($0.group.title) › \($0.title)" } ?? "–"
            page +=
                "| `\(setting.key)` | \(Self.cell(setting.type)) | \(Self.cell(defaultValue)) | \(Self.cell(setting.doc)) "
                + "| \(Self.cell(preference)) |\n"
        }
        try Self.check(page, "settings.md")
    }

    @Test func workoutFields() throws {
        var page = Self.header("The workout's fields", from: "StatusField")
        page += """

            Each field of a workout has one name and one meaning wherever it shows: in a `--format` template of
            `intervalctl status` and in a hook's arguments as `{name}`, in a hook's environment as `INTERVALD_NAME`, and, where
            it is one, as a `status --json` key, an `org.intervald.Timer1` property (µs where it is a time) and MPRIS
            metadata. While idle every field but `state` and `text` is empty.

            | field | value | `--format` | hooks: `{…}` and variable | `--json` key | D-Bus property | MPRIS |
            | --- | --- | --- | --- | --- | --- | --- |

            """
        for field in StatusField.allCases {
            let hooks = field.inHooks ? "`{\(field.rawValue)}`, `\(field.environmentName)`" : "–"
            page +=
                "| `\(field.rawValue)` | \(Self.cell(field.doc)) | `{\(field.rawValue)}` | \(hooks) | "
                + "\(Self.cell(field.jsonKey.map { "`\($0)`" })) | \(Self.cell(field.busProperty.map { "`\($0.name)`" })) | "
                + "\(Self.cell(field.mprisKey.map { "`\($0)`" })) |\n"
        }
        page += """

            Hooks also get `{event}` and `INTERVALD_EVENT` (`cue`, `finish` or `stop`), `{reason}` and
            `INTERVALD_REASON` (the stop reason, `on-stop` only), `INTERVALD_PLAN_DURATION_US` and
            `INTERVALD_SEGMENT_DURATION_US`. At `on-finish` the segment's fields are empty.

            ## Spellings of the release before

            Still understood for this release; the daemon logs a warning at start for a hook that uses one.

            | spelling | now |
            | --- | --- |

            """
        for (spelling, instead) in HookEvent.deprecated {
            page += "| `\(spelling)` | \(Self.cell(instead)) |\n"
        }
        try Self.check(page, "workout-fields.md")
    }
}

/// The Keyboard Shortcuts window (ui/shortcuts.ui) lists the window's keys as its key tables hold them.
@Suite struct WindowKeysTests {
    @Test func theKeyboardShortcutsWindowListsEveryKeyOfTheTablesAndNoOther() throws {
        let ui = try String(
            contentsOfFile: "\(ReferenceDocsTests.repository)/Sources/interval-timer/ui/shortcuts.ui", encoding: .utf8)
        let pattern = try Regex(#"<property name="accelerator">([^<]*)</property>"#)
        let listed = ui.matches(of: pattern).flatMap { match in
            String(ui[match.range]).replacing(#"<property name="accelerator">"#, with: "")
                .replacing("</property>", with: "").replacing("&lt;", with: "<").replacing("&gt;", with: ">")
                .split(separator: " ").map(String.init)
        }
        // The workout page's controls take these themselves (ui/workout-page.ui), while one of them has the focus; the
        // Plans page's leaflet takes Alt+Left (can-navigate-back, ui/plans-page.ui).
        let ownKeys = ["space", "Right", "Left", "<Alt>Left"]
        // Every accelerator of an action, not only its first: Ctrl+W closed the window unlisted.
        let tables = (WindowKey.application + WindowKey.editor).flatMap(\.accelerators)
        #expect(listed.sorted() == (ownKeys + tables).sorted())
    }

    /// Each key docs/window.md's key tables document ("| Ctrl+Q, Ctrl+W | close the window |") is listed: the
    /// shortcuts window listed Ctrl+Q but not Ctrl+W or Alt+Left.
    @Test func theKeyboardShortcutsWindowListsEveryKeyTheWindowsPageDocuments() throws {
        let ui = try String(
            contentsOfFile: "\(ReferenceDocsTests.repository)/Sources/interval-timer/ui/shortcuts.ui", encoding: .utf8)
        let page = try String(contentsOfFile: "\(ReferenceDocsTests.repository)/docs/window.md", encoding: .utf8)
        let documented = Self.documentedKeys(page)
        #expect(documented.contains("<Alt>Left") && documented.contains("<Control>w"), "\(documented)")
        for key in documented {
            let escaped = key.replacing("<", with: "&lt;").replacing(">", with: "&gt;")
            let listed = try Regex(#"<property name="accelerator">([^<]* )?\#(escaped)( [^<]*)?</property>"#)
            #expect(ui.contains(listed), "docs/window.md documents \(key); ui/shortcuts.ui does not list it")
        }
    }

    /// The keys of the page's key tables (a table whose first column is headed "key"), as GTK writes them:
    /// "Ctrl+Shift+Enter" is `<Control><Shift>Return`.
    static func documentedKeys(_ page: String) -> [String] {
        var keys: [String] = []
        var inKeyTable = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("|"), let first = cells.first else {
                inKeyTable = false
                continue
            }
            if first.lowercased() == "key" {
                inKeyTable = true
            } else if inKeyTable, !first.hasPrefix("-") {
                keys += first.split(separator: ", ").map { Self.gtkAccelerator(String($0)) }
            }
        }
        return keys
    }

    private static func gtkAccelerator(_ written: String) -> String {
        let parts = written.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        let modifiers = ["Ctrl": "<Control>", "Shift": "<Shift>", "Alt": "<Alt>"]
        let names = ["Enter": "Return", "?": "question", "Space": "space"]
        let key = parts.last ?? written
        let name = names[key] ?? (key.count == 1 ? key.lowercased() : key)
        return parts.dropLast().map { modifiers[$0] ?? $0 }.joined() + name
    }
}

/// Every object the window's code asks its layouts for (`Builder.widget("id")`, `object("id")`) is in the layout it
/// builds: a missing one would stop the window at start.
@Suite struct WindowLayoutTests {
    /// Every `get("id", Class.self)` of the window's code names an object its layout has, of that very class: a
    /// typed pointer cannot point at an object of another class.
    @Test func everyIdTheCodeAsksForIsInItsLayoutAsTheClassItAsksFor() throws {
        let folder = "\(ReferenceDocsTests.repository)/Sources/interval-timer"
        /// The class of each object of a layout, by id.
        func classes(inLayout name: String) throws -> [String: String] {
            let text = try String(contentsOfFile: "\(folder)/ui/\(name)", encoding: .utf8)
            let object = try Regex<(Substring, Substring, Substring)>(#"<object class="(\w+)" id="([^"]+)""#)
            return Dictionary(text.matches(of: object).map { (String($0.output.2), String($0.output.1)) }) { $1 }
        }
        let layouts = try FileManager.default.contentsOfDirectory(atPath: "\(folder)/ui").filter { $0.hasSuffix(".ui") }
        let everyObject = try layouts.reduce(into: [String: String]()) { $0.merge(try classes(inLayout: $1)) { $1 } }
        // The Swift names of the classes, as Widgets.swift declares them.
        let widgets = try String(contentsOfFile: "\(folder)/Widgets.swift", encoding: .utf8)
        let declared = try Regex<(Substring, Substring, Substring)>(
            #"(?:extension|enum) (\w+): (?:Opaque)?LayoutClass \{ static let typeName = "(\w+)" \}"#)
        let typeNames = Dictionary(
            uniqueKeysWithValues: widgets.matches(of: declared).map {
                (String($0.output.1), String($0.output.2))
            })
        #expect(typeNames.count > 20, "Widgets.swift declares the layouts' classes")
        let asked = try Regex<(Substring, Substring, Substring)>(#"\.get\("([^"]+)", (\w+)\.self\)"#)
        let built = try Regex(#"Builder\(PackageResources\.(\w+)_ui\)"#)
        var checked = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let code = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
            // The layout the file builds; a file handed another's builder (ProgramPages) may ask any layout's.
            let own = code.firstMatch(of: built).map { match in
                String(code[match.range].dropFirst("Builder(PackageResources.".count).dropLast("_ui)".count))
                    .replacing("_", with: "-") + ".ui"
            }
            let known = try own.map(classes(inLayout:)) ?? everyObject
            for match in code.matches(of: asked) {
                let (id, type) = (String(match.output.1), String(match.output.2))
                #expect(known[id] != nil, "\(file) asks for '\(id)', which \(own ?? "no layout") has")
                if let found = known[id] {
                    #expect(typeNames[type] == found, "\(file) asks for '\(id)' as \(type); the layout has a \(found)")
                }
                checked += 1
            }
        }
        #expect(checked > 30, "the window's code asks its layouts for objects")
    }
}

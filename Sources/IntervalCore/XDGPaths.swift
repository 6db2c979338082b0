/// The XDG base directories (freedesktop base-directory specification) and intervald's places in them, read from an
/// environment. A variable that is unset, empty or not an absolute path gets the specification's default.
public struct XDGPaths: Sendable, Equatable {
    /// `$XDG_CONFIG_HOME`, default `~/.config`.
    public let configHome: String
    /// `$XDG_DATA_HOME`, default `~/.local/share`.
    public let dataHome: String
    /// `$XDG_STATE_HOME`, default `~/.local/state`.
    public let stateHome: String
    /// `$XDG_RUNTIME_DIR`; it has no default.
    public let runtimeDirectory: String?
    /// `$XDG_DATA_DIRS`, default `/usr/local/share:/usr/share`; relative entries are dropped.
    public let dataDirectories: [String]

    public init(environment: [String: String]) {
        let home = environment["HOME"] ?? ""
        func absolute(_ name: String) -> String? {
            environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
        dataHome = absolute("XDG_DATA_HOME") ?? home + "/.local/share"
        stateHome = absolute("XDG_STATE_HOME") ?? home + "/.local/state"
        runtimeDirectory = absolute("XDG_RUNTIME_DIR")
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        dataDirectories = dataDirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// `$XDG_CONFIG_HOME/intervald/intervald.toml`.
    public var settingsFile: String { configHome + "/intervald/intervald.toml" }

    /// `$XDG_STATE_HOME/intervald`: the running workout's state and the history (docs/reference.md §5).
    public var stateDirectory: String { stateHome + "/intervald" }

    /// Where named plans are looked up, in order, without repeats: the user's configuration, the user's data
    /// directory (where a per-user install puts the bundled plans), then each system data directory.
    public var planDirectories: [String] { searchOrder("plans") }

    /// Where named programs are looked up (docs/programs.md), in the same order as plans.
    public var programDirectories: [String] { searchOrder("programs") }

    private func searchOrder(_ folder: String) -> [String] {
        var seen = Set<String>()
        return ([configHome, dataHome] + dataDirectories).map { $0 + "/intervald/" + folder }
            .filter { seen.insert($0).inserted }
    }
}

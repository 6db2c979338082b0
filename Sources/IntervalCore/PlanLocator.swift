/// Where named plans live (docs/reference.md §2): `$XDG_CONFIG_HOME/intervald/plans`, then the user's data directory
/// `$XDG_DATA_HOME/intervald/plans` (where the install puts the bundled plans), then `intervald/plans` under each of
/// `$XDG_DATA_DIRS`. Earlier directories shadow later ones.
public struct PlanLocator: Sendable {
    public let searchDirectories: [String]

    /// The search order of `paths`.
    public init(paths: XDGPaths) {
        searchDirectories = paths.planDirectories
    }

    /// Whether `argument` names a plan rather than a file: no slash and no `.plan` ending.
    public static func isName(_ argument: String) -> Bool {
        !argument.contains("/") && !argument.hasSuffix(".plan") && !argument.isEmpty
    }

    /// Candidate files for `name`, in search order.
    public func candidates(for name: String) -> [String] {
        searchDirectories.map { "\($0)/\(name).plan" }
    }

    /// `path` made absolute against `directory`, with `.` and `..` resolved (symbolic links are left alone).
    public static func absolutePath(_ path: String, from directory: String) -> String {
        var parts: [Substring] = []
        for part in ((path.hasPrefix("/") ? "" : directory + "/") + path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The plan name a file stands for: its base name without `.plan`.
    public static func planName(forPath path: String) -> String {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        return base.hasSuffix(".plan") ? String(base.dropLast(5)) : base
    }

    /// How an inline plan is named when it has no `name` directive: its text, shortened.
    public static func inlineName(for expression: String) -> String {
        // The lines joined with spaces and trimmed, up to 48 characters. Read only as far as that needs: a caller's
        // plan text may be a mebibyte long, and walking it character by character takes a while.
        var joined: [Character] = []
        var lineBreak = false
        for character in expression {
            if character.isNewline {
                lineBreak = true
                continue
            }
            if joined.isEmpty && character.isWhitespace { continue }
            if joined.count > 48 {
                // Only trailing spaces could still make it fit.
                if character.isWhitespace { continue }
                return String(joined.prefix(47)) + "…"
            }
            if lineBreak { joined.append(" ") }
            lineBreak = false
            joined.append(character)
        }
        while joined.last?.isWhitespace == true { joined.removeLast() }
        return joined.count <= 48 ? String(joined) : String(joined.prefix(47)) + "…"
    }
}

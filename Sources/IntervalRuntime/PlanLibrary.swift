import Glibc
import IntervalCore

/// The user's own plans (docs/reference.md §2): the files of `$XDG_CONFIG_HOME/intervald/plans`, the first directory
/// plans are looked up in, which the window adds to, duplicates into and deletes from. Files are written atomically
/// and never over another plan's.
public struct PlanLibrary: Sendable {
    public let directory: String
    /// The directories named plans are looked up in after ``directory`` (the bundled plans' among them).
    let laterDirectories: [String]

    public init(paths: XDGPaths) {
        let directory = paths.configHome + "/intervald/plans"
        self.directory = directory
        laterDirectories = paths.planDirectories.filter { $0 != directory }
    }

    /// Whether the plan file at `path` is one of the user's own (not a bundled one).
    public func owns(_ path: String) -> Bool {
        path.hasPrefix(directory + "/") && !path.dropFirst(directory.count + 1).contains("/")
    }

    /// Adds a plan file for `text`, named after `name` ("Hill repeats" → `hill-repeats.plan`, then
    /// `hill-repeats-2.plan`… if that is taken, here or in a later plan directory: a file of that name here would hide
    /// the bundled plan of that name); its path.
    public func add(_ text: String, named name: String) throws(FileError) -> String {
        try FileBytes.makeDirectories(directory)
        let stem = Self.fileStem(for: name)
        for number in 1...1000 {
            let file = "\(number == 1 ? stem : "\(stem)-\(number)").plan"
            guard !laterDirectories.contains(where: { access("\($0)/\(file)", F_OK) == 0 }) else { continue }
            let path = "\(directory)/\(file)"
            do throws(FileError) {
                try FileBytes.create(path, with: Array(text.utf8))
                return path
            } catch  where error.errno == EEXIST {
                continue
            }
        }
        throw FileError(operation: "find a free file name for", path: "\(directory)/\(stem).plan", errno: EEXIST)
    }

    /// A copy of a plan file's text as an own plan named "NAME (copy)": the same text, comments and all, with its
    /// `name` directive changed (or one added before it).
    public func duplicate(text: String, name: String) throws(FileError) -> (path: String, name: String) {
        let copyName = tr("{name} (copy)", ["name": name])
        return (try add(Self.renamed(text, to: copyName), named: copyName), copyName)
    }

    /// Renames an own plan: its `name` directive, and its file to one named after it (the same file when the name
    /// gives the same file name); the new path.
    public func rename(_ path: String, text: String, to name: String) throws(FileError) -> String {
        let renamed = Array(Self.renamed(text, to: name).utf8)
        if PlanLocator.planName(forPath: path) == Self.fileStem(for: name) {
            try FileBytes.replace(path, with: renamed)
            return path
        }
        let newPath = try add(String(decoding: renamed, as: UTF8.self), named: name)
        do throws(FileError) {
            try FileBytes.remove(path)
        } catch {
            _ = try? FileBytes.remove(newPath)
            throw error
        }
        return newPath
    }

    /// Deletes an own plan's file; its bytes, to put it back (Undo).
    public func delete(_ path: String) throws(FileError) -> [UInt8] {
        let bytes = try FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
        try FileBytes.remove(path)
        return bytes
    }

    /// Puts a deleted plan's file back as it was, unless another file took its place meanwhile.
    public func restore(_ bytes: [UInt8], at path: String) throws(FileError) {
        try FileBytes.makeDirectories(directory)
        try FileBytes.create(path, with: bytes)
    }

    /// `text` with the plan's name `name`: its first line that is a `name` directive replaced (a directive stands
    /// before the first step, so that line is it), or a directive added as the first line.
    public static func renamed(_ text: String, to name: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let directive = "name \(PlanWriter.quoted(name))"
        if let index = lines.firstIndex(where: { $0.drop { $0 == " " || $0 == "\t" }.hasPrefix("name ") }) {
            // What follows the quoted name on that line (a comment, `, countdown 3s`) stays.
            let line = lines[index]
            let rest = Self.afterQuotedName(line)
            lines[index] = directive + rest
        } else {
            lines.insert(directive, at: 0)
        }
        return lines.joined(separator: "\n")
    }

    /// What a `name "…"` line holds after its closing quote.
    private static func afterQuotedName(_ line: String) -> String {
        var escaped = false
        var quotes = 0
        for (offset, character) in line.enumerated() {
            if escaped {
                escaped = false
            } else if character == "\\" && quotes == 1 {
                escaped = true
            } else if character == "\"" {
                quotes += 1
                if quotes == 2 { return String(line.dropFirst(offset + 1)) }
            }
        }
        return ""
    }

    /// A file name's stem for a plan name: lowercase ASCII letters and digits, anything else one `-`; "plan" when
    /// nothing is left.
    public static func fileStem(for name: String) -> String {
        var stem = ""
        for character in name.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber {
                stem.append(character)
            } else if !stem.isEmpty, !stem.hasSuffix("-") {
                stem.append("-")
            }
        }
        while stem.hasSuffix("-") { stem.removeLast() }
        return stem.isEmpty ? "plan" : String(stem.prefix(64))
    }
}

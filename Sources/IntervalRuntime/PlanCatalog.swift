import Glibc
import IntervalCore

/// The named plans (docs/reference.md §2) as files: every `NAME.plan` in the locator's directories, an earlier
/// directory's file shadowing a later one's, read and parsed. What `intervalctl plans` lists and the desktop's search
/// offers.
public struct PlanCatalog: Sendable {
    /// A named plan's file, read and parsed.
    public struct Item: Sendable {
        public var name: String
        public var path: String
        /// The file's text, or nil when it could not be read.
        public var text: String?
        /// The plan, or why the file is not one (a located diagnostic, or the read failure).
        public var plan: Result<Plan, LoadFailure>
    }

    /// Why a named plan's file did not give a plan.
    public enum LoadFailure: Error, Sendable, CustomStringConvertible {
        case unreadable(FileError)
        case invalid(PlanDiagnostic)

        /// One line: the read failure, or the diagnostic's located headline.
        public var description: String {
            switch self {
            case .unreadable(let error): error.description
            case .invalid(let diagnostic): diagnostic.headline
            }
        }
    }

    public let locator: PlanLocator

    public init(locator: PlanLocator) {
        self.locator = locator
    }

    /// Every named plan's file, by name, each name once (the first directory's).
    public func files() -> [(name: String, path: String)] {
        var seen = Set<String>()
        var found: [(name: String, path: String)] = []
        for directory in locator.searchDirectories {
            for file in Self.fileNames(in: directory).sorted() where file.hasSuffix(".plan") && file != ".plan" {
                let name = PlanLocator.planName(forPath: file)
                guard seen.insert(name).inserted else { continue }
                found.append((name, directory + "/" + file))
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// Every named plan, read and parsed, by name.
    public func items() -> [Item] {
        files().map { Self.load(name: $0.name, path: $0.path) }
    }

    /// The plan other than the file at `path` that shows as `name` (its `name` directive, else its file's name;
    /// letter case aside), if there is one: no second plan is named alike (the window's editor, Rename and Import,
    /// `intervalctl plan import`), so that a list shows each name once and none hides another.
    public func namesake(of name: String, except path: String? = nil) -> Item? {
        items().first { item in
            item.path != path && ((try? item.plan.get())?.name ?? item.name).lowercased() == name.lowercased()
        }
    }

    /// The plan `name` stands for (the first readable candidate), or nil when no directory has it.
    public func item(named name: String) -> Item? {
        guard PlanLocator.isName(name) else { return nil }
        return locator.candidates(for: name).first { access($0, R_OK) == 0 }.map { Self.load(name: name, path: $0) }
    }

    /// Reads and parses the plan file at `path`, at most ``WorkoutSession/maximumPlanTextBytes`` of it.
    public static func load(name: String, path: String) -> Item {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
        } catch {
            return Item(name: name, path: path, text: nil, plan: .failure(.unreadable(error)))
        }
        let plan = Result { () throws(PlanDiagnostic) in
            try PlanParser.parse(bytes: bytes, origin: path, defaultName: name)
        }
        return Item(
            name: name, path: path, text: String(decoding: bytes, as: UTF8.self),
            plan: plan.mapError { LoadFailure.invalid($0) })
    }

    /// The names in `directory`; none when it does not exist or cannot be read.
    static func fileNames(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

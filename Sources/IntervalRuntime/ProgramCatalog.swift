import FoundationEssentials
import Glibc
import IntervalCore

/// The named training programs (docs/programs.md): every `NAME.program` in `$XDG_CONFIG_HOME/intervald/programs`, then
/// the data directories' `intervald/programs` (the bundled ones), an earlier directory's file shadowing a later one's.
public struct ProgramCatalog: Sendable {
    /// A program's file, read and parsed.
    public struct Item: Sendable {
        /// The file's name without `.program`: what commands take and what names its progress.
        public var name: String
        public var path: String
        public var program: Result<Program, PlanCatalog.LoadFailure>
    }

    public let searchDirectories: [String]

    public init(paths: XDGPaths) {
        searchDirectories = paths.programDirectories
    }

    /// Whether `argument` names a program rather than a file: no slash and no `.program` ending.
    public static func isName(_ argument: String) -> Bool {
        !argument.contains("/") && !argument.hasSuffix(".program") && !argument.isEmpty
    }

    /// Every program's file, by name, each name once (the first directory's).
    public func files() -> [(name: String, path: String)] {
        var seen = Set<String>()
        var found: [(name: String, path: String)] = []
        for directory in searchDirectories {
            for file in PlanCatalog.fileNames(in: directory).sorted() where file.hasSuffix(".program") {
                let name = String(file.dropLast(".program".count))
                guard !name.isEmpty, seen.insert(name).inserted else { continue }
                found.append((name, directory + "/" + file))
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// Every program, read and parsed, by name.
    public func items() -> [Item] {
        files().map { Self.load(name: $0.name, path: $0.path) }
    }

    /// The program `name` stands for (the first readable candidate), or nil when no directory has it.
    public func item(named name: String) -> Item? {
        guard Self.isName(name) else { return nil }
        let candidates = searchDirectories.map { "\($0)/\(name).program" }
        return candidates.first { path in access(path, R_OK) == 0 }.map { Self.load(name: name, path: $0) }
    }

    /// Reads and parses the program file at `path`, at most ``WorkoutSession/maximumPlanTextBytes`` of it.
    public static func load(name: String, path: String) -> Item {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
        } catch {
            return Item(name: name, path: path, program: .failure(.unreadable(error)))
        }
        let program = Result { () throws(PlanDiagnostic) in
            try PlanParser.parseProgram(bytes: bytes, origin: path, defaultName: name)
        }
        return Item(name: name, path: path, program: program.mapError { .invalid($0) })
    }
}

/// Where each program's progress is kept: `$XDG_STATE_HOME/intervald/programs/NAME.json`, written atomically.
public struct ProgramProgressStore: Sendable {
    public let directory: String

    public init(stateDirectory: String) {
        directory = stateDirectory + "/programs"
    }

    public func path(for name: String) -> String {
        "\(directory)/\(name).json"
    }

    /// The progress recorded for program `name`, or its start when there is none. A file that cannot be read or is not
    /// progress is moved aside (`NAME.json.corrupt-<time>`) and the program starts again; its reason is returned.
    public func load(_ name: String, of program: Program) -> (progress: ProgramProgress, problem: String?) {
        let path = path(for: name)
        let bytes: [UInt8]
        do throws(FileError) {
            bytes = try FileBytes.read(path, limit: 16 << 20)
        } catch {
            if error.errno == ENOENT { return (ProgramProgress(startOf: program), nil) }
            return (ProgramProgress(startOf: program), setAside(path, reason: error.description))
        }
        guard let progress = try? JSONDecoder().decode(ProgramProgress.self, from: Data(bytes)),
            progress.version == ProgramProgress.currentVersion
        else {
            return (ProgramProgress(startOf: program), setAside(path, reason: "not a program's progress"))
        }
        return (progress, nil)
    }

    public func save(_ progress: ProgramProgress, for name: String) throws(FileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding cannot fail: every member is a string, a number or an array of them.
        let bytes = (try? encoder.encode(progress)).map(Array.init) ?? []
        try FileBytes.makeDirectories(directory)
        try FileBytes.replace(path(for: name), with: bytes + [UInt8(ascii: "\n")])
    }

    /// Reads, changes and saves program `name`'s progress.
    public func update<Failure: Error>(
        _ name: String, of program: Program, _ change: (inout ProgramProgress) throws(Failure) -> Void
    ) throws -> ProgramProgress {
        var progress = load(name, of: program).progress
        try change(&progress)
        try save(progress, for: name)
        return progress
    }

    private func setAside(_ path: String, reason: String) -> String {
        let aside = path + ".corrupt-\(WallClock.microseconds() / 1_000_000)"
        return rename(path, aside) == 0 ? "\(reason); moved to \(aside)" : reason
    }
}

/// The programs and their progress together: which day a start runs, and what a finished day changes.
public struct ProgramLedger: Sendable {
    public let catalog: ProgramCatalog
    public let store: ProgramProgressStore

    public init(paths: XDGPaths) {
        catalog = ProgramCatalog(paths: paths)
        store = ProgramProgressStore(stateDirectory: paths.stateDirectory)
    }

    /// Program `name` read and parsed; a missing or invalid program is refused as `InvalidPlan`.
    public func program(named name: String) throws(TimerCommandError) -> Program {
        guard let item = catalog.item(named: name) else {
            throw TimerCommandError(
                .invalidPlan,
                tr(
                    "no program named '{name}' (looked in {directories}; 'intervalctl programs' lists them)",
                    ["name": name, "directories": catalog.searchDirectories.joined(separator: ", ")]))
        }
        do {
            return try item.program.get()
        } catch {
            throw TimerCommandError(.invalidPlan, error.description)
        }
    }

    /// The workout that starting program `name` runs: day `day` ("3.2"), or the next one when `day` is empty. A
    /// complete program is refused (`InvalidState`), as is a day it does not have (`InvalidPlan`).
    public func dayToStart(program name: String, day: String) throws(TimerCommandError) -> (
        plan: Plan, text: String, origin: String, reference: ProgramDayReference
    ) {
        try dayToStart(try program(named: name), named: name, day: day)
    }

    /// As ``dayToStart(program:day:)``, for program `name` already read and parsed.
    public func dayToStart(_ program: Program, named name: String, day: String) throws(TimerCommandError) -> (
        plan: Plan, text: String, origin: String, reference: ProgramDayReference
    ) {
        let chosen: ProgramDay
        if day.isEmpty {
            guard let next = store.load(name, of: program).progress.nextDay(in: program) else {
                throw TimerCommandError(.invalidState, ProgramProgressError.complete.description)
            }
            chosen = next
        } else {
            guard let parsed = ProgramDay(day) else {
                throw TimerCommandError(
                    .invalidPlan, tr("'{day}' is not a day (a day is WEEK.DAY, as in 3.2)", ["day": day]))
            }
            guard program.day(parsed) != nil else {
                throw TimerCommandError(
                    .invalidPlan, ProgramProgressError.noSuchDay(parsed, weeks: program.weekCount).description)
            }
            chosen = parsed
        }
        guard let plan = program.day(chosen)?.plan else {
            throw TimerCommandError(
                .invalidPlan, ProgramProgressError.noSuchDay(chosen, weeks: program.weekCount).description)
        }
        let reference = ProgramDayReference(
            program: name, title: program.name, day: chosen, following: program.day(after: chosen))
        let path = catalog.item(named: name)?.path ?? name
        return (plan, PlanWriter.text(for: plan), path, reference)
    }

    /// Day `reference.day` of its program ran to its end (workout `workout`): it is done, and the program moves on.
    public func finished(_ reference: ProgramDayReference, workout: String, wall: Int64) throws {
        let program = try program(named: reference.program)
        _ = try store.update(reference.program, of: program) { progress in
            progress.finished(reference.day, in: program, wall: wall, workout: workout)
        }
    }
}

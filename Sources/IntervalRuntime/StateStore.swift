import FoundationEssentials
import Glibc
import IntervalCore

/// Where ``StateOutput`` records the running workout: ``StateStore`` (the state file), or a test's recorder.
public protocol WorkoutStateRecording: Sendable {
    func save(_ state: WorkoutState, durable: Durability) throws(FileError) -> PendingSync
    func removeState(durable: Durability) throws(FileError) -> PendingSync
}

/// The daemon's durable records in `$XDG_STATE_HOME/intervald` (docs/reference.md §5): `state.json`, the running
/// workout, and `history.jsonl`, one line per ended workout.
public struct StateStore: WorkoutStateRecording, Sendable {
    /// What `load()` found.
    public enum Loaded: Sendable, Equatable {
        case nothing
        case state(WorkoutState)
        /// The file could not be used; it was renamed to `movedTo` (nil if even that failed).
        case corrupt(reason: String, movedTo: String?)
    }

    /// A state file is small: the plan text (at most 1 MiB) and a few numbers.
    static let stateSizeLimit = 4 << 20
    /// Reading more history than this is refused rather than exhausting memory.
    static let historySizeLimit = 256 << 20

    public let directory: String
    public var statePath: String { directory + "/state.json" }
    public var historyPath: String { directory + "/history.jsonl" }
    /// The streams a duck has lowered, while they are down (docs/reference.md §11).
    public var duckRecordPath: String { directory + "/ducked.json" }

    public init(directory: String) {
        self.directory = directory
    }

    /// Records `state` atomically.
    @discardableResult
    public func save(_ state: WorkoutState, durable: Durability = .now) throws(FileError) -> PendingSync {
        try FileBytes.makeDirectories(directory, access: .owner)
        return try FileBytes.replace(statePath, with: Self.encode(state), access: .owner, durable: durable)
    }

    /// Forgets the running workout. A failure is thrown, not ignored: a state file left behind would resume a
    /// finished workout at the next start.
    @discardableResult
    public func removeState(durable: Durability = .now) throws(FileError) -> PendingSync {
        try FileBytes.remove(statePath, durable: durable)
    }

    /// The recorded workout, if any. A file that cannot be read, parsed, is of another version or holds times out of
    /// range is moved aside
    /// (`state.json.corrupt-<time>`) so that the daemon starts idle and the file can still be looked at.
    public func load() -> Loaded {
        let bytes: [UInt8]
        do throws(FileError) {
            bytes = try FileBytes.read(statePath, limit: Self.stateSizeLimit)
        } catch {
            if error.errno == ENOENT { return .nothing }
            return setAside(reason: error.description)
        }
        struct Version: Decodable { var version: Int }
        do {
            let version = try JSONDecoder().decode(Version.self, from: Data(bytes)).version
            guard version == WorkoutState.currentVersion else {
                return setAside(
                    reason: "unknown version \(version) (this intervald writes \(WorkoutState.currentVersion))")
            }
            let state = try JSONDecoder().decode(WorkoutState.self, from: Data(bytes))
            guard state.hasPlausibleTimes else { return setAside(reason: "times out of range") }
            return .state(state)
        } catch {
            return setAside(reason: "not a state file: \(error)")
        }
    }

    private func setAside(reason: String) -> Loaded {
        let aside = statePath + ".corrupt-\(WallClock.microseconds() / 1_000_000)"
        return .corrupt(reason: reason, movedTo: rename(statePath, aside) == 0 ? aside : nil)
    }

    /// Appends one record to the history.
    @discardableResult
    public func append(_ record: HistoryRecord, durable: Durability = .now) throws(FileError) -> PendingSync {
        try FileBytes.makeDirectories(directory, access: .owner)
        return try FileBytes.append(
            Self.encode(record) + [UInt8(ascii: "\n")], to: historyPath, access: .owner, durable: durable)
    }

    /// Every record in the history, oldest first, and how many lines could not be read (a torn last line while the
    /// daemon writes, or a damaged one). A missing file is an empty history.
    public func history() throws(FileError) -> (records: [HistoryRecord], unreadable: Int) {
        let bytes: [UInt8]
        do throws(FileError) {
            bytes = try FileBytes.read(historyPath, limit: Self.historySizeLimit)
        } catch  where error.errno == ENOENT {
            return ([], 0)
        }
        var records: [HistoryRecord] = []
        var unreadable = 0
        let decoder = JSONDecoder()
        for line in bytes.split(separator: UInt8(ascii: "\n")) where !line.allSatisfy({ $0 == UInt8(ascii: " ") }) {
            if let record = try? decoder.decode(HistoryRecord.self, from: Data(line)) {
                records.append(record)
            } else {
                unreadable += 1
            }
        }
        return (records, unreadable)
    }

    private static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail: every member is a string, a number or a dictionary of them.
        return (try? encoder.encode(value)).map(Array.init) ?? []
    }
}

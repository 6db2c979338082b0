import FoundationEssentials
import Glibc
import IntervalCore
import IntervalTestSupport
import Testing

@testable import IntervalRuntime

@Suite struct StateStoreTests {
    func temporaryStore() -> StateStore {
        StateStore(directory: temporaryDirectory(prefix: "intervald-state") + "/nested/intervald")
    }

    let state = WorkoutState(
        id: "1-a", plan: "3x(1s run, 1s walk)", origin: "/p/x.plan", bootID: "b", anchorBoot: 10, anchorWall: 20,
        startedWall: 20, state: .running, pausedElapsed: nil, notificationID: 4)

    @Test func aSavedStateLoadsBackAndIsRemoved() throws {
        let store = temporaryStore()
        #expect(store.load() == .nothing)
        try store.save(state)
        #expect(store.load() == .state(state))
        var paused = state
        paused.state = .paused
        paused.pausedElapsed = 1_500_000
        try store.save(paused)
        #expect(store.load() == .state(paused))
        #expect(access(store.statePath + ".new", F_OK) != 0)
        try store.removeState()
        #expect(store.load() == .nothing)
        // Already gone is not a failure; a state file that cannot be removed is.
        try store.removeState()
        try FileBytes.makeDirectories(store.statePath)
        #expect(throws: FileError.self) { try store.removeState() }
    }

    /// Exports and plans were 0600 in folders of 0700: they follow the umask, as every other program's do; the
    /// workout's state and history stay the owner's.
    @Test func filesFollowTheUmaskButTheStateAndHistoryAreTheOwnersAlone() throws {
        // The process's umask as the kernel reports it, read rather than set: tests run side by side.
        let status = String(decoding: try FileBytes.read("/proc/self/status", limit: 1 << 16), as: UTF8.self)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") })
        let mask = try #require(mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8))
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
        }
        let folder = temporaryDirectory(prefix: "intervald-modes") + "/exports/week 1"
        try FileBytes.makeDirectories(folder)
        try FileBytes.replace(folder + "/a.fit", with: [1])
        try FileBytes.create(folder + "/b.plan", with: [1])
        #expect(mode(folder) == 0o777 & ~mask)
        #expect(mode(folder + "/a.fit") == 0o666 & ~mask && mode(folder + "/b.plan") == 0o666 & ~mask)
        let store = temporaryStore()
        try store.save(state)
        #expect(mode(store.statePath) == 0o600 & ~mask)
        let slash = try #require(store.statePath.lastIndex(of: "/"))
        #expect(mode(String(store.statePath[..<slash])) == 0o700 & ~mask)
    }

    /// A sound state file, but for its wall-clock anchor: resuming from it would overflow.
    static let outOfRange = """
        {"version": 1, "id": "x", "plan": "10m run", "origin": "", "boot_id": "b", "anchor_boot_us": 1,
        "anchor_wall_us": -9223372036854775808, "started_wall_us": 1, "state": "running",
        "paused_elapsed_us": null, "notification_id": 0}
        """

    @Test(arguments: ["garbage {", #"{"version": 999, "id": "x"}"#, #"{"version": 1}"#, "", outOfRange])
    func aBadStateFileIsSetAside(contents: String) throws {
        let store = temporaryStore()
        try FileBytes.makeDirectories(store.directory)
        try FileBytes.replace(store.statePath, with: Array(contents.utf8))
        guard case .corrupt(_, let movedTo?) = store.load() else {
            Issue.record("expected the file to be set aside")
            return
        }
        #expect(movedTo.hasPrefix(store.statePath + ".corrupt-"))
        #expect(try FileBytes.read(movedTo, limit: 1 << 20) == Array(contents.utf8))
        #expect(store.load() == .nothing)
    }

    /// The daemon answers a Start once its state file is in place, and syncs it after: what it leaves to sync must
    /// already be readable.
    @Test func aWriteThatSyncsLaterIsInPlaceAtOnce() throws {
        let store = temporaryStore()
        let saved = try store.save(state, durable: .later)
        #expect(store.load() == .state(state))
        try saved.perform()
        let record = HistoryRecord(
            id: "1", plan: "Tabata", origin: "", start: "2026-11-23T07:30:00+01:00", end: "2026-11-23T07:42:00+01:00",
            startWall: 1, plannedDuration: 720_000_000, doneDuration: 720_000_000, segmentsDone: 17,
            timePerKind: ["work": 160_000_000], result: .finished, reason: nil)
        let appended = try store.append(record, durable: .later)
        #expect(try store.history().records == [record])
        try appended.perform()
        let removed = try store.removeState(durable: .later)
        #expect(store.load() == .nothing)
        try removed.perform()
        // A sync left for a file removed since fails as the write's own would have, naming the file.
        try FileBytes.remove(store.historyPath)
        #expect(throws: FileError(operation: "open", path: store.historyPath, errno: ENOENT)) {
            try appended.perform()
        }
    }

    @Test func historyToleratesATornLastLine() throws {
        let store = temporaryStore()
        #expect(try store.history().records.isEmpty)
        let record = HistoryRecord(
            id: "1", plan: "Tabata", origin: "", start: "2026-11-23T07:30:00+01:00", end: "2026-11-23T07:42:00+01:00",
            startWall: 1, plannedDuration: 720_000_000, doneDuration: 720_000_000, segmentsDone: 17,
            timePerKind: ["work": 160_000_000], result: .finished, reason: nil)
        try store.append(record)
        try store.append(record)
        try FileBytes.append(Array(#"{"id": "3", "plan": "Ta"#.utf8), to: store.historyPath)
        let read = try store.history()
        #expect(read.records == [record, record])
        #expect(read.unreadable == 1)
    }

    @Test func wallClockTimesAreISO8601WithAnOffset() {
        let text = WallClock.iso8601(1_700_000_000_000_000)
        #expect(text.count == 25)
        #expect(text.dropFirst(10).first == "T")
        #expect(text.dropFirst(19).first == "+" || text.dropFirst(19).first == "-")
        let midnight = WallClock.localMidnight(ofDate: String(text.prefix(10)))
        #expect(midnight.map { $0 <= 1_700_000_000_000_000 && $0 > 1_700_000_000_000_000 - 86_400_000_000 } == true)
        #expect(WallClock.localMidnight(ofDate: "2026-13-01") == nil)
        #expect(WallClock.localMidnight(ofDate: "2026-02-30") == nil)
    }
}

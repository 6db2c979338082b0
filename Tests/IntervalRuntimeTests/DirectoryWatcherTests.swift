import Dispatch
import Foundation
import Testing

@testable import IntervalRuntime

/// ``DirectoryWatcher`` on a real directory (inotify): what reaches its handler, and when.
@Suite struct DirectoryWatcherTests {
    /// What the handler was called with, on its queue; `next` waits (bounded) for the next call.
    final class Calls: @unchecked Sendable {
        private let lock = NSCondition()
        private var calls: [[String]] = []

        func record(_ names: [String]) {
            lock.lock()
            calls.append(names)
            lock.broadcast()
            lock.unlock()
        }

        func next(within seconds: Double = 5) -> [String]? {
            lock.lock()
            defer { lock.unlock() }
            let deadline = Date(timeIntervalSinceNow: seconds)
            while calls.isEmpty {
                if !lock.wait(until: deadline) { return nil }
            }
            return calls.removeFirst()
        }
    }

    func temporaryDirectory(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "watcher-\(getpid())-\(name)-\(UInt64.random(in: 0...UInt64.max))"
        ).path
    }

    @Test func anEditorsSaveAndARemovalAreReportedByName() throws {
        let directory = temporaryDirectory("save")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let calls = Calls()
        // The directory is made by the watcher, as the daemon's first start finds no settings folder.
        let watcher = try DirectoryWatcher(directory: directory, queue: DispatchQueue(label: "watcher")) {
            calls.record($0)
        }
        // A temporary file written, then renamed over the file: what editors and FileBytes.replace do.
        try Data("volume = 40\n".utf8).write(to: URL(fileURLWithPath: directory + "/intervald.toml.new"))
        try FileManager.default.moveItem(
            atPath: directory + "/intervald.toml.new", toPath: directory + "/intervald.toml")
        // One call when the rename follows within the settling time, as it does unloaded; two when it does not.
        var names = Set(try #require(calls.next()))
        if !names.contains("intervald.toml") { names.formUnion(try #require(calls.next())) }
        #expect(names == ["intervald.toml", "intervald.toml.new"])
        try FileManager.default.removeItem(atPath: directory + "/intervald.toml")
        #expect(calls.next() == ["intervald.toml"])
        withExtendedLifetime(watcher) {}
    }

    @Test func nothingIsReportedOnceTheWatcherIsGone() throws {
        let directory = temporaryDirectory("gone")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let calls = Calls()
        var watcher: DirectoryWatcher? = try DirectoryWatcher(
            directory: directory, queue: DispatchQueue(label: "watcher")
        ) { calls.record($0) }
        // Written in place: FileManager.createFile would write a temporary file and rename it.
        try Data().write(to: URL(fileURLWithPath: directory + "/a"))
        #expect(calls.next() == ["a"])
        watcher = nil
        try Data().write(to: URL(fileURLWithPath: directory + "/b"))
        #expect(calls.next(within: 0.5) == nil)
        withExtendedLifetime(watcher) {}
    }
}

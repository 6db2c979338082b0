import Foundation
import IntervalCore
import IntervalTestSupport
import Testing

@testable import IntervalWatch

/// The GIO wrappers on local folders (file:// URIs, the same GFile calls a gvfs mount gets): where a watch's GARMIN
/// folder is found, and how a workout is written, replaced and refused. The URI-only mount (gvfs's localtest) is
/// Tests/IntegrationTests/test_watch.py's: it needs gvfsd on a session bus and root for its mount namespace.
@Suite final class WatchWriterTests {
    let folder = temporaryDirectory(prefix: "intervald-watch")

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    func mount(_ name: String) -> WatchFinder.Mount {
        WatchFinder.Mount(name: name, root: "file://\(folder)")
    }

    func make(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: "\(folder)/\(path)", withIntermediateDirectories: true)
    }

    @Test func garminAtTheRootIsAWatchAsUSBStorageIs() throws {
        try make("GARMIN")
        let watch = try #require(WatchFinder.watch(on: mount("FORERUNNER")))
        #expect(watch.name == "FORERUNNER")
        #expect(watch.location == "\(folder)/GARMIN")
        #expect(watch.folder == "file://\(folder)/GARMIN")
        #expect(watch.freeBytes != nil)
    }

    @Test func garminInATopLevelFolderIsAWatchAsAnMTPWatchIs() throws {
        try make("Music")
        try make("Internal Storage/GARMIN")
        let watch = try #require(WatchFinder.watch(on: mount("Forerunner 265")))
        #expect(watch.location == "\(folder)/Internal Storage/GARMIN")
        #expect(watch.folder == "file://\(folder)/Internal%20Storage/GARMIN")
    }

    @Test func garminDeeperDownOrAFileNamedGarminIsNoWatch() throws {
        try make("Internal Storage/Data/GARMIN")
        #expect(FileManager.default.createFile(atPath: "\(folder)/GARMIN", contents: nil))
        #expect(WatchFinder.watch(on: mount("disk")) == nil)
    }

    @Test func aWorkoutGoesToNewFilesMadeIfMissingAndReplacesOneOfItsName() throws {
        try make("GARMIN")
        let watch = try #require(WatchFinder.watch(on: mount("FORERUNNER")))
        let first = try WatchWriter.send(Array("first".utf8), as: "Tabata.fit", to: watch)
        #expect(first == "\(folder)/GARMIN/NewFiles/Tabata.fit")
        #expect(FileManager.default.contents(atPath: first).map(Array.init) == Array("first".utf8))
        _ = try WatchWriter.send(Array("second".utf8), as: "Tabata.fit", to: watch)
        #expect(FileManager.default.contents(atPath: first).map(Array.init) == Array("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/GARMIN/NewFiles") == ["Tabata.fit"])
    }

    @Test func newFilesThatIsNotAFolderIsSaidWithTheWatch() throws {
        try make("GARMIN")
        #expect(FileManager.default.createFile(atPath: "\(folder)/GARMIN/NewFiles", contents: nil))
        let watch = try #require(WatchFinder.watch(on: mount("FORERUNNER")))
        #expect {
            try WatchWriter.send([1], as: "Tabata.fit", to: watch)
        } throws: { error in
            guard let error = error as? WatchError, case .newFilesFolder(let name, let location, _) = error.code else {
                return false
            }
            return name == "FORERUNNER" && location == "\(folder)/GARMIN/NewFiles"
        }
    }

    @Test func aFileThatCannotBeDeletedIsNotReplacedAndSaysWhy() throws {
        try make("GARMIN/NewFiles/Tabata.fit/inside")
        let watch = try #require(WatchFinder.watch(on: mount("FORERUNNER")))
        #expect {
            try WatchWriter.send([1], as: "Tabata.fit", to: watch)
        } throws: { error in
            guard let error = error as? WatchError, case .replace(_, let file, _, let reason) = error.code else {
                return false
            }
            return file == "Tabata.fit" && !reason.isEmpty
        }
        #expect(FileManager.default.fileExists(atPath: "\(folder)/GARMIN/NewFiles/Tabata.fit/inside"))
    }
}

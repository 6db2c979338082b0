import Glibc
import IntervalCore
import IntervalTestSupport
import Testing

@testable import IntervalRuntime

/// The user's own plans: files added under names derived from the plan's, never over another file, duplicated with
/// their comments, deleted and put back byte for byte.
@Suite struct PlanLibraryTests {
    func temporaryLibrary() -> PlanLibrary {
        PlanLibrary(
            paths: XDGPaths(
                environment: ["HOME": "/nonexistent", "XDG_CONFIG_HOME": temporaryDirectory(prefix: "intervald-plans")])
        )
    }

    func text(_ path: String) throws -> String {
        String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self)
    }

    @Test func fileNamesComeFromPlanNames() {
        #expect(PlanLibrary.fileStem(for: "Hill repeats") == "hill-repeats")
        #expect(PlanLibrary.fileStem(for: "Tabata (copy)") == "tabata-copy")
        #expect(PlanLibrary.fileStem(for: "  5×1 km @ 4:00/km! ") == "5-1-km-4-00-km")
        #expect(PlanLibrary.fileStem(for: "Läufe über 10 km") == "l-ufe-ber-10-km")
        #expect(PlanLibrary.fileStem(for: "…") == "plan")
    }

    @Test func anAddedPlanNeverReplacesAnother() throws {
        let library = temporaryLibrary()
        let first = try library.add("name \"Hills\"\n10m walk\n", named: "Hills")
        let second = try library.add("name \"Hills\"\n5m walk\n", named: "Hills")
        #expect(first == library.directory + "/hills.plan")
        #expect(second == library.directory + "/hills-2.plan")
        #expect(try text(first) == "name \"Hills\"\n10m walk\n")
        #expect(library.owns(first))
        #expect(!library.owns("/usr/share/intervald/plans/tabata.plan"))
        #expect(access(first + ".new", F_OK) != 0, "no temporary file left")
    }

    @Test func anAddedPlanNeverHidesABundledOneOfItsFileName() throws {
        let data = temporaryDirectory(prefix: "intervald-data")
        try FileBytes.makeDirectories(data + "/intervald/plans")
        try FileBytes.create(data + "/intervald/plans/tabata.plan", with: Array("8x(20s work, 10s rest)\n".utf8))
        let paths = XDGPaths(environment: [
            "HOME": "/nonexistent", "XDG_CONFIG_HOME": temporaryDirectory(prefix: "intervald-plans"),
            "XDG_DATA_HOME": data, "XDG_DATA_DIRS": "/nonexistent",
        ])
        let library = PlanLibrary(paths: paths)
        // "Tabata!" is not the bundled plan's name, but tabata.plan here would be found first and hide it.
        let added = try library.add("name \"Tabata!\"\n30s run\n", named: "Tabata!")
        #expect(added == library.directory + "/tabata-2.plan")
        let found = PlanCatalog(locator: PlanLocator(paths: paths)).files()
        #expect(found.first { $0.name == "tabata" }?.path == data + "/intervald/plans/tabata.plan")
    }

    @Test func aDuplicateKeepsTheTextAndItsCommentsUnderANewName() throws {
        let library = temporaryLibrary()
        let original = "# Tabata\nname \"Tabata\"   # the classic\ncountdown 3s\n\n8x(20s work, 10s rest)\n"
        let copy = try library.duplicate(text: original, name: "Tabata")
        #expect(copy.name == "Tabata (copy)")
        #expect(copy.path == library.directory + "/tabata-copy.plan")
        #expect(
            try text(copy.path)
                == "# Tabata\nname \"Tabata (copy)\"   # the classic\ncountdown 3s\n\n8x(20s work, 10s rest)\n")
        let unnamed = try library.duplicate(text: "3x(1m run, 1m walk)", name: "intervals")
        #expect(try text(unnamed.path) == "name \"intervals (copy)\"\n3x(1m run, 1m walk)")
        let plan = try PlanParser.parse(try text(unnamed.path), origin: unnamed.path, defaultName: "x")
        #expect(plan.name == "intervals (copy)")
        let quoted = try library.duplicate(text: #"name "A \"b\"", 30s run"#, name: #"A "b""#)
        #expect(try text(quoted.path) == #"name "A \"b\" (copy)", 30s run"#)
    }

    @Test func aRenamedPlanMovesToItsNewNamesFileKeepingTheRest() throws {
        let library = temporaryLibrary()
        let path = try library.add("# mine\nname \"Hills\"\n10m walk\n", named: "Hills")
        let moved = try library.rename(path, text: try text(path), to: "Long Hills")
        #expect(moved == library.directory + "/long-hills.plan")
        #expect(access(path, F_OK) != 0)
        #expect(try text(moved) == "# mine\nname \"Long Hills\"\n10m walk\n")
        // The same file name: rewritten in place.
        #expect(try library.rename(moved, text: try text(moved), to: "long hills") == moved)
        #expect(try text(moved) == "# mine\nname \"long hills\"\n10m walk\n")
        // Never over another plan's file.
        let other = try library.add("30s run", named: "Other")
        #expect(try library.rename(moved, text: try text(moved), to: "Other") == library.directory + "/other-2.plan")
        #expect(try text(other) == "30s run")
    }

    @Test func aDeletedPlanComesBackByteForByteUnlessItsPlaceWasTaken() throws {
        let library = temporaryLibrary()
        let path = try library.add("# mine\n30s run   \n", named: "Mine")
        let bytes = try library.delete(path)
        #expect(access(path, F_OK) != 0)
        try library.restore(bytes, at: path)
        #expect(try text(path) == "# mine\n30s run   \n")
        #expect(throws: FileError.self) { try library.restore(Array("other".utf8), at: path) }
        #expect(try text(path) == "# mine\n30s run   \n")
    }
}

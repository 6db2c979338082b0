import Foundation
import IntervalCore
import Testing

@testable import IntervalRuntime

@Suite struct PlanCatalogTests {
    /// A config and a data directory with plans in them; removed at the end.
    private func withDirectories(_ body: (_ config: String, _ data: String, _ catalog: PlanCatalog) throws -> Void)
        throws
    {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = XDGPaths(environment: [
            "HOME": root, "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
            "XDG_DATA_DIRS": root + "/none",
        ])
        for directory in paths.planDirectories {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try body(paths.planDirectories[0], paths.planDirectories[1], PlanCatalog(locator: PlanLocator(paths: paths)))
    }

    @Test func listsEveryPlanOnceTheUsersShadowingTheBundledByName() throws {
        try withDirectories { config, data, catalog in
            try "name \"Bundled\"\n20s work".write(toFile: data + "/tabata.plan", atomically: true, encoding: .utf8)
            try "name \"Mine\"\n8x(20s work, 10s rest)".write(
                toFile: config + "/tabata.plan", atomically: true, encoding: .utf8)
            try "30s run".write(toFile: data + "/easy.plan", atomically: true, encoding: .utf8)
            try "not a plan".write(toFile: data + "/notes.txt", atomically: true, encoding: .utf8)
            let items = catalog.items()
            #expect(items.map(\.name) == ["easy", "tabata"])
            #expect(items.map(\.path) == [data + "/easy.plan", config + "/tabata.plan"])
            #expect(try items[1].plan.get().name == "Mine")
            #expect(try items[0].plan.get().name == "easy")
            #expect(try catalog.item(named: "tabata")?.plan.get().segmentCount == 16)
            #expect(catalog.item(named: "missing") == nil)
            #expect(catalog.item(named: "../config/intervald/plans/tabata") == nil)
        }
    }

    @Test func aFileThatIsNoPlanSaysWhereAndWhy() throws {
        try withDirectories { _, data, catalog in
            try "name \"Broken\"\n30s run\nzumba\n".write(
                toFile: data + "/broken.plan", atomically: true, encoding: .utf8)
            let item = try #require(catalog.item(named: "broken"))
            guard case .failure(let failure) = item.plan else {
                Issue.record("a broken plan parsed")
                return
            }
            #expect(failure.description.hasPrefix(data + "/broken.plan:3:1: error:"))
            #expect(item.text == "name \"Broken\"\n30s run\nzumba\n")
        }
    }

    @Test func aPlanIsKnownByTheNameItShowsLetterCaseAside() throws {
        try withDirectories { config, data, catalog in
            try "name \"Hill repeats\"\n30s run".write(
                toFile: config + "/hills.plan", atomically: true, encoding: .utf8)
            try "30s run".write(toFile: data + "/easy.plan", atomically: true, encoding: .utf8)
            #expect(catalog.namesake(of: "hill REPEATS")?.path == config + "/hills.plan")
            #expect(
                catalog.namesake(of: "Easy")?.path == data + "/easy.plan",
                "a plan without a name directive shows its file's name")
            #expect(
                catalog.namesake(of: "hills") == nil,
                "the file name of a plan that has a name directive is not its name")
            #expect(catalog.namesake(of: "Hill repeats", except: config + "/hills.plan") == nil)
        }
    }
}

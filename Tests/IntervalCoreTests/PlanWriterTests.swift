import Foundation
import Testing

@testable import IntervalCore

/// The plan language the editor writes (PlanWriter): every bundled plan and every plan of docs/plan-language.md
/// parses, is written, and parses again to the same plan, in both layouts; writing that again gives the same text.
struct PlanWriterTests {
    static let repository = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    /// Every bundled plan file's text, and every one-line plan the language's docs run (`-e '…'`) that is valid (the
    /// others show diagnostics).
    static var texts: [(origin: String, text: String)] {
        let plans = repository + "/config/plans"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: plans)) ?? []).filter {
            $0.hasSuffix(".plan")
        }
        var texts = files.sorted().compactMap { name in
            (try? String(contentsOfFile: plans + "/" + name, encoding: .utf8)).map { (name, $0) }
        }
        let docs = (try? String(contentsOfFile: repository + "/docs/plan-language.md", encoding: .utf8)) ?? ""
        for line in docs.split(separator: "\n") where line.hasPrefix("$ intervalctl plan show -e '") {
            let text = line.dropFirst("$ intervalctl plan show -e '".count).prefix { $0 != "'" }
            if (try? PlanParser.parse(String(text), origin: "", defaultName: "x")) != nil {
                texts.append(("docs/plan-language.md", String(text)))
            }
        }
        return texts
    }

    @Test func theBundledPlansAndTheDocsExamplesAreThere() {
        #expect(Self.texts.filter { $0.origin.hasSuffix(".plan") }.count >= 7, "\(Self.texts.map(\.origin))")
        #expect(Self.texts.filter { $0.origin.hasSuffix(".md") }.count >= 5, "\(Self.texts.map(\.origin))")
    }

    @Test(arguments: [PlanWriter.Layout.file, .oneLine])
    func everyPlanIsWrittenAndReadBackAsItself(layout: PlanWriter.Layout) throws {
        for (origin, text) in Self.texts {
            let plan = try PlanParser.parse(text, origin: origin, defaultName: "plan")
            let written = PlanWriter.text(for: plan, layout: layout)
            let again = try PlanParser.parse(written, origin: "written", defaultName: "other")
            #expect(same(plan, again), "\(origin): \(text)\nwritten as:\n\(written)")
            #expect(PlanWriter.text(for: again, layout: layout) == written, "\(origin): writing is a fixed point")
        }
    }

    @Test func theFileLayoutNestsGroupsInBraces() throws {
        let plan = try PlanParser.parse(
            #"name "Hills", countdown 3s, 10m walk "Warm-up", 6x(90s run "Uphill" @ 5:00/km, 2m walk "Recover"), for 5km(1m run @ 12 km/h)"#,
            origin: "", defaultName: "x")
        #expect(
            PlanWriter.text(for: plan) == """
                name "Hills"
                countdown 3s

                10m walk "Warm-up"
                6x {
                  1m30s run "Uphill" @ 5:00/km
                  2m walk "Recover"
                }
                for 5km {
                  1m run @ 12 km/h
                }

                """)
        #expect(
            PlanWriter.text(for: plan, layout: .oneLine)
                == #"name "Hills", countdown 3s, 10m walk "Warm-up", 6x(1m30s run "Uphill" @ 5:00/km, 2m walk "Recover"), for 5km(1m run @ 12 km/h)"#
        )
    }

    @Test func durationsAreExactToTheMicrosecond() throws {
        let cases: [(Int64, String)] = [
            (45_000_000, "45s"), (90_000_000, "1m30s"), (3_900_000_000, "1h5m"), (250_000, "250ms"),
            (120_500_000, "2m0.5s"), (1001, "0.001001s"), (3_600_000_000, "1h"), (1_234_567, "1.234567s"),
        ]
        for (microseconds, text) in cases {
            #expect(PlanWriter.duration(microseconds) == text)
            let step = try PlanParser.parse("\(text) run", origin: "", defaultName: "x").segments.first { _ in true }
            #expect(step?.duration == microseconds, "\(text)")
        }
    }

    @Test func pacesAndDistancesAreReadBackToTheBit() throws {
        for written in ["5:30/km", "9:00/mi", "6.5/km", "10 km/h", "12 kph", "6 mph", "3.2 m/s", "7.77 m/s"] {
            let plan = try PlanParser.parse("1m run @ \(written)", origin: "", defaultName: "x")
            let pace = try #require(plan.segments.first { _ in true }?.pace)
            let again = try PlanParser.parse("1m run @ \(PlanWriter.pace(pace))", origin: "", defaultName: "x")
            #expect(again.segments.first { _ in true }?.pace == pace, "\(written) → \(PlanWriter.pace(pace))")
        }
        #expect(PlanWriter.distance(5000) == "5km")
        #expect(PlanWriter.distance(3.1 * Pace.metresPerMile) == "3.1mi")
    }

    @Test func labelsAndNamesKeepQuotesAndBackslashes() throws {
        let plan = try PlanParser.parse(
            #"name "a \"b\" \\ c", 30s run "Easy \"jog\" \\ done""#, origin: "", defaultName: "x")
        let again = try PlanParser.parse(PlanWriter.text(for: plan), origin: "", defaultName: "y")
        #expect(again.name == #"a "b" \ c"#)
        #expect(again.segments.first { _ in true }?.label == #"Easy "jog" \ done"#)
    }

    /// The same name, countdown and tree: items, kinds, labels, durations, repetitions and paces.
}

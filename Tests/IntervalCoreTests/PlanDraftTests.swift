import Testing

@testable import IntervalCore

/// The window's editor's model (PlanDraft): what the rows hold, the text they write, and the edits.
struct PlanDraftTests {
    @Test func everyBundledAndDocumentedPlanIsDraftedWrittenAndReadBackAsItself() throws {
        for (origin, text) in PlanWriterTests.texts {
            let draft = try PlanDraft(parsing: text)
            let written = draft.text
            let original = try PlanParser.parse(text, origin: origin, defaultName: "plan")
            let again = try PlanParser.parse(written, origin: "written", defaultName: "plan")
            #expect(same(original, again), "\(origin): \(text)\nwritten as:\n\(written)")
            #expect(try PlanDraft(parsing: written) == draft, "\(origin): the draft of its text is itself")
            for line in text.split(separator: "\n") {
                guard let hash = line.firstIndex(of: "#"), !line[..<hash].contains("\"") else { continue }
                #expect(written.contains(line[hash...]), "\(origin): the comment \(line[hash...]) is kept")
            }
        }
    }

    @Test func commentsStayWithTheirItems() throws {
        let text = """
            # Hills, from the club's sheet
            name "Hills"  # the name
            countdown 0:03

            # easy first
            10m walk "Warm-up"
            6x { # the hill
              1:30 run "Uphill" @ 5:00/km  # hard
              # walk down
              2m walk "Recover"
              # end of a round
            }
            5m walk  # cool
            # the end
            """
        let draft = try PlanDraft(parsing: text)
        #expect(draft.headerComments == ["# Hills, from the club's sheet", "# the name"])
        #expect(draft.countdown == "0:03")
        #expect(draft.items[0].comments == ["# easy first"])
        guard case .group(let hills) = draft.items[1].content else {
            Issue.record("not a group: \(draft.items[1])")
            return
        }
        #expect(hills.repetition == "6x")
        #expect(hills.items[0].comments == ["# the hill"])
        #expect(hills.items[0].trailingComment == "# hard")
        #expect(
            hills.items[0].content == .step(.init(duration: "1:30", kind: "run", label: "Uphill", target: "5:00/km")))
        #expect(hills.items[1].comments == ["# walk down"])
        #expect(hills.closingComments == ["# end of a round"])
        #expect(draft.items[2].trailingComment == "# cool")
        #expect(draft.closingComments == ["# the end"])
        #expect(
            draft.text == """
                # Hills, from the club's sheet
                # the name
                name "Hills"
                countdown 0:03

                # easy first
                10m walk "Warm-up"
                6x {
                  # the hill
                  1:30 run "Uphill" @ 5:00/km  # hard
                  # walk down
                  2m walk "Recover"
                  # end of a round
                }
                5m walk  # cool
                # the end

                """)
    }

    /// The issue's scenario, as the rows build it: 36 minutes.
    @Test func hillRepeatsBuiltByEdits() throws {
        var draft = PlanDraft(name: "Hill repeats")
        draft.replace(at: [0], with: .step(.init(duration: "10m", kind: "walk", label: "Warm-up")))
        let group = draft.add(
            PlanDraft.Item(
                .group(.init(repetition: "6", items: [.step(.init(duration: "90s", kind: "run", label: "Uphill"))]))),
            at: [0])
        #expect(group == [1])
        let inside = draft.add(.step(.init(duration: "2m", kind: "walk", label: "Recover")), at: [1, 0])
        #expect(inside == [1, 1])
        draft.add(.step(.init(duration: "5m", kind: "walk", label: "Cool-down")), at: nil)
        #expect(
            draft.text == """
                name "Hill repeats"

                10m walk "Warm-up"
                6x {
                  90s run "Uphill"
                  2m walk "Recover"
                }
                5m walk "Cool-down"

                """)
        let plan = try PlanParser.parse(draft.text, origin: "", defaultName: "x")
        #expect(plan.duration == 36 * minute)
        #expect(plan.segment(at: 10 * minute)?.label == "Uphill")
    }

    @Test func movesFollowThePlanAsItReads() {
        func step(_ name: String) -> PlanDraft.Item { .step(.init(duration: "1m", kind: "run", label: name)) }
        var draft = PlanDraft(
            name: "x",
            items: [step("A"), PlanDraft.Item(.group(.init(repetition: "2x", items: [step("B")]))), step("C")])
        func order() -> String {
            draft.text.split(separator: "\n").dropFirst().map { $0.trimmingSpaces }.joined(separator: " ")
        }
        #expect(draft.moveDown(at: [0]) == [0, 0], "A goes into the group below it")
        #expect(order() == #"2x { 1m run "A" 1m run "B" } 1m run "C""#)
        #expect(draft.moveUp(at: [0, 0]) == [0], "A leaves the group, first in it, upwards")
        #expect(draft.moveUp(at: [0]) == nil, "nothing is above the first item")
        #expect(draft.moveUp(at: [2]) == [1, 1], "C goes into the end of the group above it")
        #expect(order() == #"1m run "A" 2x { 1m run "B" 1m run "C" }"#)
        #expect(draft.moveDown(at: [1, 1]) == [2], "C leaves the group, last in it, downwards")
        #expect(draft.moveDown(at: [2]) == nil)
        #expect(draft.moveUp(at: [1, 0]) == [1], "B leaves it too")
        #expect(order() == #"1m run "A" 1m run "B" 2x { } 1m run "C""#)
        #expect(draft.duplicate(at: [0]) == [1])
        #expect(draft.remove(at: [3])?.content == .group(.init(repetition: "2x", items: [])))
        #expect(order() == #"1m run "A" 1m run "A" 1m run "B" 1m run "C""#)
        #expect(draft.remove(at: [9]) == nil)
        #expect(draft.item(at: [0, 0]) == nil)
    }

    @Test(arguments: [
        ("6", "6x"), (" 6x ", "6x"), ("6 ×", "6x"), ("45m", "for 45m"), ("5km", "for 5km"), ("for 1:30", "for 1:30"),
        ("", ""), ("x6", "for x6"),
    ])
    func aRepeatsFieldBecomesItsHead(typed: String, head: String) {
        #expect(PlanDraft.repetitionHead(typed) == head)
    }

    /// A problem in a row is located on its line of the text, which names the row.
    @Test func aDiagnosticNamesItsRow() throws {
        let draft = PlanDraft(
            name: "x",
            items: [
                .step(.init(duration: "1m", kind: "walk")),
                PlanDraft.Item(
                    .group(
                        .init(
                            repetition: "5km",
                            items: [
                                .step(.init(duration: "1m", kind: "run", target: "5:00/km")),
                                .step(.init(duration: "1m", kind: "walk")),
                            ]))),
            ])
        let failure = diagnostic(draft.text)
        // On the repeat's head, which says every step inside needs a pace.
        #expect(failure?.line == 4, "\(draft.text)\n\(String(describing: failure))")
        #expect(failure.flatMap { draft.path(forLine: $0.line) } == [1])
        var typo = draft
        typo.replace(at: [0], with: .step(.init(duration: "1 m", kind: "walk")))
        #expect(diagnostic(typo.text).flatMap { typo.path(forLine: $0.line) } == [0])
    }

    /// A step's duration field takes `open` and distances: the draft writes them back as typed, they parse back to the
    /// same steps, and the row says "until Done" for a step the person ends.
    @Test func openAndDistanceStepsAreDraftedAndSayUntilDone() throws {
        let text = "open warmup \"Until ready\"\n2x(0.4km run, 1mi walk @ 15:00/mi)\nopen cooldown\n"
        let draft = try PlanDraft(parsing: text)
        guard case .step(let warmup)? = draft.items.first?.content,
            case .group(let repeats)? = draft.items.dropFirst().first?.content,
            case .step(let run)? = repeats.items.first?.content, case .step(let walk)? = repeats.items.last?.content
        else {
            Issue.record("not drafted as steps and a repeat: \(draft.items)")
            return
        }
        #expect(warmup == PlanDraft.Step(duration: "open", kind: "warmup", label: "Until ready"))
        #expect(run.duration == "0.4km" && walk.duration == "1mi" && walk.target == "15:00/mi")
        #expect(warmup.untilDone == "until Done")
        #expect(run.untilDone == "0.4 km, until Done")
        #expect(walk.untilDone == nil, "a distance with a pace is timed")
        #expect(PlanDraft.Step(duration: "30s", kind: "run").untilDone == nil)
        #expect(PlanDraft.Step(duration: "open", kind: "").untilDone == nil, "not a step yet")
        let again = try PlanParser.parse(draft.text, origin: "written", defaultName: "plan")
        let original = try PlanParser.parse(text, origin: "text", defaultName: "plan")
        #expect(same(original, again))
        #expect(again.openStepCount == 4 && again.duration == original.duration)
        // A step written from a plan (PlanWriter's, Duplicate's) keeps them too.
        guard case .group(let parsedRepeats)? = original.root.children.dropFirst().first,
            case .step(let parsedRun)? = parsedRepeats.children.first
        else {
            Issue.record("no run in \(text)")
            return
        }
        #expect(PlanDraft.Step(parsedRun) == run)
    }
}

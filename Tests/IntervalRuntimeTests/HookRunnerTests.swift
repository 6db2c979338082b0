import Foundation
import IntervalCore
import Logging
import Testing

@testable import IntervalRuntime

@Suite struct HookRunnerTests {
    @Test(.timeLimit(.minutes(1))) func hooksRunAsArgvWithTheirVariables() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hook-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out").path
        let plan = try PlanParser.parse(
            "name \"Test plan\"\n2x(30s run \"Go; fast\", 30s walk)", origin: "", defaultName: "x")
        let segment = try #require(plan.segment(at: 0))
        let event = HookEvent(kind: .cue, plan: plan, segment: segment, next: plan.segment(after: segment))
        // The label's ';' would split a shell command; argv keeps it one argument.
        let script =
            "printf '%s|%s|%s|%s|%s|%s|%s\\n' \"$1\" \"$INTERVALD_EVENT\" \"$INTERVALD_KIND\" \"$INTERVALD_LABEL\" \"$INTERVALD_INDEX\" \"$INTERVALD_SEGMENT_DURATION_US\" \"$INTERVALD_PLAN\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\""
        let pid = HookRunner(logger: Logger(label: "test")).run(
            ["/bin/sh", "-c", script, "sh", "{label} ({segment_duration} of {duration})", output], for: event)
        #expect(pid != nil)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: output), Date() < deadline {
            usleep(10_000)
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text == "Go; fast (30 s of 2:00)|cue|run|Go; fast|1|30000000|Test plan\n")
    }

    @Test func aMissingProgramIsReportedNotFatal() throws {
        let plan = try PlanParser.parse("1s run", origin: "", defaultName: "x")
        #expect(
            HookRunner(logger: Logger(label: "test")).run(
                ["/nonexistent/program"], for: HookEvent(kind: .finish, plan: plan)) == nil)
        #expect(HookRunner(logger: Logger(label: "test")).run([""], for: HookEvent(kind: .finish, plan: plan)) == nil)
    }

    @Test func fieldsAreFilledOnceAndNeverInTheProgram() throws {
        let plan = try PlanParser.parse("name \"P\"\n30s run \"{plan} {kind}\"", origin: "", defaultName: "x")
        let segment = try #require(plan.segment(at: 0))
        let event = HookEvent(kind: .cue, plan: plan, segment: segment)
        #expect(
            event.expand(["{label}", "--", "{label}", "{nope} {", "{kind}{index}", "{state}"])
                == ["{label}", "--", "{plan} {kind}", "{nope} {", "run1", "{state}"])
    }

    @Test func aHookAndTheStatusLineShowAFieldOfTheSameNameAlike() throws {
        let plan = try PlanParser.parse("name \"P\"\n3x(30s run, 1m walk \"Easy\")", origin: "", defaultName: "x")
        // The fourth segment, "Easy", from 2:00 (segment(at:) takes a time).
        let segment = try #require(plan.segment(at: 120_000_000))
        let event = HookEvent(kind: .cue, plan: plan, segment: segment, next: plan.segment(after: segment))
        // The status line at the instant that segment starts.
        var status = TimerStatus.idle
        status.state = .running
        status.planName = "P"
        status.planDuration = 270_000_000
        status.segmentIndex = 3
        status.segmentCount = 6
        status.segmentKind = "walk"
        status.segmentLabel = "Easy"
        status.segmentDuration = 60_000_000
        status.nextLabel = "Run"
        status.elapsed = 120_000_000
        status.segmentRemaining = 60_000_000
        status.remaining = 150_000_000
        for field in StatusField.allCases where field.inHooks {
            let value = StatusText.value(field, of: status)
            #expect(event.expand(["hook", "{\(field.rawValue)}"]) == ["hook", value], "{\(field.rawValue)}")
            #expect(event.environment[field.environmentName] == value, "\(field.environmentName)")
        }
        #expect(
            event.expand(["hook", "{index} {segment_index} {duration} {segment_duration}"]) == [
                "hook", "4 3 4:30 1 min",
            ])
    }

    @Test func spellingsOfEarlierReleasesAreFoundWholeAndNamed() {
        #expect(HookEvent.deprecations(in: ["espeak-ng", "{label}, {segment_duration}"]) == [])
        #expect(
            HookEvent.deprecations(in: ["sh", "-c", "echo $INTERVALD_DURATION_US $INTERVALD_SEGMENT_INDEX"]).count == 1)
        #expect(HookEvent.deprecations(in: ["espeak-ng", "{label}, {duration}"]).count == 1)
        #expect(HookEvent.deprecations(in: ["sh", "-c", "echo \"$INTERVALD_INDEX\""]).count == 1)
    }

    @Test(.timeLimit(.minutes(1))) func aFewHooksRunAtOnceAndTheRestAreSkipped() throws {
        let plan = try PlanParser.parse("1s run", origin: "", defaultName: "x")
        let runner = HookRunner(logger: Logger(label: "test"), limit: 2)
        let event = HookEvent(kind: .finish, plan: plan)
        // Two slow hooks fill the limit; the third is refused while they run.
        let first = runner.run(["/bin/sleep", "30"], for: event)
        let second = runner.run(["/bin/sleep", "30"], for: event)
        #expect(first != nil && second != nil)
        #expect(runner.run(["/bin/true"], for: event) == nil)
        #expect(runner.runningCount == 2)
        for pid in [first, second].compactMap({ $0 }) { kill(pid, SIGKILL) }
        let deadline = Date().addingTimeInterval(20)
        while runner.runningCount > 0, Date() < deadline { usleep(10_000) }
        #expect(runner.runningCount == 0)
        #expect(runner.run(["/bin/true"], for: event) != nil)
    }
}

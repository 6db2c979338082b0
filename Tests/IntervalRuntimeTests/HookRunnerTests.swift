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
            "printf '%s|%s|%s|%s|%s|%s|%s\\n' \"$1\" \"$INTERVALD_EVENT\" \"$INTERVALD_KIND\" \"$INTERVALD_LABEL\" \"$INTERVALD_INDEX\" \"$INTERVALD_DURATION_US\" \"$INTERVALD_PLAN\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\""
        let pid = HookRunner(logger: Logger(label: "test")).run(
            ["/bin/sh", "-c", script, "sh", "{label} ({duration})", output], for: event)
        #expect(pid != nil)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: output), Date() < deadline {
            usleep(10_000)
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text == "Go; fast (30 s)|cue|run|Go; fast|0|30000000|Test plan\n")
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
            event.expand(["{label}", "--", "{label}", "{nope} {", "{kind}{index}"])
                == ["{label}", "--", "{plan} {kind}", "{nope} {", "run0"])
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

import IntervalCore
import IntervalTestSupport
import Testing

@testable import intervalctl_desktop

/// `intervalctl run`'s terminal output on the virtual clock: a line per change, the countdown and pauses when the
/// output is not a terminal, the closing sentence of each ending.
@Suite struct TerminalProgressTests {
    @Test func aPipeGetsALinePerEventAndTheClosingSentence() throws {
        var lines: [String] = []
        var ending = ""
        let plan = try PlanParser.parse("countdown 2s\n10s run\n10s walk", origin: "", defaultName: "Drill")
        let progress = TerminalProgress(plan: plan, interactive: false) { lines.append($0) }
        progress.onEnd = { ending = $0 }
        let (session, clock) = ManualTimerSource.session(outputs: [progress])
        progress.begin()
        try session.start(plan, replace: false)
        clock.advance(by: 9_000_000)
        try session.pause()
        try session.resume()
        clock.advance(by: 3_000_000)
        session.stop(.user)
        #expect(
            lines == [
                "Drill — 0:20, 2 segments\n",
                "0:00      Run · 10 s — Next: Walk 10 s · segment 1 of 2\n",
                "0:08      Walk in 2 s\n",
                "0:09      Paused\n",
                "0:09      Resumed\n",
                "0:10      Walk · 10 s — Last one · segment 2 of 2\n",
            ])
        #expect(ending == "Stopped by you (Ctrl-C or the media player's Stop) after 0:12 of 0:20.")
    }
}

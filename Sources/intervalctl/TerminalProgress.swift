import FoundationEssentials
import IntervalCore

/// What `intervalctl run` prints: a line per cue, and on a terminal a live line below it with the segment's
/// countdown, what comes next and an overall progress bar. Plain lines only when stdout is not a terminal.
struct TerminalProgress {
    let plan: Plan
    let interactive: Bool
    private static let clearLine = "\r\u{1B}[2K"
    private static let barWidth = 24

    init(plan: Plan, interactive: Bool) {
        self.plan = plan
        self.interactive = interactive
    }

    func begin() {
        write("\(plan.name) — \(PlanReport.lengthText(plan))\n")
    }

    /// A permanent line for each event worth keeping in the scrollback.
    func record(_ event: SchedulerEvent, elapsed: Int64) {
        let at = TimeText.clock(microseconds: elapsed).leftAligned(9)
        let line: String? = switch event {
        case .segmentStarted(let segment, let next):
            "\(TimeText.clock(microseconds: segment.start).leftAligned(9)) \(WorkoutPresenter.headline(segment)) — \(WorkoutPresenter.nextText(next)) · \(WorkoutPresenter.position(segment, in: plan))"
        case .countdown(_, let next, let remaining):
            interactive ? nil : "\(at) \(next?.label ?? "Finish") in \(TimeText.spoken(microseconds: remaining))"
        case .paused: "\(at) Paused"
        case .resumed: "\(at) Resumed"
        case .finished, .stopped: nil
        }
        if let line { write((interactive ? Self.clearLine : "") + line + "\n") }
    }

    /// The live line: `▶ Run  0:12 left  next Walk 30 s  [██████░░░░░░] 37 %  14:48/40:00`.
    func redraw(segment: Segment, elapsed: Int64, paused: Bool) {
        guard interactive else { return }
        let remaining = max(segment.end - elapsed, 0)
        let fraction = Double(elapsed) / Double(max(plan.duration, 1))
        let filled = min(Int(fraction * Double(Self.barWidth)), Self.barWidth)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled)
        let next = plan.segment(after: segment).map { "next \($0.label)" } ?? "last one"
        let line = "\(paused ? "⏸" : "▶") \(segment.label)  \(TimeText.countdown(microseconds: remaining)) left  \(next)  [\(bar)] \(Int(fraction * 100)) %  \(TimeText.clock(microseconds: elapsed))/\(TimeText.clock(microseconds: plan.duration))"
        write(Self.clearLine + line)
    }

    func finish() {
        if interactive { write(Self.clearLine) }
    }

    private func write(_ text: String) {
        Console.output(text)
    }
}

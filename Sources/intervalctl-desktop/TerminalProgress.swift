import FoundationEssentials
import IntervalCore
import IntervalCtlCommon

/// What `intervalctl run` prints: a line per cue, and on a terminal a live line below it with the segment's
/// countdown, what comes next and an overall progress bar. Plain lines only when stdout is not a terminal.
/// As an output of the run's ``WorkoutSession`` it also words how the workout ended, through ``onEnd``.
final class TerminalProgress: WorkoutOutput {
    let plan: Plan
    let interactive: Bool
    /// Called once with the closing sentence when the workout finishes or stops.
    var onEnd: (String) -> Void = { _ in }
    private static let clearLine = "\r\u{1B}[2K"
    private static let barWidth = 24

    /// Where the lines go: the terminal, or a test's recorder.
    private let output: (String) -> Void

    init(plan: Plan, interactive: Bool, output: @escaping (String) -> Void = Console.output) {
        self.plan = plan
        self.interactive = interactive
        self.output = output
    }

    func handle(_ moment: WorkoutMoment) {
        record(moment.event, elapsed: moment.elapsed)
        let total = PlanReport.timeText(plan)
        switch moment.event {
        case .finished:
            onEnd(
                tr(
                    "Finished {plan} in {time}.",
                    ["plan": plan.name, "time": PlanReport.workoutTimeText(moment.elapsed, of: plan)]))
        case .stopped(let reason):
            let values: KeyValuePairs = ["elapsed": TimeText.clock(microseconds: moment.elapsed), "time": total]
            let sentence =
                switch reason {
                case .notification: tr("Stopped from the notification after {elapsed} of {time}.", values)
                case .user: tr("Stopped by you (Ctrl-C or the media player's Stop) after {elapsed} of {time}.", values)
                case .shutdown: tr("Stopped by SIGTERM after {elapsed} of {time}.", values)
                case .replaced: tr("Stopped (replaced) after {elapsed} of {time}.", values)
                }
            onEnd(sentence)
        case .segmentStarted, .countdown, .paused, .resumed:
            if let segment = moment.segment {
                redraw(
                    segment: segment, place: moment.place, elapsed: moment.elapsed,
                    paused: moment.status.state == .paused)
            }
        }
    }

    func begin() {
        write("\(plan.name) — \(PlanReport.lengthText(plan))", newline: true)
    }

    /// A permanent line for each event worth keeping in the scrollback.
    func record(_ event: SchedulerEvent, elapsed: Int64) {
        let at = TimeText.clock(microseconds: elapsed).padding(to: 9)
        let line: String? =
            switch event {
            case .segmentStarted(let segment, let next):
                "\(TimeText.clock(microseconds: segment.start).padding(to: 9)) \(WorkoutPresenter.headline(segment)) — \(WorkoutPresenter.nextText(next)) · \(WorkoutPresenter.position(segment, in: plan))"
            case .countdown(_, let next, let remaining):
                interactive
                    ? nil
                    : at + " "
                        + tr(
                            "{next} in {time}",
                            [
                                "next": next?.displayLabel ?? tr("Finish"),
                                "time": TimeText.spoken(microseconds: remaining),
                            ])
            case .paused: at + " " + tr("Paused")
            case .resumed: at + " " + tr("Resumed")
            case .finished, .stopped: nil
            }
        if let line { write(line, clearing: interactive, newline: true) }
    }

    /// The live line: `▶ Run  0:12 left  next Walk 30 s  [██████░░░░░░] 37 %  14:48/40:00`; in a step the person ends,
    /// `▶ Warm up  2:37, Enter when done  next Run …`, counting up. `place` is where the plan stands on its timeline,
    /// `elapsed` the workout's time so far.
    func redraw(segment: Segment, place: Int64, elapsed: Int64, openPlayed: Int64 = 0, paused: Bool) {
        guard interactive else { return }
        let remaining = max(segment.end - place, 0)
        let fraction = Double(plan.time(at: place)) / Double(max(plan.duration, 1))
        let filled = min(Int(fraction * Double(Self.barWidth)), Self.barWidth)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled)
        let next = plan.segment(after: segment).map { tr("next {next}", ["next": $0.displayLabel]) } ?? tr("last one")
        let left =
            segment.isOpen
            ? tr("{played}, Enter when done", ["played": TimeText.clockToTheSecond(microseconds: openPlayed)])
            : tr("{remaining} left", ["remaining": TimeText.countdown(microseconds: remaining)])
        let line =
            "\(paused ? "⏸" : "▶") \(segment.displayLabel)  \(left)  \(next)  [\(bar)] \(Int(fraction * 100)) %  \(TimeText.clock(microseconds: elapsed))/\(PlanReport.timeText(plan))"
        write(line, clearing: true)
    }

    func finish() {
        if interactive { write("", clearing: true) }
    }

    /// Writes `content` with names and labels from the plan escaped; only our own control sequences reach the
    /// terminal as such.
    private func write(_ content: String, clearing: Bool = false, newline: Bool = false) {
        output((clearing ? Self.clearLine : "") + content.terminalEscaped + (newline ? "\n" : ""))
    }
}

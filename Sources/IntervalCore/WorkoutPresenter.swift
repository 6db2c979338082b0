/// How cues look: sound, urgency and buttons (docs/reference.md §4, §4a).
public struct CueStyle: Sendable, Equatable {
    /// The `sound-name` hint, or nil for silence.
    public var soundName: String?
    public var urgency: NotificationUrgency
    /// Buttons on every cue besides Stop, which is always there; `pause` becomes `resume` while paused.
    public var extraButtons: [NotificationAction]
    /// The process plays the cue's sound itself (docs/reference.md §4b): ask the server for silence (`suppress-sound`).
    public var suppressSound: Bool

    public init(
        soundName: String? = "bell", urgency: NotificationUrgency = .normal,
        extraButtons: [NotificationAction] = [.pause, .skip], suppressSound: Bool = false
    ) {
        self.soundName = soundName
        self.urgency = urgency
        self.extraButtons = extraButtons
        self.suppressSound = suppressSound
    }

    /// This style for a process that plays its own cue sounds when `playsSound`: no `sound-name`, and
    /// `suppress-sound` so that a server that plays sounds does not double them.
    public func playingSoundItself(_ playsSound: Bool) -> CueStyle {
        guard playsSound else { return self }
        var style = self
        style.soundName = nil
        style.suppressSound = true
        return style
    }
}

/// Turns scheduler events into the words of the workout's one notification and of terminal lines.
public enum WorkoutPresenter {
    /// What the notification shows after `event`, or nil when it should close (the workout was stopped); the end of
    /// a program's day says what comes next, and a pause the computer's sleep brought says so. While the workout is
    /// `paused`, a segment it moves to (a skip, a restart) shows paused, as every other output shows it. The finish
    /// says the workout's time, `elapsed` (the steps the person ended as long as they played), where it is given.
    public static func notification(
        for event: SchedulerEvent, plan: Plan, style: CueStyle, program: ProgramDayReference? = nil,
        paused: Bool = false, pausedBySleep: Bool = false, elapsed: Int64? = nil
    ) -> WorkoutNotification? {
        var event = event
        if paused, case .segmentStarted(let segment, _) = event { event = .paused(segment) }
        var notification = words(for: event, plan: plan, style: style)
        if case .finished = event, let elapsed {
            notification?.body = "\(plan.displayName) · \(PlanReport.workoutTimeText(elapsed, of: plan))"
        }
        if case .finished = event, let program, let finished = notification {
            notification?.body = "\(finished.body) · \(program.whatIsNext)"
        }
        if case .paused(let segment) = event, pausedBySleep {
            notification?.summary = tr("Paused while the computer slept")
            notification?.body = "\(segment.displayLabel) · \(position(segment, in: plan))"
        }
        notification?.suppressSound = style.suppressSound
        return notification
    }

    private static func words(for event: SchedulerEvent, plan: Plan, style: CueStyle) -> WorkoutNotification? {
        switch event {
        case .segmentStarted(let segment, let next):
            return cue(segment, next: next, plan: plan, style: style)
        case .resumed(let segment):
            return cue(segment, next: plan.segment(after: segment), plan: plan, style: style)
        case .countdown(let current, let next, let remaining):
            let time = TimeText.spoken(microseconds: remaining)
            let summary =
                next.map { tr("{next} in {time}", ["next": $0.displayLabel, "time": time]) }
                ?? tr("Finish in {time}", ["time": time])
            return WorkoutNotification(
                summary: summary,
                body: tr(
                    "Now: {current} · {position}",
                    ["current": current.displayLabel, "position": position(current, in: plan)]),
                actions: buttons(style, paused: false, open: current.isOpen), urgency: style.urgency,
                soundName: style.soundName
            )
        case .paused(let segment):
            return WorkoutNotification(
                summary: tr("Paused · {current}", ["current": segment.displayLabel]),
                body: "\(nextText(plan.segment(after: segment))) · \(position(segment, in: plan))",
                actions: buttons(style, paused: true, open: segment.isOpen), urgency: style.urgency, soundName: nil
            )
        case .finished:
            return WorkoutNotification(
                summary: tr("Workout finished"), body: "\(plan.displayName) · \(PlanReport.timeText(plan))",
                actions: [], urgency: style.urgency, soundName: style.soundName
            )
        case .stopped:
            return nil
        }
    }

    static func cue(_ segment: Segment, next: Segment?, plan: Plan, style: CueStyle) -> WorkoutNotification {
        let body = "\(nextText(next)) · \(position(segment, in: plan))"
        return WorkoutNotification(
            summary: headline(segment), body: segment.isOpen ? "\(whenDone(segment)) · \(body)" : body,
            actions: buttons(style, paused: false, open: segment.isOpen), urgency: style.urgency,
            soundName: style.soundName
        )
    }

    /// What ends a step the person ends: "Done when you get there" for a distance, else "Done when you are ready";
    /// a step its heart rate ends says its bound first ("until heart rate below 120 · Done when you are ready").
    public static func whenDone(_ segment: Segment) -> String {
        whenDone(isDistance: segment.distance != nil, heartRateBound: segment.heartRateBound)
    }

    /// The same, for a step known by its properties (`SegmentDistance`, `SegmentHeartRateBound`).
    public static func whenDone(isDistance: Bool, heartRateBound: HeartRateBound? = nil) -> String {
        let done = isDistance ? tr("Done when you get there") : tr("Done when you are ready")
        return heartRateBound.map { "\($0.untilText) · \(done)" } ?? done
    }

    /// "Run · 30 s"; a step the person ends says its distance, if it has one ("Run · 0.4 km"), else its label alone.
    public static func headline(_ segment: Segment) -> String {
        guard let length = length(of: segment) else { return segment.displayLabel }
        return "\(segment.displayLabel) · \(length)"
    }

    /// "30 s"; for a step the person ends its distance ("0.4 km"), or nil.
    static func length(of segment: Segment) -> String? {
        guard segment.isOpen else { return TimeText.spoken(microseconds: segment.duration) }
        return segment.distance.map(PlanReport.shortDistanceText)
    }

    /// "Next: Walk 30 s", "Next: Cool-down" (a step the person ends), or "Last one" for the final segment.
    public static func nextText(_ next: Segment?) -> String {
        nextText(label: next?.displayLabel, length: next.flatMap(length(of:)))
    }

    /// The same from the timer's properties, which give the next segment's label ("" during the last one) but not its
    /// length: "Next: Walk", or "Last one".
    public static func nextText(_ status: TimerStatus) -> String {
        nextText(label: status.nextLabel.isEmpty ? nil : Localization.label(status.nextLabel), length: nil)
    }

    /// What comes next, as every output words it: "Next: Walk 30 s", "Next: Walk" without a length, "Last one" when
    /// nothing does (no label).
    private static func nextText(label: String?, length: String?) -> String {
        guard let label else { return tr("Last one") }
        guard let length else { return tr("Next: {next}", ["next": label]) }
        return tr("Next: {next} {time}", ["next": label, "time": length])
    }

    /// "round 3 of 6" in the outermost real repeat, else "segment 1 of 56".
    public static func position(_ segment: Segment, in plan: Plan) -> String {
        position(number: segment.index + 1, count: plan.segmentCount, round: segment.mainRound)
    }

    /// The same from the timer's properties, which do not give the segment's round: "segment 1 of 56".
    public static func position(_ status: TimerStatus) -> String {
        position(number: Int64(status.segmentIndex) + 1, count: Int64(status.segmentCount), round: nil)
    }

    /// Where a segment is, as every output words it: its round in a repeat when there is one, else its number.
    private static func position(number: Int64, count: Int64, round: Segment.Round?) -> String {
        if let round {
            return tr("round {number} of {count}", ["number": "\(round.number)", "count": "\(round.count)"])
        }
        return tr("segment {number} of {count}", ["number": "\(number)", "count": "\(count)"])
    }

    /// Stop, then the style's buttons; in a step the person ends Skip reads Done, and is there whatever the style
    /// says: nothing else on the notification ends the step.
    static func buttons(_ style: CueStyle, paused: Bool, open: Bool) -> [NotificationAction] {
        var actions: [NotificationAction] = [.stop]
        for extra in style.extraButtons where ![.stop, .resume, .done].contains(extra) && !(open && extra == .skip) {
            actions.append(paused && extra == .pause ? .resume : extra)
        }
        if open { actions.append(.done) }
        return actions
    }
}

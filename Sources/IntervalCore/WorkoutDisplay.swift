/// What the window's workout view shows at an instant (docs/reference.md §10), from the timer's properties as last
/// read and how long ago they were read: the daemon's schedule, carried forward by the local clock between its
/// signals, never polled.
public struct WorkoutDisplay: Sendable, Equatable {
    /// The background: work warm, rest cool (the rest kinds of `[sound]`), paused grey.
    public enum Tone: String, Sendable, Equatable, CaseIterable {
        case work, rest, paused
    }

    /// The segment's label ("Run").
    public var title: String
    /// The segment's time left, rounded up to the second ("0:29"), as every status shows it; in a step the person ends,
    /// its time so far ("2:37"), counting up.
    public var countdown: String
    /// "Next: Walk", or "Last one"; in a step the person ends, what ends it first: "Done when you are ready · Next:
    /// Walk".
    public var next: String
    /// "segment 3 of 16".
    public var position: String
    /// How much of the segment and of the plan are done, 0...1.
    public var segmentProgress: Double
    public var planProgress: Double
    /// "3:20 elapsed · 12:40 left"; in a step the person ends, "3:20 elapsed · 12:40 left after this step".
    public var times: String
    public var tone: Tone
    /// Paused: the Pause button reads Resume.
    public var paused: Bool
    /// A step the person ends: ``countdown`` counts up, and the big button reads Done.
    public var open: Bool
    /// The strap's bpm; nil while none is heard.
    public var heartRate: Reading?
    /// The treadmill's speed and distance or the bike's power and cadence; nil while no machine is heard.
    public var machine: Reading?

    /// A reading as the page shows it, "♥ 142", and as a screen reader says it, "Heart rate 142 bpm".
    public struct Reading: Sendable, Equatable {
        public var shown: String
        public var spoken: String
    }

    /// `status` (read `age` µs ago) as shown now; nil when no workout exists.
    public init?(_ status: TimerStatus, age: Int64, restKinds: Set<String>) {
        guard status.state != .idle else { return nil }
        let now = Self.advanced(status, by: age)
        // A common English label in the user's language, as the notification says it (docs/reference.md §9).
        title = now.segmentLabel.isEmpty ? now.segmentKind : Localization.label(now.segmentLabel)
        countdown = StatusText.remaining(now)
        let next = WorkoutPresenter.nextText(now)
        self.next =
            now.open
            ? "\(WorkoutPresenter.whenDone(isDistance: now.segmentDistance > 0, heartRateBound: HeartRateBound(planText: now.segmentHeartRateBound))) · \(next)"
            : next
        position = WorkoutPresenter.position(now)
        open = now.open
        heartRate =
            now.heartRate > 0
            ? Reading(
                shown: "♥ \(now.heartRate)", spoken: tr("Heart rate {bpm} bpm", ["bpm": "\(now.heartRate)"])) : nil
        machine = now.machineReading.flatMap { reading in
            reading.text.isEmpty ? nil : Reading(shown: reading.text, spoken: reading.spokenText)
        }
        // An open step's end is not known: its bar stays empty until it is ended.
        segmentProgress =
            now.open
            ? 0
            : now.segmentDuration > 0
                ? min(
                    1,
                    Double(now.segmentDuration - min(now.segmentRemaining, now.segmentDuration))
                        / Double(now.segmentDuration)) : 1
        planProgress = StatusText.progress(now)
        let (elapsed, leftText) = (
            StatusText.elapsed(now),
            TimeText.countdown(microseconds: Int64(clamping: min(now.remaining, now.planDuration)))
        )
        // In a step the person ends the plan's timed steps wait: what is left comes after it.
        times =
            now.open
            // TRANSLATORS: during a step the person ends (the big button reads Done): the plan's time before it, and
            // what is left once it is done.
            ? tr("{elapsed} elapsed · {left} left after this step", ["elapsed": elapsed, "left": leftText])
            : tr("{elapsed} elapsed · {left} left", ["elapsed": elapsed, "left": leftText])
        paused = now.state == .paused
        tone = paused ? .paused : ToneColours.tone(ofKind: now.segmentKind, restKinds: restKinds)
    }

    /// µs from the read until the shown second next changes, or nil when nothing changes without a signal: paused,
    /// or in the segment's last second, whose end the next `SegmentStarted` (or `Finished`) shows; the digits never
    /// read 0:00 for the instant before it.
    public static func nextChange(_ status: TimerStatus, age: Int64) -> Int64? {
        let now = advanced(status, by: age)
        guard now.state == .running, now.open || now.segmentRemaining > 1_000_000,
            let wait = StatusText.microsecondsUntilNextSecond(now)
        else { return nil }
        return max(age, 0) + Int64(wait)
    }

    /// `status` as it is `age` µs after it was read: a running workout's clocks move on, a paused one's do not.
    public static func advanced(_ status: TimerStatus, by age: Int64) -> TimerStatus {
        guard status.state == .running, age > 0 else { return status }
        var now = status
        let passed = UInt64(age)
        // The workout's time goes on in every step; in one the person ends, the time left of the plan waits.
        now.elapsed = status.elapsed &+ passed
        now.segmentElapsed = status.segmentElapsed &+ passed
        now.segmentRemaining = status.segmentRemaining - min(passed, status.segmentRemaining)
        if !status.open { now.remaining = status.remaining - min(passed, status.remaining) }
        return now
    }
}

/// A sound or phrase to start `delay` microseconds after the event that asked for it (0: at once).
public struct TimedCue: Sendable, Equatable {
    public var text: String
    public var delay: Int64

    public init(_ text: String, delay: Int64) {
        self.text = text
        self.delay = delay
    }
}

/// What an audible output does at one event: cut what is playing (and what is waiting), then start these.
public struct AudibleActions: Sendable, Equatable {
    public var cut: Bool
    public var cues: [TimedCue]

    public init(cut: Bool, cues: [TimedCue]) {
        self.cut = cut
        self.cues = cues
    }
}

/// The countdown before a change (docs/reference.md §4b): a pip when the pre-cue comes and at each whole second after
/// it.
public enum CountdownMarks {
    /// The instants of the pips, in microseconds before the change, earliest first: 3 s → [3 s, 2 s, 1 s];
    /// 2.5 s → [2.5 s, 2 s, 1 s]; 300 ms → [300 ms]; 1 min → [1 min, 10 s, 9 s, …, 1 s].
    public static func before(change remaining: Int64) -> [Int64] {
        guard remaining > 0 else { return [] }
        let second: Int64 = 1_000_000
        let wholeSeconds = remaining / second
        // A pre-cue of hours is not counted second by second: a pip at the pre-cue, then the last ten seconds.
        var marks = remaining % second == 0 && wholeSeconds <= 10 ? [] : [remaining]
        marks += stride(from: min(wholeSeconds, 10), through: 1, by: -1).map { $0 * second }
        return marks
    }
}

/// Which sound each event plays (docs/reference.md §4b): the segment's sound at each change, countdown pips before it,
/// the finish sound at the end; a pause, a stop or a skip cuts what is playing.
public enum CueSounds {
    public static func actions(for moment: WorkoutMoment, settings: SoundSettings) -> AudibleActions {
        switch moment.event {
        case .segmentStarted(let segment, _):
            return AudibleActions(cut: true, cues: [TimedCue(settings.sound(for: segment), delay: 0)])
        case .countdown(_, _, let remaining):
            let untilChange = moment.nextChange.map { $0 - moment.now } ?? remaining
            let pip = settings.sound(for: .countdown)
            return AudibleActions(
                cut: false,
                cues: CountdownMarks.before(change: remaining).map { TimedCue(pip, delay: max(untilChange - $0, 0)) })
        case .finished:
            return AudibleActions(cut: true, cues: [TimedCue(settings.sound(for: .finish), delay: 0)])
        case .paused, .stopped:
            return AudibleActions(cut: true, cues: [])
        case .resumed:
            return AudibleActions(cut: false, cues: [])
        }
    }
}

/// What the voice says (docs/reference.md §4b): "Run, 30 seconds" landing on each change, "three, two, one" with a
/// countdown, "Workout done, 40 minutes" at the end, and, if asked, "Halfway, 2 minutes left" in the middle of long
/// segments. Each phrase is timed for the change it announces, so the output that speaks can start it early by speech's
/// own latency; a change that comes early (a skip) is said at once.
///
/// Keeps which change it has already timed a phrase for; confined to the session's queue like every output.
public struct SpokenCues: Sendable {
    /// What has been timed: the segment's index (or -1 for the finish) and the instant it was timed for.
    private var announced: (index: Int64, at: ClockInstant)?
    /// A change this close to the instant its phrase was timed for is the timed one, not an early one.
    private static let onTimeSlack: Int64 = 500_000
    private static let finishIndex: Int64 = -1
    /// The shortest segment whose halfway point is said.
    public static let halfwayMinimum: Int64 = 2 * 60_000_000
    private let halfway: Bool

    /// - Parameter halfway: also say the halfway point of segments of at least ``halfwayMinimum``.
    public init(halfway: Bool = false) {
        self.halfway = halfway
    }

    public mutating func actions(for moment: WorkoutMoment) -> AudibleActions {
        switch moment.event {
        case .segmentStarted(let segment, let next):
            var cues: [TimedCue] = []
            var cut = false
            if !wasTimed(segment.index, moment) {
                cut = true
                cues.append(TimedCue(Self.phrase(segment), delay: 0))
            }
            cues += timeHalfway(segment, moment)
            cues += timeNext(after: next, plan: moment.plan, moment)
            return AudibleActions(cut: cut, cues: cues)
        case .countdown(_, _, let remaining):
            let untilChange = moment.nextChange.map { $0 - moment.now } ?? remaining
            let counts = CountdownMarks.before(change: remaining).filter { $0 % 1_000_000 == 0 && $0 <= 10_000_000 }.map
            {
                TimedCue(Self.number($0 / 1_000_000), delay: max(untilChange - $0, 0))
            }
            return AudibleActions(cut: false, cues: counts)
        case .resumed(let segment):
            return AudibleActions(
                cut: false,
                cues: timeHalfway(segment, moment)
                    + timeNext(after: moment.plan.segment(after: segment), plan: moment.plan, moment))
        case .paused, .stopped:
            announced = nil
            return AudibleActions(cut: true, cues: [])
        case .finished:
            let timed = wasTimed(Self.finishIndex, moment)
            announced = nil
            return timed
                ? AudibleActions(cut: false, cues: [])
                : AudibleActions(
                    cut: true, cues: [TimedCue(Self.summary(moment.plan, program: moment.workout.program), delay: 0)])
        }
    }

    private func wasTimed(_ index: Int64, _ moment: WorkoutMoment) -> Bool {
        guard let announced, announced.index == index else { return false }
        return moment.now + Self.onTimeSlack >= announced.at
    }

    /// "Halfway, 2 minutes left" in the middle of a long segment, when asked for and still ahead.
    private func timeHalfway(_ segment: Segment, _ moment: WorkoutMoment) -> [TimedCue] {
        guard halfway, segment.duration >= Self.halfwayMinimum, let start = moment.planStart else { return [] }
        let delay = start + segment.start + segment.duration / 2 - moment.now
        guard delay > 0 else { return [] }
        return [
            TimedCue(
                tr("Halfway, {time} left", ["time": Self.words(microseconds: segment.duration - segment.duration / 2)]),
                delay: delay)
        ]
    }

    /// Times the phrase of the change that ends the current segment: the next segment's, or the summary.
    private mutating func timeNext(after next: Segment?, plan: Plan, _ moment: WorkoutMoment) -> [TimedCue] {
        guard let change = moment.nextChange else { return [] }
        announced = (next?.index ?? Self.finishIndex, change)
        return [
            TimedCue(
                next.map(Self.phrase) ?? Self.summary(plan, program: moment.workout.program),
                delay: max(change - moment.now, 0))
        ]
    }

    /// ``actions(for:)``, with each phrase's English beside it: what a voice says where none of the user's language is
    /// installed (docs/reference.md §9). The English pass replays the moment on a copy, so each moment is timed once;
    /// phrases that are English already are not rendered again.
    public mutating func actionsWithEnglish(for moment: WorkoutMoment) -> (actions: AudibleActions, english: [String]) {
        var replay = self
        let actions = actions(for: moment)
        guard !actions.cues.isEmpty, Localization.language != "en" else {
            return (actions, actions.cues.map(\.text))
        }
        let english = Localization.inEnglish { replay.actions(for: moment) }
        return (actions, english.cues.map(\.text))
    }

    /// Whether a synthesizer whose voices speak `voiceLanguages` ("de", "fr-FR", "es-419", as speech-dispatcher lists
    /// them) has one for `language` ("de", "de_AT", "pt-BR"): the primary language subtags compare, case-insensitively.
    /// A synthesizer that lists no voice at all is not taken to lack one.
    public static func hasVoice(for language: String, among voiceLanguages: [String]) -> Bool {
        guard !voiceLanguages.isEmpty else { return true }
        let wanted = primarySubtag(language)
        return !wanted.isEmpty && voiceLanguages.contains { primarySubtag($0) == wanted }
    }

    /// "de" of "de-AT", "pt" of "pt_BR", lowercased.
    public static func primarySubtag(_ tag: String) -> String {
        String(tag.lowercased().prefix { $0 != "-" && $0 != "_" })
    }

    /// "Run, 30 seconds"; a step the person ends: "Run, 0.4 km", or "Warm up, until you are ready".
    public static func phrase(_ segment: Segment) -> String {
        guard segment.isOpen else { return phrase(label: segment.label, microseconds: segment.duration) }
        let current = Localization.label(segment.label)
        guard let metres = segment.distance else { return tr("{current}, until you are ready", ["current": current]) }
        return tr("{current}, {distance}", ["current": current, "distance": PlanReport.shortDistanceText(metres)])
    }

    /// "Run, 30 seconds" for a step's label and length; a common label in the user's language.
    public static func phrase(label: String, microseconds: Int64) -> String {
        tr("{current}, {time}", ["current": Localization.label(label), "time": words(microseconds: microseconds)])
    }

    /// "Workout done, 40 minutes"
    /// "Workout done, 30 minutes", and for a program's day what comes next.
    public static func summary(_ plan: Plan, program: ProgramDayReference? = nil) -> String {
        let done = tr("Workout done, {time}", ["time": words(microseconds: plan.duration)])
        guard let program else { return done }
        return "\(done). \(program.whatIsNext)"
    }

    /// "30 seconds", "1 minute 30 seconds", "250 milliseconds": ``TimeText/spoken(microseconds:)`` in words.
    public static func words(microseconds: Int64) -> String {
        let parts = TimeText.spoken(microseconds: microseconds).split(separator: " ")
        return stride(from: 0, to: parts.count - 1, by: 2).map { index in
            let value = String(parts[index])
            // A fraction ("1,5 s") is said with the plural.
            let count = Int(value) ?? 2
            switch parts[index + 1] {
            case "h": return trn("{count} hour", "{count} hours", count, ["count": value])
            case "min": return trn("{count} minute", "{count} minutes", count, ["count": value])
            case "ms": return trn("{count} millisecond", "{count} milliseconds", count, ["count": value])
            default: return trn("{count} second", "{count} seconds", count, ["count": value])
            }
        }.joined(separator: " ")
    }

    /// "three"
    public static func number(_ value: Int64) -> String {
        let names = [
            tr("zero"), tr("one"), tr("two"), tr("three"), tr("four"), tr("five"), tr("six"), tr("seven"), tr("eight"),
            tr("nine"), tr("ten"),
        ]
        return value >= 0 && value < names.count ? names[Int(value)] : "\(value)"
    }
}

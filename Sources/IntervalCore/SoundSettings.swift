/// What the daemon plays and says itself (docs/reference.md §4b), whatever the notification server does.
public struct SoundSettings: Sendable, Equatable {
    /// Play cue sounds at all.
    public var enabled = true
    /// The sound of each cue: a sound theme event id (`"bell"`) or a file (any value with a `/`).
    public var sounds = SoundCue.defaultSounds
    /// Sounds for particular kinds of segment, over the work or rest sound.
    public var kindSounds: [String: String] = [:]
    /// The kinds that are rest (a change to them plays the `rest` sound); every other kind is work.
    public var restKinds = SoundSettings.defaultRestKinds
    /// Loudness in percent of the sound's own, 1–100.
    public var volume = 100
    /// Speak each change through speech-dispatcher.
    public var voice = false
    /// The voice's language (an IETF tag such as "en" or "de"), or nil for the language the phrases are in.
    public var voiceLanguage: String?
    /// Speech rate from -100 (slowest) to 100, 0 being speech-dispatcher's default.
    public var voiceRate = 0
    /// Also say "Halfway" in the middle of segments of at least ``SpokenCues/halfwayMinimum``.
    public var voiceHalfway = false
    /// How loud the other playback streams are while a cue sounds or speaks, in percent of their loudness; 100 turns
    /// ducking off (docs/reference.md §11).
    public var duck = 30
    /// Only the spoken phrases lower the music, not the cue sounds.
    public var duckVoiceOnly = false

    /// The defaults; the settings file changes them one by one.
    public init() {}

    public static let defaults = SoundSettings()
    public static let defaultRestKinds = Set(defaultRestKindsInOrder)
    /// ``defaultRestKinds`` in the order the settings file and its docs list them.
    public static let defaultRestKindsInOrder = ["walk", "rest", "recover", "recovery", "cooldown", "warmup"]

    /// The sound played when `segment` begins: its kind's own, else the work or the rest sound.
    public func sound(for segment: Segment) -> String {
        if let own = kindSounds[segment.kind] { return own }
        return sound(for: restKinds.contains(segment.kind) ? .rest : .work)
    }

    public func sound(for cue: SoundCue) -> String {
        sounds[cue] ?? cue.defaultSound
    }

    /// Whether cue sounds lower the music.
    public var soundsDuck: Bool { enabled && duck < 100 && !duckVoiceOnly }
    /// Whether spoken phrases lower the music.
    public var voiceDucks: Bool { voice && duck < 100 }

    /// Every sound a workout can play, each once: what to load ahead so that the first cue starts at once.
    public var allSounds: [String] {
        var seen = Set<String>()
        return (SoundCue.allCases.map { sound(for: $0) } + kindSounds.keys.sorted().compactMap { kindSounds[$0] })
            .filter { seen.insert($0).inserted }
    }
}

/// The kinds of cue that have a sound of their own.
public enum SoundCue: String, Sendable, CaseIterable, Hashable {
    /// A change to a work segment (run, work, sprint…).
    case work
    /// A change to a rest segment (walk, rest…).
    case rest
    /// One pip of the countdown before a change.
    case countdown
    /// The end of the plan.
    case finish

    /// What the cue is, for the settings' docs.
    public var doc: String {
        switch self {
        case .work: "The sound of a change to a work segment (run, work, sprint, …)."
        case .rest: "The sound of a change to one of `rest-kinds`."
        case .countdown: "Each pip of the countdown before a change."
        case .finish: "The end of the plan."
        }
    }

    /// The cue's name in Preferences, untranslated.
    public var title: String { titles.cue }

    /// The name of the cue's own sound in Preferences, untranslated.
    public var soundTitle: String { titles.sound }

    private var titles: (cue: String, sound: String) {
        switch self {
        case .work: (trLater("Sound of a change to work"), trLater("Work tone"))
        case .rest: (trLater("Sound of a change to rest"), trLater("Rest tone"))
        case .countdown: (trLater("Countdown pip"), trLater("Pip"))
        case .finish: (trLater("Sound of the finish"), trLater("Finish chime"))
        }
    }

    /// intervald's own sounds, a sound theme of their own (`config/sounds/intervald`, CC0).
    public var defaultSound: String { "intervald-\(rawValue)" }

    /// A freedesktop theme sound to play when intervald's own theme is not installed.
    public var freedesktopFallback: String {
        switch self {
        case .work: "bell"
        case .rest: "message"
        case .countdown: "audio-volume-change"
        case .finish: "complete"
        }
    }

    public static let defaultSounds = Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.defaultSound) })

    /// The cue whose default `sound` is, if it is one.
    public static func ofDefaultSound(_ sound: String) -> SoundCue? {
        allCases.first { $0.defaultSound == sound }
    }
}

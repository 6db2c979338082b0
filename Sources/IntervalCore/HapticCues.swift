/// Which feedbackd event each cue asks for (docs/reference.md §4d): the same moments as the cue sounds (a change, each
/// countdown pip, the finish; a pause, a stop or a skip ends what still plays), under names of feedbackd's event-naming
/// spec that its default theme makes distinct to the touch. Its "quiet" profile (vibration, no sound) plays:
/// - work: `message-new-sms`, two rumbles of 500 ms, 100 ms apart: the long "go";
/// - rest: `message-new-instant`, one rumble of 150 ms: the short "ease off";
/// - a pip: `button-pressed`, a 15 ms tick, as a key press feels;
/// - the finish: `alarm-clock-elapsed`, a vibration swelling for 10 s, the longest: a timer has gone off.
/// (`timeout-completed` would say "a timer ran out" too, but is a 100 ms rumble there, shorter than a change.)
public enum HapticCues {
    /// The event of each cue.
    public static let events: [SoundCue: String] = [
        .work: "message-new-sms", .rest: "message-new-instant", .countdown: "button-pressed",
        .finish: "alarm-clock-elapsed",
    ]

    /// The cue sounds' settings with the events in place of the sounds and `restKinds` as what is rest: with
    /// ``CueSounds``, what to ask for at each moment, so that a tap and its sound never disagree on what is rest or
    /// when a pip is due.
    public static func asSounds(restKinds: Set<String>) -> SoundSettings {
        var settings = SoundSettings()
        settings.sounds = events
        settings.restKinds = restKinds
        return settings
    }
}

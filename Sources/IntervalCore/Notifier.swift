/// A button on the workout's notification; the raw value is the action key sent to the server.
public enum NotificationAction: String, Sendable, Equatable, CaseIterable, Codable {
    /// `done` is Skip in a step the person ends (docs/plan-language.md), where it is what ends it.
    case stop, pause, resume, skip, done

    /// The button's label as the user reads it.
    public var label: String {
        switch self {
        case .stop: tr("Stop")
        case .pause: tr("Pause")
        case .resume: tr("Resume")
        case .skip: tr("Skip")
        // TRANSLATORS: the button that ends a step the person ends ("warm up until ready"), where Skip would be.
        case .done: tr("Done")
        }
    }
}

/// The urgency hint of the freedesktop notification specification.
public enum NotificationUrgency: String, Sendable, Equatable, Codable {
    case low, normal, critical
}

/// Everything one showing of the workout's notification says. Built by the core, drawn by an adapter.
public struct WorkoutNotification: Sendable, Equatable {
    /// "Run · 30 s"
    public var summary: String
    /// "Next: Walk 30 s · round 3 of 6"
    public var body: String
    /// Buttons, in order. Empty for the finish summary.
    public var actions: [NotificationAction]
    public var urgency: NotificationUrgency
    /// The `sound-name` hint, or nil for silence.
    public var soundName: String?
    /// Appended to the body instead of drawing buttons when the server lacks the `actions` capability.
    public var noActionsHint: String
    /// The `suppress-sound` hint: the process plays the cue's sound itself.
    public var suppressSound = false

    public init(
        summary: String, body: String, actions: [NotificationAction], urgency: NotificationUrgency,
        soundName: String?, noActionsHint: String = tr("Run 'intervalctl stop' to end it.")
    ) {
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.soundName = soundName
        self.noActionsHint = noActionsHint
    }
}

/// Shows one workout as one notification that each call replaces in place.
///
/// Calls come from the scheduler's owner and must not block it: adapters hand the work to their own thread.
/// A missing or restarting notification server is the adapter's to absorb (log once, deliver again later);
/// it never fails the workout.
public protocol Notifier: AnyObject, Sendable {
    /// Shows `notification`, replacing the workout's previous one.
    func show(_ notification: WorkoutNotification)
    /// Closes the workout's notification, if one is shown.
    func close()
}

import IntervalCore

/// What ``AwakeOutput`` asks of the desktop's suspend inhibitor: ``SuspendInhibitor``, or a test's recorder.
public protocol SuspendInhibiting: AnyObject {
    /// Takes the inhibitor unless it is held or asked for; `reason` is worded only when it is asked for.
    func hold(reason: @autoclosure () -> String)
    func release()
    /// The interface holding it now, if any.
    var holder: SuspendInhibitor.Interface? { get }
}

/// What ``AwakeOutput`` asks of logind's sleep delay: ``SleepWatcher``, or a test's recorder.
public protocol SleepDelaying: AnyObject {
    /// Takes the delay unless it is held or asked for; `why` is worded only when it is asked for.
    func holdDelay(why: @autoclosure () -> String)
    func releaseDelay()
    var isDelaying: Bool { get }
}

extension SuspendInhibitor: SuspendInhibiting {}

extension SleepWatcher: SleepDelaying {}

/// Keeps a workout going through the computer's power management (docs/reference.md §6), as an output of the daemon's
/// session: from a workout's first event to its end, running or paused, the desktop's suspend inhibitor
/// (``SuspendInhibitor``) and, with `on-sleep = "pause"`, logind's sleep delay (``SleepWatcher``), so that a sleep that
/// comes anyway pauses the workout first. Nothing is held while no workout exists.
public final class AwakeOutput: WorkoutOutput {
    private let inhibitor: (any SuspendInhibiting)?
    private let sleep: (any SleepDelaying)?
    /// `[timing] on-sleep`; the daemon hands the output the workout again (``WorkoutSession/catchUp(_:)``) when it
    /// changes.
    public var onSleep: Settings.SleepPolicy

    public init(inhibitor: (any SuspendInhibiting)?, sleep: (any SleepDelaying)?, onSleep: Settings.SleepPolicy) {
        (self.inhibitor, self.sleep, self.onSleep) = (inhibitor, sleep, onSleep)
    }

    public func handle(_ moment: WorkoutMoment) {
        switch moment.event {
        case .finished, .stopped:
            inhibitor?.release()
            sleep?.releaseDelay()
        case .segmentStarted, .countdown, .paused, .resumed:
            inhibitor?.hold(reason: tr("Interval Timer: {plan} is running", ["plan": moment.plan.name]))
            switch onSleep {
            case .pause: sleep?.holdDelay(why: tr("A sleep pauses the workout first"))
            case .keepRunning: sleep?.releaseDelay()
            }
        }
    }

    /// What `Inhibited` says (``TimerStatus/inhibited``).
    public var inhibited: String {
        [inhibitor?.holder?.rawValue, sleep?.isDelaying == true ? "logind" : nil].compactMap { $0 }.joined(
            separator: " ")
    }
}

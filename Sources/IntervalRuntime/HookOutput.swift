import IntervalCore
import Logging

/// Runs the settings' hooks (docs/reference.md §4a) as an output of the daemon's ``WorkoutSession``: `on-cue` at every
/// segment start, `on-finish` at the end of the plan, `on-stop` when the workout is stopped.
public final class HookOutput: WorkoutOutput {
    /// The commands; set anew (a reload), they run from the next event on.
    public var hooks: Settings.Hooks
    private let runner: any HookLaunching
    /// The segment playing, for the `on-stop` hook's variables.
    private var current: Segment?

    /// Logs, once, each spelling of an earlier release that a hook still uses (``HookEvent/deprecated``).
    public init(hooks: Settings.Hooks, runner: any HookLaunching, logger: Logger) {
        self.hooks = hooks
        self.runner = runner
        for (name, argv) in [("on-cue", hooks.onCue), ("on-finish", hooks.onFinish), ("on-stop", hooks.onStop)] {
            for change in HookEvent.deprecations(in: argv ?? []) {
                logger.warning("A hook uses a deprecated field.", metadata: ["hook": "\(name)", "change": "\(change)"])
            }
        }
    }

    public func handle(_ moment: WorkoutMoment) {
        let plan = moment.plan
        switch moment.event {
        case .segmentStarted(let segment, let next):
            current = segment
            run(hooks.onCue, HookEvent(kind: .cue, plan: plan, segment: segment, next: next))
        case .finished:
            current = nil
            run(hooks.onFinish, HookEvent(kind: .finish, plan: plan))
        case .stopped(let reason):
            run(hooks.onStop, HookEvent(kind: .stop, plan: plan, segment: current, reason: reason))
            current = nil
        case .countdown, .paused, .resumed:
            break
        }
    }

    private func run(_ argv: [String]?, _ event: HookEvent) {
        if let argv { runner.run(argv, for: event) }
    }
}

import ArgumentParser
import Dispatch
import FoundationEssentials
import IntervalCore
import IntervalNotify
import IntervalRuntime
import Logging

#if canImport(Glibc)
    import Glibc
#endif

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan in the foreground, without the daemon: terminal progress and notifications with Stop.",
        discussion: "Ctrl-C or the notification's Stop button ends the workout; both exit 0 and say how it ended."
    )

    @OptionGroup var input: PlanInput

    @Flag(help: "Show no desktop notifications, only terminal progress.")
    var noNotifications = false

    @Flag(help: "Play no sound with the cues.")
    var silent = false

    func run() throws {
        let plan = try input.load().plan
        let logger = Logger(label: "intervalctl")
        let style = CueStyle(soundName: silent ? nil : "bell", extraButtons: [.pause, .skip])
        let workout = EmbeddedWorkout(plan: plan, style: style, notifications: !noNotifications, logger: logger)
        let outcome = workout.runToEnd()
        Console.print(outcome)
    }
}

/// One workout run in this process: the scheduler on a private serial queue, cues through libnotify on the GLib
/// thread, Ctrl-C and the Stop button feeding back into the queue.
final class EmbeddedWorkout: @unchecked Sendable {
    private let queue = DispatchQueue(label: "intervalctl.run")
    private let plan: Plan
    private let style: CueStyle
    private let logger: Logger
    private let progress: TerminalProgress
    private let done = DispatchSemaphore(value: 0)
    // Confined to `queue` from here on.
    private var scheduler: Scheduler?
    private var notifier: LibNotifyNotifier?
    private var signals: SignalWatcher?
    private var refresh: DispatchSourceTimer?
    private var outcome = ""

    init(plan: Plan, style: CueStyle, notifications: Bool, logger: Logger) {
        self.plan = plan
        self.style = style
        self.logger = logger
        progress = TerminalProgress(plan: plan, interactive: isatty(STDOUT_FILENO) == 1)
        if notifications {
            let queue = self.queue
            notifier = LibNotifyNotifier(appName: "intervald", logger: logger) { [weak self] action in
                guard let workout = self else { return }
                queue.async { workout.handle(action) }
            }
        }
    }

    /// Runs the plan to its end or until stopped; returns the closing sentence.
    func runToEnd() -> String {
        queue.async { self.begin() }
        done.wait()
        // Let the GLib thread deliver the last notification (the summary, or the close) before the process exits.
        if notifier != nil { GLibMainLoopThread.shutdownShared() }
        return outcome
    }

    private func begin() {
        let timer = DispatchTimerSource(queue: queue)
        let scheduler = Scheduler(plan: plan, timer: timer) { [weak self] event in self?.handle(event) }
        self.scheduler = scheduler
        signals = SignalWatcher([SIGINT, SIGTERM], queue: queue) { [weak self] number in
            self?.scheduler?.stop(number == SIGINT ? .user : .shutdown)
        }
        if progress.interactive {
            let refresh = DispatchSource.makeTimerSource(queue: queue)
            refresh.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            refresh.setEventHandler { [weak self] in self?.redraw() }
            refresh.activate()
            self.refresh = refresh
        }
        progress.begin()
        scheduler.start()
    }

    private func handle(_ action: NotificationAction) {
        do {
            try scheduler?.perform(action)
        } catch {
            logger.info("Ignoring the \(action.label) button: \(error.message)")
        }
    }

    private func handle(_ event: SchedulerEvent) {
        notifier?.present(event, plan: plan, style: style)
        let elapsed = scheduler?.elapsed ?? 0
        progress.record(event, elapsed: elapsed)
        switch event {
        case .finished:
            end("Finished \(plan.name) in \(TimeText.clock(microseconds: plan.duration)).")
        case .stopped(let reason):
            let how = switch reason {
            case .notification: "from the notification"
            case .user: "with Ctrl-C"
            case .shutdown: "by SIGTERM"
            case .replaced: "(replaced)"
            }
            end("Stopped \(how) after \(TimeText.clock(microseconds: elapsed)) of \(TimeText.clock(microseconds: plan.duration)).")
        default:
            redraw()
        }
    }

    private func redraw() {
        guard let scheduler, scheduler.state != .idle, let segment = scheduler.current else { return }
        progress.redraw(segment: segment, elapsed: scheduler.elapsed, paused: scheduler.state == .paused)
    }

    private func end(_ sentence: String) {
        refresh?.cancel()
        refresh = nil
        signals = nil
        progress.finish()
        outcome = sentence
        done.signal()
    }
}

import ArgumentParser
import Dispatch
import IntervalBus
import IntervalCore
import IntervalNotify
import IntervalRuntime
import IntervalSound
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

    @Flag(help: "Speak each change, the countdown and the summary (through speech-dispatcher).")
    var voice = false

    func run() throws {
        // First: Ctrl-C or SIGTERM from here on ends the workout cleanly, however early it comes.
        let signals = try SignalWatcher.catching([SIGINT, SIGTERM])
        let plan = try input.load().plan
        let logger = Logger(label: "intervalctl")
        let sound = SoundSettings(enabled: !silent, voice: voice)
        let style = CueStyle(soundName: nil, extraButtons: [.pause, .skip]).playingSoundItself(!silent)
        let workout = EmbeddedWorkout(
            plan: plan, style: style, sound: sound, notifications: !noNotifications, signals: signals, logger: logger)
        Console.print(workout.runToEnd())
    }
}

/// One workout run in this process: a ``WorkoutSession`` on a private serial queue whose outputs are the
/// notification and the terminal; Ctrl-C feeds back into the queue.
final class EmbeddedWorkout: @unchecked Sendable {
    private let queue = DispatchQueue(label: "intervalctl.run")
    private let plan: Plan
    private let done = DispatchSemaphore(value: 0)
    // Confined to `queue` from here on.
    private let session: WorkoutSession
    private let progress: TerminalProgress
    private let sound: SoundOutput
    private let signals: SignalWatcher
    private var refresh: DispatchSourceTimer?
    private var outcome = ""

    /// - Parameter signals: SIGINT and SIGTERM, caught since the command began.
    init(
        plan: Plan, style: CueStyle, sound: SoundSettings, notifications: Bool, signals: SignalWatcher, logger: Logger
    ) {
        self.plan = plan
        self.signals = signals
        session = WorkoutSession(timer: DispatchTimerSource(queue: queue), wallClock: WallClock.microseconds)
        progress = TerminalProgress(plan: plan, interactive: isatty(STDOUT_FILENO) == 1)
        var outputs: [any WorkoutOutput] = []
        // Media keys and headset buttons work without the daemon too, beside it (spec §8); no session bus, no player.
        do {
            outputs.append(try MediaPlayerOutput.openOwnConnection(queue: queue, session: session, logger: logger))
        } catch {
            logger.debug("No media player: the session bus is out of reach.", metadata: ["error": "\(error)"])
        }
        if notifications {
            outputs.append(NotificationOutput(style: style, session: session, queue: queue, logger: logger))
        }
        self.sound = SoundOutput(settings: sound, logger: logger)
        outputs.append(self.sound)
        outputs.append(progress)
        session.outputs = outputs
        progress.onEnd = { [unowned self] sentence in end(sentence) }
    }

    /// Runs the plan to its end or until stopped; returns the closing sentence.
    func runToEnd() -> String {
        queue.async { self.begin() }
        done.wait()
        sound.flush()  // The finish sound and the summary play on in the audio server after the process exits.
        // Let the GLib thread deliver the last notification (the summary, or the close) before the process exits.
        GLibMainLoopThread.shutdownShared()
        return outcome
    }

    private func begin() {
        signals.watch(on: queue) { [weak self] number in
            self?.session.stop(number == SIGINT ? .user : .shutdown)
        }
        if progress.interactive {
            let refresh = DispatchSource.makeTimerSource(queue: queue)
            refresh.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            refresh.setEventHandler { [weak self] in self?.redraw() }
            refresh.activate()
            self.refresh = refresh
        }
        progress.begin()
        do {
            try session.start(plan, replace: false)
        } catch {
            end("\(error)")
        }
    }

    private func redraw() {
        guard let scheduler = session.scheduler, scheduler.state != .idle, let segment = scheduler.current else {
            return
        }
        progress.redraw(segment: segment, elapsed: scheduler.elapsed, paused: scheduler.state == .paused)
    }

    private func end(_ sentence: String) {
        refresh?.cancel()
        refresh = nil
        signals.stopWatching()
        progress.finish()
        outcome = sentence
        done.signal()
    }
}

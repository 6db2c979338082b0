import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import IntervalBus
import IntervalCore
import IntervalCtlCommon
import IntervalNotify
import IntervalRuntime
import IntervalSettings
import IntervalSound
import Logging

/// The desktop commands, run in this process.
enum InProcess: DesktopCommandPerformer {
    static func run(_ command: RunCommand<Self>) throws {
        // First: Ctrl-C or SIGTERM from here on ends the workout cleanly, however early it comes.
        let signals = try SignalWatcher.catching([SIGINT, SIGTERM])
        SpeechVoice.tagSpeechServiceStreams()
        let loaded = try command.input.load()
        let logger = Logger(label: "intervalctl")
        let paths = XDGPaths(environment: ProcessInfo.processInfo.environment)
        var (settings, problems) = SettingsFile.load(path: command.config ?? paths.settingsFile)
        for problem in problems { Console.error("intervalctl: \(problem)\n") }
        if command.silent { settings.sound.enabled = false }
        if command.voice { settings.sound.voice = true }
        let workout = EmbeddedWorkout(
            plan: loaded.plan, text: loaded.source.text, origin: loaded.recordedOrigin, settings: settings,
            notifications: !command.noNotifications, history: StateStore(directory: paths.stateDirectory),
            signals: signals,
            logger: logger)
        Console.print(workout.runToEnd())
    }
}

/// One workout run in this process: a ``WorkoutSession`` on a private serial queue with the outputs this process offers
/// (the media player on a connection of its own, the sound, the terminal, the notification, the history, the hooks),
/// in the daemon's order (``SessionOutputs``); Ctrl-C feeds back into the queue.
///
/// It records the workout in the history as the daemon does (docs/reference.md §5), so that a run in the foreground is
/// counted and exported too.
final class EmbeddedWorkout: @unchecked Sendable {
    private let queue = DispatchQueue(label: "intervalctl.run")
    private let plan: Plan
    private let text: String
    private let origin: String
    private let done = DispatchSemaphore(value: 0)
    /// Writes the history record, off `queue`.
    private let recordWriter: RecordWriter
    // Confined to `queue` from here on.
    private let session: WorkoutSession
    private let progress: TerminalProgress
    private let sound: SoundOutput
    private let feedback: FeedbackdClient?
    private let deferred: DeferredOutputs
    private let signals: SignalWatcher
    private var refresh: DispatchSourceTimer?
    /// The terminal's lines: Enter ends a step the person ends.
    private var keyboard: DispatchSourceRead?
    private var outcome = ""

    /// - Parameters:
    ///   - text, origin: what the plan was read from, for its history record ("" for a one-line plan's origin).
    ///   - history: where the workout is recorded when it ends.
    ///   - signals: SIGINT and SIGTERM, caught since the command began.
    init(
        plan: Plan, text: String, origin: String, settings: Settings, notifications: Bool, history: StateStore,
        signals: SignalWatcher, logger: Logger
    ) {
        (self.plan, self.text, self.origin) = (plan, text, origin)
        self.signals = signals
        recordWriter = RecordWriter(logger: logger)
        session = WorkoutSession(timer: DispatchTimerSource(queue: queue), wallClock: WallClock.microseconds)
        session.defaultCountdown = settings.defaultCountdown
        progress = TerminalProgress(plan: plan, interactive: isatty(STDOUT_FILENO) == 1)
        sound = SoundOutput(settings: settings.sound, logger: logger)
        var outputs = SessionOutputs()
        // Media keys and headset buttons work without the daemon too, beside it (docs/reference.md §8); no session bus,
        // no player.
        do {
            outputs[.mediaPlayer] = try MediaPlayerOutput.openOwnConnection(
                queue: queue, session: session, logger: logger)
        } catch {
            logger.debug("No media player: the session bus is out of reach.", metadata: ["error": "\(error)"])
        }
        outputs[.sound] = sound
        var feedback: FeedbackdClient?
        outputs[.haptics] = FeedbackOutput.forSettings(settings) {
            let client = FeedbackdClient(logger: logger)
            feedback = client
            return client
        }
        self.feedback = feedback
        outputs[.terminal] = progress
        if notifications {
            outputs[.notification] = NotificationOutput(
                style: settings.notificationStyle, session: session, queue: queue, logger: logger)
        }
        outputs[.history] = HistoryOutput(store: history, writer: recordWriter)
        outputs[.hooks] = HookOutput(hooks: settings.hooks, runner: HookRunner(logger: logger), logger: logger)
        let assembled = outputs.assemble(on: queue)
        deferred = assembled.deferred
        session.outputs = assembled.outputs
        progress.onEnd = { [unowned self] sentence in end(sentence) }
    }

    /// Runs the plan to its end or until stopped; returns the closing sentence.
    func runToEnd() -> String {
        queue.async { self.begin() }
        done.wait()
        // What waits for after the instant (the last notification, the last hook) is handed on before the exit.
        queue.sync { deferred.flush() }
        recordWriter.drain()
        sound.flush()  // The finish sound and the summary play on in the audio server after the process exits.
        // feedbackd ends an event's feedbacks when its client leaves: the finish's is asked for, and cut short.
        feedback?.flush()
        // But the music they lowered is put back by this process: it waits for them to end (docs/reference.md §11).
        sound.finishDucking(timeout: .seconds(10))
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
        if progress.interactive, isatty(STDIN_FILENO) == 1 { listenForEnter() }
        progress.begin()
        do {
            try session.start(plan, text: text, origin: origin, replace: false)
        } catch {
            end("\(error)")
        }
    }

    private func redraw() {
        guard let scheduler = session.scheduler, scheduler.state != .idle, let segment = scheduler.current else {
            return
        }
        progress.redraw(
            segment: segment, place: scheduler.place, elapsed: scheduler.elapsed, openPlayed: scheduler.openPlayed,
            paused: scheduler.state == .paused)
    }

    /// Each line typed (the terminal hands them over at Enter) ends a step the person ends; in a timed step it does
    /// nothing, so that a stray Enter skips no interval.
    private func listenForEnter() {
        let keyboard = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: queue)
        keyboard.setEventHandler { [weak self] in
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &bytes, bytes.count)
            guard let self else { return }
            guard count > 0 else {
                // End of input (Ctrl-D) or an error: no more lines will come.
                self.keyboard?.cancel()
                self.keyboard = nil
                return
            }
            if bytes[..<count].contains(UInt8(ascii: "\n")), self.session.scheduler?.isHolding == true {
                try? self.session.skip()
            }
        }
        keyboard.activate()
        self.keyboard = keyboard
    }

    private func end(_ sentence: String) {
        refresh?.cancel()
        refresh = nil
        keyboard?.cancel()
        keyboard = nil
        signals.stopWatching()
        progress.finish()
        outcome = sentence
        done.signal()
    }
}

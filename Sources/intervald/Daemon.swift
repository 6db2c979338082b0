import Dispatch
import Glibc
import IntervalBus
import IntervalCore
import IntervalNotify
import IntervalRuntime
import IntervalSettings
import IntervalSound
import Logging

/// The daemon: one serial queue owns the workout session, the bus connection and the watchdog; the session's outputs
/// announce every event (bus signals first, the media player and the sound at the instant, then, a moment after a
/// cue, properties, the notification, the tray item, the state file and the history, hooks, the watchdog, idle exit and
/// the log).
/// Plan text is parsed on a queue of its own, so that no caller can delay a cue.
final class Daemon: TimerBusDelegate, @unchecked Sendable {
    private let queue = DispatchQueue(label: "intervald.main", qos: .userInteractive)
    /// Above this, a plan's text is large enough that the heap is trimmed once it has been handled.
    private static let largePlanBytes = 256 << 10
    /// One parse at a time: a flood of large plans costs at most one core.
    private let parseQueue = DispatchQueue(label: "intervald.parse", qos: .utility)
    private let logger: Logger
    /// The settings file, read again at a reload (docs/reference.md §4c).
    private let settingsPath: String
    // Confined to `queue` once `start` has run, like everything below.
    private var settingsReading: SettingsReading
    private var settings: Settings { settingsReading.settings }
    private var settingsWatcher: DirectoryWatcher?
    private let store: StateStore
    /// Writes the state file and the history, in the order of events, off `queue` (each write `fsync`s).
    private let recordWriter: RecordWriter
    private let systemd = SystemdNotifier()
    // Confined to `queue` once `start` has run.
    private let session: WorkoutSession
    private var server: TimerBusServer?
    /// The outputs, kept to be put together again when a reload makes some of them anew.
    private var outputs = SessionOutputs()
    private var notification: NotificationOutput?
    private var sound: SoundOutput?
    private var haptics: FeedbackOutput?
    private var tray: TrayOutput?
    private var hooks: HookOutput?
    private var history: HistoryOutput?
    private var afterTheInstant: DeferredOutputs?
    private var idleExit: IdleExit?
    private let signals: SignalWatcher
    private var shuttingDown = false
    private var sleepWatcher: SleepWatcher?
    /// The suspend inhibitor and the sleep delay (docs/reference.md §6).
    private var awake: AwakeOutput?
    private var heartRate: HeartRateOutput?
    private var machine: MachineOutput?
    private let catalog: PlanCatalog
    private let programs: ProgramLedger
    private let reminders: ProgramReminders
    private var desktopLaunches: DesktopLaunches?
    private var desktopExport: DesktopLauncherExport?
    /// The desktop's messages through libnotify, made at the first one.
    private var desktopMessages: DesktopMessageNotifier?

    /// - Parameters:
    ///   - settings: what `settingsPath` held at start-up.
    ///   - signals: SIGTERM, SIGINT and SIGHUP, caught since the first line of `main`.
    init(logger: Logger, settings: SettingsReading, settingsPath: String, paths: XDGPaths, signals: SignalWatcher) {
        self.logger = logger
        self.signals = signals
        settingsReading = settings
        self.settingsPath = settingsPath
        store = StateStore(directory: paths.stateDirectory)
        catalog = PlanCatalog(locator: PlanLocator(paths: paths))
        programs = ProgramLedger(paths: paths)
        reminders = ProgramReminders(paths: paths)
        recordWriter = RecordWriter(logger: logger)
        session = WorkoutSession(timer: DispatchTimerSource(queue: queue), wallClock: WallClock.microseconds)
        session.defaultCountdown = settings.settings.defaultCountdown
    }

    /// Sets everything up, resumes a recorded workout, owns the bus name, and tells systemd it is ready.
    func start() throws {
        // A status bar or hook that went away must not kill the daemon with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // On the queue, so that no method call is served before the outputs are in place to announce it.
        try queue.sync {
            let server = try TimerBusServer.open(queue: queue, delegate: self, logger: logger) { [weak self] error in
                self?.logger.error("Lost the session bus, exiting.", metadata: ["error": "\(error)"])
                exitOnce(1)
            }
            self.server = server
            // A click on a cue's body opens the window (docs/reference.md §10).
            let notification = NotificationOutput(
                style: settings.notificationStyle, session: session, queue: queue, logger: logger,
                onOpen: { [weak server] in server?.openWindow() })
            let state = StateOutput(store: store, bootID: BootClock.bootID(), writer: recordWriter)
            notification.onServerID = { [weak state] id in state?.notificationShown(id: id) }
            let history = HistoryOutput(store: store, writer: recordWriter, programs: programs)
            // On the same connection and queue; a failure costs the media controls, never the workout.
            let mediaPlayer: MediaPlayerOutput?
            do {
                mediaPlayer = try MediaPlayerOutput(server: server, session: session, logger: logger)
            } catch {
                logger.warning("Failed to export the media player, ignoring.", metadata: ["error": "\(error)"])
                mediaPlayer = nil
            }
            exportDesktopLauncher(on: server)
            let idleExit = IdleExit(delay: settings.idleExit, timer: DispatchTimerSource(queue: queue)) {
                [weak self] in self?.exitIdle()
            }
            outputs[.busSignals] = BusAnnouncer(server: server, logger: logger)
            outputs[.mediaPlayer] = mediaPlayer
            let sound = soundOutput()
            outputs[.sound] = sound
            self.sound = sound
            haptics = hapticsOutput()
            outputs[.haptics] = haptics
            outputs[.busProperties] = BusPropertyAnnouncer(server: server, logger: logger)
            outputs[.notification] = notification
            tray = trayItem(on: server)
            outputs[.tray] = tray
            outputs[.state] = state
            outputs[.history] = history
            let hooks = HookOutput(hooks: settings.hooks, runner: HookRunner(logger: logger), logger: logger)
            outputs[.hooks] = hooks
            self.hooks = hooks
            outputs[.watchdog] = Watchdog(queue: queue, systemd: systemd, logger: logger)
            outputs[.idleExit] = idleExit
            outputs[.log] = WorkoutLog(logger: logger)
            outputs[.memory] = MemorySettler(queue: queue, trimQueue: parseQueue)
            sleepWatcher = SleepWatcher.start(
                queue: queue, logger: logger, onSleep: { [weak self] in self?.computerSleeps() },
                onWake: { [weak self] slept in self?.computerWoke(slept: slept) },
                onChange: { [weak self] in self?.announceInhibited() })
            let awake = AwakeOutput(
                inhibitor: SuspendInhibitor(server: server, logger: logger) { [weak self] in self?.announceInhibited()
                },
                sleep: sleepWatcher, onSleep: settings.onSleep)
            outputs[.awake] = awake
            self.awake = awake
            let heartRate = HeartRateOutput(
                address: settings.sensors.heartRate, session: session, queue: queue, server: server, logger: logger
            ) { [weak self] sentence in
                self?.showDesktopMessage(DesktopMessage(summary: tr("Heart-rate strap"), body: sentence))
            }
            outputs[.heartRate] = heartRate
            self.heartRate = heartRate
            let machine = MachineOutput(
                address: settings.sensors.machine, ceilings: settings.machineCeilings,
                properties: TimerProperty.machineProperties.map(\.name), session: session,
                queue: queue, server: server, logger: logger
            ) { [weak self] sentence in
                self?.showDesktopMessage(DesktopMessage(summary: tr("Fitness machine"), body: sentence))
            }
            outputs[.machine] = machine
            self.machine = machine
            session.onHeartRateCue = { [weak self] cue in self?.give(cue) }
            assembleOutputs()
            self.notification = notification
            self.history = history
            self.idleExit = idleExit
            // A signal that came during set-up has waited in the watcher; it is handled once this block is done.
            signals.watch(on: queue) { [weak self] signal in
                if signal == SIGHUP {
                    self?.reloadSettings(because: "SIGHUP")
                } else {
                    self?.shutDown()
                }
            }
            watchSettingsFile()
            resumeRecordedWorkout()
            idleExit.rearm()
        }
        logger.info("Serving on the session bus.", metadata: ["name": "\(BusNames.service)"])
        // What start-up ran (the command line, the settings, each output's set-up) does not run again in a workout:
        // its pages of code are given back (``MemorySettler`` does the same after a workout's start and end).
        ResidentCode.release()
        notifySystemd { try systemd.ready() }
    }

    /// The desktop entry's activation, GNOME Shell's search provider and KRunner's runner (docs/reference.md §8), on
    /// the same connection; a failure costs those, never the workout.
    private func exportDesktopLauncher(on server: TimerBusServer) {
        let launches = DesktopLaunches(
            queue: queue, parseQueue: parseQueue, catalog: catalog, programs: programs, store: store, logger: logger,
            start: { [weak self] text, origin, answer in
                self?.start(plan: text, origin: origin, replace: false, answer: answer)
            },
            startProgram: { [weak self] program, answer in
                self?.startProgram(program, day: "", replace: false, answer: answer)
            },
            stop: { [weak self] in self?.stop() },
            show: { [weak self] message in self?.showDesktopMessage(message) },
            remindLater: { [weak self] program in self?.remindLater(program) })
        // Reminders need it even when the export fails.
        desktopLaunches = launches
        do {
            desktopExport = try DesktopLauncherExport(server: server, delegate: launches, logger: logger)
        } catch {
            logger.warning("Failed to export the desktop launcher, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    /// The tray item (docs/reference.md §12), unless `[tray] enabled = false`; a failure costs the tray item, never the
    /// workout.
    private func trayItem(on server: TimerBusServer) -> TrayOutput? {
        guard settings.trayEnabled else { return nil }
        do {
            // Its once-a-second refresh needs no precision: a wide leeway lets the kernel batch its wake-ups.
            return try TrayOutput(
                server: server, session: session, restKinds: settings.sound.restKinds,
                refreshTimer: DispatchTimerSource(queue: queue, leeway: .milliseconds(10)), logger: logger)
        } catch {
            logger.warning("Failed to set up the tray item, ignoring.", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Cues you feel through feedbackd (docs/reference.md §4d), unless `[haptics] enabled = false`.
    private func hapticsOutput() -> FeedbackOutput? {
        FeedbackOutput.forSettings(settings) { FeedbackdClient(logger: logger) }
    }

    private func soundOutput() -> SoundOutput {
        SoundOutput(settings: settings.sound, duckRecord: store.duckRecordPath, logger: logger)
    }

    /// Hands the session its outputs, in order; what waits to reach the deferred ones reaches them first.
    private func assembleOutputs() {
        afterTheInstant?.flush()
        let assembled = outputs.assemble(on: queue)
        session.outputs = assembled.outputs
        afterTheInstant = assembled.deferred
    }

    // MARK: Settings, applied live (docs/reference.md §4c)

    /// Reads the settings file again whenever it is written, moved into place or removed.
    private func watchSettingsFile() {
        let name = settingsPath.split(separator: "/").last.map(String.init) ?? settingsPath
        let directory = settingsPath.contains("/") ? String(settingsPath.dropLast(name.count)) : "."
        do {
            settingsWatcher = try DirectoryWatcher(directory: directory, queue: queue) { [weak self] names in
                guard names.contains(name) else { return }
                self?.reloadSettings(because: "the file changed")
            }
        } catch {
            logger.warning(
                "Failed to watch the settings file; SIGHUP and 'intervalctl reload' still reload it.",
                metadata: ["error": "\(error)"])
        }
    }

    /// Reads the settings file over the settings in use and applies what changed from the next cue on, without
    /// interrupting a workout; a setting whose new value is invalid keeps the value it had. Returns the file's
    /// problems, which are also logged.
    @discardableResult
    private func reloadSettings(because reason: String) -> [String] {
        guard !shuttingDown else { return [] }
        notifySystemd { try systemd.notify("RELOADING=1") }
        defer { notifySystemd { try systemd.ready() } }
        let previous = settings
        settingsReading = SettingsFile.read(path: settingsPath, over: settingsReading)
        for problem in settingsReading.problems {
            logger.warning("Ignoring a problem in the settings.", metadata: ["problem": "\(problem)"])
        }
        apply(settings, over: previous)
        logger.info(
            "Reloaded the settings.",
            metadata: ["reason": "\(reason)", "problems": "\(settingsReading.problems.count)"])
        return settingsReading.problems
    }

    /// Hands each output its part of `new`; the sound, the haptic feedback and the tray item, which set up connections
    /// and caches for their settings, are made anew when theirs changed, and caught up with the workout.
    private func apply(_ new: Settings, over old: Settings) {
        session.defaultCountdown = new.defaultCountdown
        idleExit?.delay = new.idleExit
        heartRate?.address = new.sensors.heartRate
        machine?.address = new.sensors.machine
        machine?.ceilings = new.machineCeilings
        hooks?.hooks = new.hooks
        notification?.restyle(new.notificationStyle)
        if new.onSleep != old.onSleep, let awake {
            awake.onSleep = new.onSleep
            session.catchUp(awake)
        }
        var remade: [any WorkoutOutput] = []
        // An output switched off leaves the list with nothing to catch up.
        var reassemble = false
        if new.sound != old.sound {
            if let previous = sound {
                // Off this queue: putting the music back waits for the audio server.
                let leaving = UncheckedBox(previous)
                DispatchQueue.global().async { leaving.value.restoreMusic() }
            }
            let sound = soundOutput()
            outputs[.sound] = sound
            self.sound = sound
            remade.append(sound)
        }
        if new.hapticsEnabled != old.hapticsEnabled || new.sound.restKinds != old.sound.restKinds {
            haptics = hapticsOutput()
            outputs[.haptics] = haptics
            reassemble = true
            if let haptics { remade.append(haptics) }
        }
        if new.trayEnabled != old.trayEnabled || new.sound.restKinds != old.sound.restKinds, let server {
            tray?.close()
            tray = trayItem(on: server)
            outputs[.tray] = tray
            reassemble = true
            if let tray { remade.append(tray) }
        }
        guard reassemble || !remade.isEmpty else { return }
        assembleOutputs()
        for output in remade { session.catchUp(output) }
    }

    /// A reminder's Later: the same reminder in an hour, through a transient systemd timer made on the parse queue (a
    /// connection of its own, off the bus thread). A failure is shown, since the person expects it to come back.
    private func remindLater(_ program: String) {
        let reminders = self.reminders
        parseQueue.async { [weak self] in
            do throws(ProgramReminders.Failure) {
                try reminders.remindLater(
                    program: program, intervalctl: InstallPrefix.sibling("intervalctl"),
                    wallSeconds: WallClock.microseconds() / 1_000_000, after: Self.reminderLater)
                self?.logger.info("The reminder comes again in an hour.", metadata: ["program": "\(program)"])
            } catch {
                guard let self else { return }
                queue.async {
                    self.showDesktopMessage(
                        DesktopMessage(summary: tr("Could not remind you later"), body: error.description))
                }
            }
        }
    }

    /// How long a reminder's Later waits, and how long a reminder keeps an idle daemon for its buttons (µs).
    private static let reminderLater: UInt64 = 3_600_000_000

    /// The heart out of its step's range (docs/sensors.md): a notification that says it and the range, and the voice
    /// when it is on.
    private func give(_ cue: HeartRateCue) {
        logger.info(
            "Heart rate out of the step's range.", metadata: ["bpm": "\(cue.bpm)", "range": "\(cue.range.planText)"])
        showDesktopMessage(
            DesktopMessage(summary: cue.text, body: tr("Target {range}", ["range": cue.range.text])))
        sound?.say(cue.text, orInEnglish: Localization.inEnglish { cue.text })
    }

    /// Shows what a desktop request answers; a pressed button goes back to ``DesktopLaunches/pressed(_:)`` on `queue`.
    private func showDesktopMessage(_ message: DesktopMessage) {
        if desktopMessages == nil {
            desktopMessages = DesktopMessageNotifier(logger: logger) { [weak self, queue] key in
                guard let self else { return }
                queue.async { self.desktopLaunches?.pressed(key) }
            }
        }
        desktopMessages?.show(message)
    }

    // MARK: TimerBusDelegate (on `queue`)

    func start(
        plan: String, origin: String, replace: Bool, answer: @escaping (Result<Void, TimerCommandError>) -> Void
    ) {
        idleExit?.startPending(true)
        let reply = UncheckedBox(answer)
        parseQueue.async { [self] in
            let parsed = Result { () throws(TimerCommandError) in try WorkoutSession.parse(plan, origin: origin) }
            let large = plan.utf8.count > Self.largePlanBytes
            queue.async { [self] in
                idleExit?.startPending(false)
                answerOnceRecorded(
                    reply,
                    parsed.flatMap { parsedPlan in
                        Result { () throws(TimerCommandError) in
                            try session.start(parsedPlan, text: plan, origin: origin, replace: replace)
                        }
                    })
                // A refused plan is freed, and the heap trimmed, on the parse queue: freeing a plan of a hundred
                // thousand steps takes a while, and no cue waits for it.
                parseQueue.async {
                    withExtendedLifetime(parsed) {}
                    if large { Heap.trim() }
                }
            }
        }
    }

    func startProgram(
        _ program: String, day: String, replace: Bool, answer: @escaping (Result<Void, TimerCommandError>) -> Void
    ) {
        idleExit?.startPending(true)
        let reply = UncheckedBox(answer)
        parseQueue.async { [self] in
            let chosen = Result { () throws(TimerCommandError) in try programs.dayToStart(program: program, day: day) }
            queue.async { [self] in
                idleExit?.startPending(false)
                answerOnceRecorded(
                    reply,
                    chosen.flatMap { chosen in
                        Result { () throws(TimerCommandError) in
                            try session.start(
                                chosen.plan, text: chosen.text, origin: chosen.origin, program: chosen.reference,
                                replace: replace)
                        }
                    })
            }
        }
    }

    /// Answers a start once its state file is in place (on `queue`, which stays free meanwhile), as Stop's reply
    /// waits for the history: a daemon killed the moment after `intervalctl start` returned resumes the workout.
    /// The file's `fsync`s follow the reply: they make it survive a power cut, which a reply cannot outrun anyway.
    private func answerOnceRecorded(
        _ reply: UncheckedBox<(Result<Void, TimerCommandError>) -> Void>, _ started: Result<Void, TimerCommandError>
    ) {
        guard case .success = started else { return reply.value(started) }
        recordWriter.whenPlaced { [queue] in queue.async { reply.value(started) } }
    }

    func refusedOversizedPlan(bytes: Int) {
        logger.info("Refused an oversized plan.", metadata: ["bytes": "\(bytes)"])
        // After the call's message is freed (the current block), give its pages back: memory returns after refused
        // input. On the parse queue: trimming a large heap takes a while, and no cue waits for it.
        queue.async { [parseQueue] in parseQueue.async { Heap.trim() } }
    }

    func remindProgram(_ program: String, answer: @escaping (Result<Void, TimerCommandError>) -> Void) {
        guard let desktopLaunches else {
            answer(.failure(TimerCommandError(.invalidState, "The daemon is starting.")))
            return
        }
        idleExit?.keep(for: Int64(Self.reminderLater))
        desktopLaunches.remind(program, workoutRunning: session.status.state != .idle, answer: answer)
    }

    func stop() {
        session.stop(.user)
        // The reply waits for the history record, so that `intervalctl stop; intervalctl history` lists the workout.
        // Nothing is due once stopped: waiting here delays no cue.
        recordWriter.waitUntilPlaced()
    }

    func pause() throws(TimerCommandError) {
        try session.pause()
    }

    func resume() throws(TimerCommandError) {
        try session.resume()
    }

    func skip() throws(TimerCommandError) {
        try session.skip()
    }

    func restart() throws(TimerCommandError) {
        try session.restartSegment()
    }

    func reloadSettings() -> [String] {
        reloadSettings(because: "a ReloadSettings call")
    }

    func status() -> TimerStatus {
        var status = session.status
        status.inhibited = awake?.inhibited ?? ""
        return status
    }

    // MARK: Resuming (docs/reference.md §5)

    /// Continues the workout a crashed, killed or stopped daemon recorded, on its original schedule, or records it
    /// as interrupted when its time has passed. Either way its notification is taken over, never left behind.
    private func resumeRecordedWorkout() {
        // Before the first call is served, what start-up recorded is on disk.
        defer { recordWriter.drain() }
        let recorded: WorkoutState
        switch store.load() {
        case .nothing:
            return
        case .corrupt(let reason, let movedTo):
            logger.error(
                "Failed to read the recorded workout, set it aside.",
                metadata: ["reason": "\(reason)", "moved-to": "\(movedTo ?? "(could not move it)")"])
            return
        case .state(let state):
            recorded = state
        }
        notification?.adopt(serverID: recorded.notificationID)
        let plan: Plan
        do {
            plan = try WorkoutSession.parse(recorded.plan, origin: recorded.origin)
        } catch {
            logger.error("Failed to parse the recorded workout's plan, removing it.", metadata: ["error": "\(error)"])
            do {
                try store.removeState()
            } catch {
                logger.error("Failed to remove the workout's state.", metadata: ["error": "\(error)"])
            }
            notification?.closeAdopted()
            return
        }
        let identity = WorkoutIdentity(
            id: recorded.id, text: recorded.plan, origin: recorded.origin, startedWall: recorded.startedWall,
            program: recorded.program)
        switch recorded.resumption(at: BootClock.reading(), planDuration: plan.timelineEnd) {
        case .resume(let anchor, let pausedElapsed):
            logger.notice(
                "Resuming the recorded workout.",
                metadata: ["plan": "\(plan.name)", "paused": "\(pausedElapsed != nil)"])
            session.restore(
                plan, as: identity, anchor: anchor, pausedElapsed: pausedElapsed,
                track: recorded.track(anchoredAt: anchor))
        case .interrupted(let elapsed, let endedWall):
            logger.notice(
                "The recorded workout ended while no daemon ran; recording it as interrupted.",
                metadata: ["plan": "\(plan.name)"])
            var track = recorded.track(anchoredAt: recorded.anchorWall)
            track.finish(at: endedWall, at: elapsed)
            history?.recordInterrupted(identity, plan: plan, elapsed: elapsed, endedWall: endedWall, track: track)
            // After the history record, on the same queue: a crash in between leaves the workout to record again.
            recordWriter.write(failure: "Failed to remove the workout's state; the next start may resume it.") {
                [store] in try store.removeState(durable: .later)
            }
            notification?.closeAdopted()
        }
    }

    // MARK: Suspend (docs/reference.md §6)

    /// logind's `PrepareForSleep(true)`: with `on-sleep = "pause"`, the workout pauses now and its state is on disk
    /// before the sleep delay is given back.
    private func computerSleeps() {
        guard settings.onSleep == .pause else { return }
        session.pauseForSleep()
        afterTheInstant?.flush()
        recordWriter.drain()
    }

    /// logind's `PrepareForSleep(false)`: the sleep counts in the history; a workout that went on moves to the segment
    /// due now (its cue is the notification); a paused one's notification is shown again, saying why, and the sleep
    /// delay is taken again for the next sleep.
    private func computerWoke(slept: Int64) {
        session.noteSleep(microseconds: slept)
        session.resynchronize()
        if session.status.state == .paused, let notification { session.catchUp(notification) }
        if let awake { session.catchUp(awake) }
    }

    /// `PropertiesChanged(Inhibited)`, when the inhibitor or the delay is taken or given back.
    private func announceInhibited() {
        do {
            try server?.emitPropertiesChanged([TimerProperty.inhibited.name])
        } catch {
            logger.warning("Failed to emit PropertiesChanged, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    private func notifySystemd(_ body: () throws -> Bool) {
        do {
            _ = try body()
        } catch {
            logger.warning("Failed to notify systemd, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Exit

    /// Idle for `idle-exit` seconds: leave the bus and exit 0; D-Bus activation starts the next daemon. No call is
    /// dropped: the name is released first and the calls routed to it before then are answered; if one of them was a
    /// Start, the daemon owns the name again and runs it.
    private func exitIdle() {
        guard !session.isActive, let server, let idleExit else { return }
        logger.info("Idle, exiting.")
        do {
            try server.releaseNameServingQueuedCalls()
        } catch {
            logger.warning("Failed to release the bus name, exiting anyway.", metadata: ["error": "\(error)"])
        }
        if !idleExit.isIdle {
            do {
                try server.reacquireName()
                logger.info("A workout was asked for while exiting; staying.")
                return
            } catch {
                // Another daemon, activated by a call in the instant the name was free, owns it now and serves
                // every later call; this one's pending Start is not answered.
                logger.error("Failed to own the bus name again, exiting.", metadata: ["error": "\(error)"])
            }
        }
        notifySystemd { try systemd.stopping() }
        leave()
        exitOnce(0)
    }

    /// SIGTERM or SIGINT: stop the workout (reason `shutdown`), close its notification, leave the bus, exit 0.
    private func shutDown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        logger.info("Shutting down.")
        // Bounded whatever hangs: releasing the name waits for the bus daemon, and closing the notification for its
        // server (up to 25 s each), so the process exits two seconds from now regardless.
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) {
            exitOnce(0)
        }
        notifySystemd { try systemd.stopping() }
        session.stop(.shutdown)
        leave()
        // Off the queue, so the GLib thread can finish closing the notification while nothing else runs.
        DispatchQueue.global().async {
            GLibMainLoopThread.shutdownShared()
            exitOnce(0)
        }
    }

    private func leave() {
        afterTheInstant?.flush()
        session.outputs = []
        settingsWatcher = nil
        // No stream is left lowered under a cue that will not end (docs/reference.md §11).
        sound?.restoreMusic()
        server?.close()
        server = nil
        // The last state and history records reach the disk before the process exits.
        recordWriter.drain()
    }
}

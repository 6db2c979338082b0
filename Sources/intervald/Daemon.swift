import Dispatch
import FoundationEssentials
import IntervalBus
import IntervalCore
import IntervalNotify
import IntervalRuntime
import IntervalSettings
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon: one serial queue owns the scheduler, the bus connection and the watchdog; libnotify runs on the GLib
/// thread and reports button presses back to the queue.
final class Daemon: TimerBusDelegate, @unchecked Sendable {
    private let queue = DispatchQueue(label: "intervald.main")
    private let logger: Logger
    private let settingsPath: String?
    private let systemd = SystemdNotifier()
    // Confined to `queue` once `start` has run.
    private var service: TimerService?
    private var server: TimerBusServer?
    private var notifier: LibNotifyNotifier?
    private var watchdog: Watchdog?
    private var signals: SignalWatcher?
    private var sleepWatcher: SleepWatcher?
    private var settings = Settings.defaults
    private let hooks: HookRunner
    /// The property values last announced with PropertiesChanged.
    private var announced = TimerStatus.idle

    init(logger: Logger, settingsPath: String?) {
        self.logger = logger
        self.settingsPath = settingsPath
        hooks = HookRunner(logger: logger)
    }

    /// Sets everything up, owns the bus name, and tells systemd it is ready.
    func start() throws {
        let path = settingsPath ?? SettingsFile.defaultPath(environment: ProcessInfo.processInfo.environment)
        let (settings, problems) = SettingsFile.load(path: path)
        for problem in problems { logger.warning("\(problem)") }
        queue.sync {
            self.settings = settings
            let timer = DispatchTimerSource(queue: queue)
            let service = TimerService(timer: timer) { [unowned self] event, plan in handle(event, plan: plan) }
            service.defaultCountdown = settings.defaultCountdown
            self.service = service
            let queue = self.queue
            notifier = LibNotifyNotifier(appName: "intervald", logger: logger) { [weak self] action in
                guard let daemon = self else { return }
                queue.async { daemon.handle(action) }
            }
            signals = SignalWatcher([SIGTERM, SIGINT], queue: queue) { [weak self] _ in self?.shutDown() }
            sleepWatcher = SleepWatcher.start(queue: queue, logger: logger) { [weak self] in
                self?.service?.resynchronize()
            }
        }
        // Opened on the queue, so that no method call is served before `server` is set to emit its signals.
        try queue.sync {
            server = try TimerBusServer.open(queue: queue, delegate: self, logger: logger) { [weak self] error in
                self?.logger.error("Lost the session bus: \(error). Exiting.")
                exit(1)
            }
            watchdog = Watchdog(queue: queue, systemd: systemd, logger: logger)
        }
        logger.info("Serving \(BusNames.service) on the session bus.")
        notifySystemd { try systemd.ready() }
    }

    // MARK: TimerBusDelegate (on `queue`)

    func start(plan: String, origin: String, replace: Bool) throws(TimerCommandError) {
        guard let service else { throw TimerCommandError(.invalidState, "intervald is starting up.") }
        let started = try service.start(plan, origin: origin, replace: replace)
        logger.info("Started a workout.", metadata: ["plan": "\(started.name)", "duration": "\(TimeText.clock(microseconds: started.duration))"])
    }

    func stop() {
        service?.stop(.user)
    }

    func pause() throws(TimerCommandError) {
        try requireService().pause()
    }

    func resume() throws(TimerCommandError) {
        try requireService().resume()
    }

    func skip() throws(TimerCommandError) {
        try requireService().skip()
    }

    func status() -> TimerStatus {
        service?.status ?? .idle
    }

    private func requireService() throws(TimerCommandError) -> TimerService {
        guard let service else { throw TimerCommandError(.notRunning, "No workout is running.") }
        return service
    }

    // MARK: Events

    /// Signals first, at the cue instant; then the properties, the notification and the watchdog.
    private func handle(_ event: SchedulerEvent, plan: Plan) {
        emit {
            switch event {
            case .segmentStarted(let segment, _):
                try server?.emitSegmentStarted(
                    index: UInt32(clamping: segment.index), kind: segment.kind, label: segment.label,
                    duration: UInt64(segment.duration)
                )
            case .finished:
                try server?.emitFinished(planName: plan.name)
            case .stopped(let reason):
                try server?.emitStopped(reason)
            case .countdown, .paused, .resumed:
                break
            }
        }
        announceChangedProperties()
        runHook(for: event, plan: plan)
        notifier?.present(event, plan: plan, style: settings.style)
        watchdog?.workoutActive = service?.isActive ?? false
        switch event {
        case .finished: logger.info("Finished a workout.", metadata: ["plan": "\(plan.name)"])
        case .stopped(let reason): logger.info("Stopped a workout.", metadata: ["plan": "\(plan.name)", "reason": "\(reason.rawValue)"])
        default: break
        }
    }

    private func runHook(for event: SchedulerEvent, plan: Plan) {
        let hook: ([String]?, HookEvent)? = switch event {
        case .segmentStarted(let segment, let next):
            (settings.hooks.onCue, HookEvent(kind: .cue, plan: plan, segment: segment, next: next))
        case .finished:
            (settings.hooks.onFinish, HookEvent(kind: .finish, plan: plan))
        case .stopped(let reason):
            (settings.hooks.onStop, HookEvent(kind: .stop, plan: plan, segment: service?.scheduler?.current, reason: reason))
        case .countdown, .paused, .resumed:
            nil
        }
        if let (argv, hookEvent) = hook, let argv { hooks.run(argv, for: hookEvent) }
    }

    private func handle(_ action: NotificationAction) {
        do {
            try service?.perform(action)
        } catch {
            logger.info("Ignoring the \(action.label) button: \(error.message)")
        }
    }

    /// Emits PropertiesChanged for every property whose value differs from the last announcement.
    private func announceChangedProperties() {
        let now = status()
        let changed = now.changedProperties(since: announced)
        announced = now
        guard !changed.isEmpty else { return }
        emit { try server?.emitPropertiesChanged(changed) }
    }

    private func emit(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            logger.warning("Failed to emit a D-Bus signal: \(error), ignoring.")
        }
    }

    private func notifySystemd(_ body: () throws -> Bool) {
        do {
            _ = try body()
        } catch {
            logger.warning("Failed to notify systemd: \(error), ignoring.")
        }
    }

    // MARK: Shutdown

    /// SIGTERM or SIGINT: stop the workout (reason `shutdown`), close its notification, leave the bus, exit 0.
    private func shutDown() {
        logger.info("Shutting down.")
        notifySystemd { try systemd.stopping() }
        service?.stop(.shutdown)
        watchdog = nil
        server?.close()
        server = nil
        // Off the queue, so the GLib thread can finish closing the notification while nothing else runs; but a
        // notification server that does not answer can hold it for 25 s, so exit after two seconds regardless.
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(2)) {
            exit(0)
        }
        DispatchQueue.global().async {
            GLibMainLoopThread.shutdownShared()
            exit(0)
        }
    }
}

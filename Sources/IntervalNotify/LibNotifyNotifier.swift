import CLibNotify
import CNotifyShims
import IntervalCore
import IntervalRuntime
import Logging

/// Shows the workout as one freedesktop notification through libnotify (docs/reference.md §4).
///
/// One `NotifyNotification` per workout, updated in place (`notify_notification_update` + `show`), so every cue
/// replaces the previous one under the same server id. A cue never expires; ``close()`` ends the workout's
/// notification and the next ``show(_:)`` starts a new one.
///
/// ``show(_:)`` and ``close()`` never block: they record the request and the GLib thread carries it out. libnotify's
/// calls are synchronous D-Bus calls (up to 25 s against a hung server), so requests coalesce while one is in
/// flight: only the latest cue is shown, after a pending close if there was one. A missing or restarting server is
/// logged once per outage ("Failed to show notification: …, ignoring."); the next cue goes to the server that
/// returns, and a server that appears while a cue is up gets that cue again, without the sound.
///
/// Actions arrive through `onAction` on the GLib thread; re-dispatch them to the workout's owner.
public final class LibNotifyNotifier: Notifier {
    /// What the callers asked for and the GLib thread has not done yet.
    private struct PendingWork: Sendable {
        var close = false
        var cue: WorkoutNotification?
        /// A drain is queued on (or running on) the GLib thread.
        var drainQueued = false
        /// Cues that ``show(_:at:)`` scheduled are numbered; those up to `cancelledCues` are no longer wanted.
        /// Cancelling raises it at once, whatever the GLib thread is doing, so a cancelled cue never shows.
        var lastScheduledCue: UInt64 = 0
        var cancelledCues: UInt64 = 0
    }

    /// A scheduled cue this late (µs; the machine slept through its deadline) is dropped: the workout's owner shows
    /// what is due instead, and a stale cue must not flash up first.
    public static let scheduledCueStaleAfter: Int64 = 1_000_000

    private let mainLoop: GLibMainLoopThread
    private let logger: Logger
    private let pending = Locked(PendingWork())
    private let state: GLibThreadBound<NotifierState>

    /// - Parameters:
    ///   - appName: The application name the server shows.
    ///   - mainLoop: The GLib thread to use; by default ``GLibMainLoopThread/shared(appName:logger:)``.
    ///   - logger: Where failures go.
    ///   - onAction: Called on the GLib thread when the user presses a button of the workout's notification.
    ///   - onServerID: Called on the GLib thread with the server's id of the workout's notification each time it
    ///     changes (a new workout, a new server), so that a restarted process can replace it.
    ///   - onOpen: When given, a click on the notification's body (its `default` action) calls it on the GLib thread:
    ///     the daemon opens the window there.
    public init(
        appName: String = "intervald",
        mainLoop: GLibMainLoopThread? = nil,
        logger: Logger,
        onAction: @escaping @Sendable (NotificationAction) -> Void,
        onServerID: @escaping @Sendable (UInt32) -> Void = { _ in },
        onOpen: (@Sendable () -> Void)? = nil
    ) {
        let mainLoop = mainLoop ?? GLibMainLoopThread.shared(appName: appName, logger: logger)
        self.mainLoop = mainLoop
        self.logger = logger
        state = GLibThreadBound(
            NotifierState(
                appName: appName, logger: logger, onAction: onAction, onServerID: onServerID, onOpen: onOpen),
            thread: mainLoop)
        let state = self.state
        mainLoop.invoke { state.value.watchServer() }
    }

    deinit {
        let state = self.state
        if !mainLoop.invoke({ state.value.dispose() }) {
            // The loop has ended, so no thread runs GLib any more; libnotify's finalizer could still make a D-Bus
            // call, so the notification object (if any) is left to the exiting process.
            state.valueAfterShutdown.abandon()
        }
    }

    /// Shows `notification`, replacing the workout's previous one. Does not block.
    public func show(_ notification: WorkoutNotification) {
        enqueue { $0.cue = notification }
    }

    /// Shows `notification` when the boot clock reaches `deadline` (µs). The GLib thread wakes at that instant itself,
    /// with the cue already built, so that only libnotify's send remains at the deadline (docs/reference.md §6:
    /// `Notify` within 1.5 ms of the schedule). A cue scheduled before stays scheduled: the GLib thread may not have
    /// reached its deadline yet when the next one is scheduled. Does not block.
    public func show(_ notification: WorkoutNotification, at deadline: ClockInstant) {
        let number = pending.withLock { work -> UInt64 in
            work.lastScheduledCue &+= 1
            return work.lastScheduledCue
        }
        let state = self.state
        _ = mainLoop.invoke { [weak self, mainLoop] in
            state.value.scheduledTimers[number] = mainLoop.invoke(at: deadline) { [weak self] in
                state.value.scheduledTimers[number] = nil
                self?.showScheduled(notification, number: number, deadline: deadline)
            }
        }
    }

    /// Forgets every cue ``show(_:at:)`` scheduled that is not shown yet. Does not block.
    public func cancelScheduled() {
        pending.withLock { $0.cancelledCues = $0.lastScheduledCue }
    }

    /// Closes the workout's notification, if one is shown; the next ``show(_:)`` starts a new one. Does not block.
    public func close() {
        enqueue {
            $0.close = true
            $0.cue = nil
        }
    }

    /// Takes over the notification an earlier process left on screen under `id`: the next ``show(_:)`` replaces
    /// it, or ``close()`` closes it. Does not block.
    public func adopt(serverID id: UInt32) {
        let state = self.state
        _ = mainLoop.invoke { state.value.adopt(serverID: id) }
    }

    private func enqueue(_ update: (inout PendingWork) -> Void) {
        let queueDrain = pending.withLock { work -> Bool in
            update(&work)
            guard !work.drainQueued else {
                return false
            }
            work.drainQueued = true
            return true
        }
        guard queueDrain else {
            return
        }
        if !mainLoop.invoke({ [self] in drain() }) {
            pending.withLock { $0 = PendingWork() }
            logger.debug("GLib main loop is not running, dropping the notification request.")
        }
    }

    /// On the GLib thread, at a scheduled cue's deadline: shows it if it is still wanted and not stale, through the
    /// pending work, so that a close asked for earlier still comes first and an older cue waiting behind a busy
    /// server is superseded.
    private func showScheduled(_ notification: WorkoutNotification, number: UInt64, deadline: ClockInstant) {
        let due = pending.withLock { work -> Bool in
            guard number > work.cancelledCues else { return false }
            guard BootClock.microseconds() - deadline < Self.scheduledCueStaleAfter else { return false }
            work.cue = notification
            return true
        }
        if due { drain() }
    }

    /// On the GLib thread: carries out the pending work until none is left.
    private func drain() {
        while let (close, cue) = pending.withLock({ work -> (Bool, WorkoutNotification?)? in
            guard work.close || work.cue != nil else {
                work.drainQueued = false
                return nil
            }
            defer {
                work.close = false
                work.cue = nil
            }
            return (work.close, work.cue)
        }) {
            if close {
                state.value.close()
            }
            if let cue {
                state.value.show(cue)
            }
        }
    }
}

/// The notifier's libnotify side. Lives on the GLib thread only.
private final class NotifierState {
    private let appName: String
    private let logger: Logger
    private let onAction: @Sendable (NotificationAction) -> Void
    private let onServerID: @Sendable (UInt32) -> Void
    private let onOpen: (@Sendable () -> Void)?
    /// The server id last reported through `onServerID`.
    private var reportedID: UInt32 = 0
    /// An earlier process's notification to replace with the next new one; 0 for none.
    private var adoptedID: UInt32 = 0

    /// The workout's notification. Owned: one reference, given up in `dropNotification()`.
    private var notification: UnsafeMutablePointer<NotifyNotification>?
    /// The server closed `notification` (expired, dismissed): libnotify will not report it again, so start anew.
    private var notificationClosedByServer = false
    /// The cue on screen, to show again to a server that replaces a vanished one.
    private var currentCue: WorkoutNotification?
    /// The server's capabilities, once asked (`notify_get_server_caps`); nil until then or after a server change.
    private var capabilities: Set<String>?
    /// The unique bus name of the server's process, as the bus watcher last told it.
    private var serverOwner: String?
    private var serverWatch: OpaquePointer?
    /// A failure has been logged and nothing has succeeded since: stay quiet.
    private var failing = false
    /// The timers of the cues `LibNotifyNotifier.show(_:at:)` scheduled, by the cue's number, until they fire.
    var scheduledTimers: [UInt64: UInt32] = [:]

    init(
        appName: String, logger: Logger, onAction: @escaping @Sendable (NotificationAction) -> Void,
        onServerID: @escaping @Sendable (UInt32) -> Void, onOpen: (@Sendable () -> Void)?
    ) {
        self.appName = appName
        self.logger = logger
        self.onAction = onAction
        self.onServerID = onServerID
        self.onOpen = onOpen
    }

    func adopt(serverID id: UInt32) {
        guard id != 0 else { return }
        if let notification {
            in_notification_set_id(notification, id)
        } else {
            adoptedID = id
        }
    }

    deinit {
        // dispose() or abandon() ran first: neither a notification nor a watch can be left here.
        assert(notification == nil && serverWatch == nil, "NotifierState released without dispose()")
    }

    func watchServer() {
        guard serverWatch == nil else {
            return
        }
        let context = Unmanaged.passRetained(WeakStateBox(self)).toOpaque()
        serverWatch = in_watch_notification_server(
            { context, owner in
                guard let context else { return }
                let box = Unmanaged<WeakStateBox>.fromOpaque(context).takeUnretainedValue()
                box.state?.serverChanged(owner: owner.map { String(cString: $0) })
            },
            context,
            { context in
                guard let context else { return }
                Unmanaged<WeakStateBox>.fromOpaque(context).release()
            }
        )
    }

    /// Stops watching and gives up the notification without closing it (the caller closes a workout it ends).
    func dispose() {
        for timer in scheduledTimers.values { in_main_context_cancel(nil, timer) }
        scheduledTimers = [:]
        if let serverWatch {
            in_unwatch_notification_server(serverWatch)
            self.serverWatch = nil
        }
        dropNotification()
        currentCue = nil
    }

    /// Forgets everything without touching GLib: the GLib thread has ended.
    func abandon() {
        notification = nil
        serverWatch = nil
    }

    func show(_ cue: WorkoutNotification) {
        currentCue = cue
        present(cue)
    }

    func close() {
        currentCue = nil
        if notification == nil, adoptedID != 0, let orphan = notify_notification_new("", nil, nil) {
            in_notification_set_id(orphan, adoptedID)
            notification = orphan
        }
        adoptedID = 0
        guard let notification else {
            return
        }
        if !notificationClosedByServer {
            var error: UnsafeMutablePointer<GError>?
            // The corresponding C function is `notify_notification_close` (CloseNotification on the bus).
            if notify_notification_close(notification, &error) != 0 {
                recovered()
            } else {
                failed(.close, error)
            }
        }
        dropNotification()
    }

    private func present(_ cue: WorkoutNotification) {
        var body = cue.body
        var actions = cue.actions
        if !actions.isEmpty, !serverSupports("actions") {
            body = body.isEmpty ? cue.noActionsHint : body + "\n" + cue.noActionsHint
            actions = []
        }
        if serverSupports("body-markup") {
            body = escapedMarkup(body)  // A label such as "Hills & <fast>" is text, not markup.
        }
        if notificationClosedByServer {
            dropNotification()
        }
        let notification: UnsafeMutablePointer<NotifyNotification>
        if let existing = self.notification {
            notify_notification_update(existing, cue.summary, body, DesktopIdentity.iconName)
            notification = existing
        } else {
            guard let created = notify_notification_new(cue.summary, body, DesktopIdentity.iconName) else {
                logger.error("Failed to create a notification, ignoring.")
                return
            }
            connectClosed(created)
            if adoptedID != 0 {
                in_notification_set_id(created, adoptedID)
                adoptedID = 0
            }
            self.notification = created
            notification = created
        }
        notify_notification_set_app_name(notification, appName)
        notify_notification_set_timeout(notification, NOTIFY_EXPIRES_NEVER)
        notify_notification_clear_hints(notification)
        notify_notification_set_urgency(notification, cue.urgency.libnotifyUrgency)
        notify_notification_set_category(notification, "x-intervald.workout")
        notify_notification_set_hint_string(notification, "desktop-entry", DesktopIdentity.desktopEntry)
        if let soundName = cue.soundName {
            notify_notification_set_hint_string(notification, "sound-name", soundName)
        }
        if cue.suppressSound {
            notify_notification_set_hint(notification, "suppress-sound", g_variant_new_boolean(1))
        }
        notify_notification_clear_actions(notification)  // Releases the previous cue's action boxes.
        for action in actions {
            addAction(action, to: notification)
        }
        if let onOpen {
            // The freedesktop `default` action: servers run it on a click on the body and draw no button for it.
            addNotificationAction(key: "default", label: tr("Open Interval Timer"), to: notification, onPress: onOpen)
        }

        var error: UnsafeMutablePointer<GError>?
        // The corresponding C function is `notify_notification_show` (Notify on the bus, replacing our id).
        if notify_notification_show(notification, &error) != 0 {
            recovered()
            let id = in_notification_get_id(notification)
            if id != reportedID {
                reportedID = id
                onServerID(id)
            }
        } else {
            if failed(.show, error) == .timedOut {
                return  // A hung server may still show the call when it wakes: the next cue replaces that one.
            }
            // The server is gone or broken: the next cue starts afresh, with the capabilities asked again.
            dropNotification()
            capabilities = nil
        }
    }

    private func addAction(_ action: NotificationAction, to notification: UnsafeMutablePointer<NotifyNotification>) {
        let onAction = self.onAction
        addNotificationAction(key: action.rawValue, label: action.label, to: notification) { onAction(action) }
    }

    private func connectClosed(_ notification: UnsafeMutablePointer<NotifyNotification>) {
        let context = Unmanaged.passRetained(WeakStateBox(self)).toOpaque()
        in_notification_connect_closed(
            notification,
            { context, reason in
                guard let context else { return }
                Unmanaged<WeakStateBox>.fromOpaque(context).takeUnretainedValue().state?.serverClosed(reason: reason)
            },
            context,
            { context in
                guard let context else { return }
                Unmanaged<WeakStateBox>.fromOpaque(context).release()
            }
        )
    }

    /// Whether the server has `capability` ("actions": it draws buttons). Asks it once per server
    /// (`notify_get_server_caps`); when it cannot be asked, assumes "actions" only and lets the show that follows
    /// report the failure.
    private func serverSupports(_ capability: String) -> Bool {
        guard let capabilities = serverCapabilities() else {
            return capability == "actions"
        }
        return capabilities.contains(capability)
    }

    private func serverCapabilities() -> Set<String>? {
        if let capabilities {
            return capabilities
        }
        // notify_get_server_info fails quietly without a server, where notify_get_server_caps prints a warning.
        var name: UnsafeMutablePointer<CChar>?
        var vendor: UnsafeMutablePointer<CChar>?
        var version: UnsafeMutablePointer<CChar>?
        var specVersion: UnsafeMutablePointer<CChar>?
        guard notify_get_server_info(&name, &vendor, &version, &specVersion) != 0 else {
            return nil
        }
        let server = "\(string(name)) \(string(version))"
        g_free(name)
        g_free(vendor)
        g_free(version)
        g_free(specVersion)

        guard let list = notify_get_server_caps() else {
            return nil  // Failed (or no capability at all): ask again next time.
        }
        var found = Set<String>()
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let capability = current.pointee.data {
                found.insert(String(cString: capability.assumingMemoryBound(to: CChar.self)))
            }
            node = current.pointee.next
        }
        g_list_free_full(list, g_free)
        capabilities = found
        logger.debug(
            "Notification server capabilities.",
            metadata: ["server": "\(server)", "capabilities": "\(found.sorted().joined(separator: ","))"]
        )
        return found
    }

    private func escapedMarkup(_ text: String) -> String {
        guard let escaped = g_markup_escape_text(text, -1) else {
            return text
        }
        defer { g_free(escaped) }
        return String(cString: escaped)
    }

    /// The bus watcher's report: `owner` now owns org.freedesktop.Notifications, or nobody (nil).
    func serverChanged(owner: String?) {
        guard owner != serverOwner else {
            return
        }
        let previous = serverOwner
        serverOwner = owner
        logger.debug("Notification server changed.", metadata: ["owner": "\(owner ?? "none")"])
        if previous != nil {
            // Our id and what we know of the server belonged to the one that left: start anew with the next.
            // (With no previous owner, capabilities already asked can only come from the server now seen.)
            dropNotification()
            capabilities = nil
        }
        // A cue that is not on any live server (it failed, or its server left) goes to the new one, quietly.
        if owner != nil, notification == nil, var cue = currentCue {
            cue.soundName = nil
            present(cue)
        }
    }

    func serverClosed(reason: Int32) {
        notificationClosedByServer = true
        logger.debug("Notification closed by the server.", metadata: ["reason": "\(reason)"])
    }

    private func dropNotification() {
        guard let notification else {
            return
        }
        self.notification = nil
        notificationClosedByServer = false
        // Finalizing disconnects the "closed" handler and frees the action boxes.
        g_object_unref(notification)
    }

    private func recovered() {
        if failing {
            failing = false
            logger.info("Notification server reachable again, showing notifications.")
        }
    }

    private enum Failure {
        case timedOut, other
    }

    /// A libnotify call that talks to the server; each has its own fixed log message.
    private enum Operation {
        case show, close

        var failureMessage: Logger.Message {
            switch self {
            case .show: "Failed to show notification, ignoring."
            case .close: "Failed to close notification, ignoring."
            }
        }
    }

    /// Logs a failed call (once per outage) and frees `error`.
    @discardableResult
    private func failed(_ operation: Operation, _ error: UnsafeMutablePointer<GError>?) -> Failure {
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
        var failure = Failure.other
        if let error {
            // GDBus reports a call that got no reply in time (25 s) as G_IO_ERROR_TIMED_OUT.
            if g_error_matches(error, g_io_error_quark(), Int32(G_IO_ERROR_TIMED_OUT.rawValue)) != 0 {
                failure = .timedOut
            }
            g_error_free(error)
        }
        defer {
            failing = true
        }
        if failing {
            logger.debug(operation.failureMessage, metadata: ["error": "\(message)"])
        } else {
            logger.warning(operation.failureMessage, metadata: ["error": "\(message)"])
        }
        return failure
    }

    private func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? "?"
    }
}

/// What a callback from GLib holds: not the state itself, so that no GLib object keeps it alive.
private final class WeakStateBox {
    weak var state: NotifierState?

    init(_ state: NotifierState) {
        self.state = state
    }
}

/// Adds the button `key` labelled `label` to `notification`; `onPress` runs on the GLib thread when it is pressed.
/// The corresponding C function is `notify_notification_add_action`.
func addNotificationAction(
    key: String, label: String, to notification: UnsafeMutablePointer<NotifyNotification>,
    onPress: @escaping @Sendable () -> Void
) {
    let box = Unmanaged.passRetained(ActionBox(onPress)).toOpaque()
    notify_notification_add_action(
        notification,
        key,
        label,
        { _, _, context in
            guard let context else { return }
            Unmanaged<ActionBox>.fromOpaque(context).takeUnretainedValue().onPress()
        },
        box,
        { context in
            guard let context else { return }
            Unmanaged<ActionBox>.fromOpaque(context).release()
        }
    )
}

/// The context of one button: released by libnotify when the actions are cleared or the notification finalized.
private final class ActionBox {
    let onPress: @Sendable () -> Void

    init(_ onPress: @escaping @Sendable () -> Void) {
        self.onPress = onPress
    }
}

extension NotificationUrgency {
    fileprivate var libnotifyUrgency: NotifyUrgency {
        switch self {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
    }
}

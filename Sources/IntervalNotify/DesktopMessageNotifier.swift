import CLibNotify
import IntervalCore
import Logging

/// Shows ``DesktopMessage``s through libnotify, each replacing the previous one in place so that repeated requests
/// do not pile up; they expire as the server decides. Never blocks its caller: the GLib thread shows them.
public final class DesktopMessageNotifier: Sendable {
    private let mainLoop: GLibMainLoopThread
    private let state: GLibThreadBound<MessageState>

    /// - Parameter onButton: called on the GLib thread with the key of a pressed button.
    public init(logger: Logger, onButton: @escaping @Sendable (String) -> Void) {
        mainLoop = GLibMainLoopThread.shared(logger: logger)
        state = GLibThreadBound(MessageState(logger: logger, onButton: onButton), thread: mainLoop)
    }

    deinit {
        let state = self.state
        _ = mainLoop.invoke { state.value.dispose() }
    }

    public func show(_ message: DesktopMessage) {
        let state = self.state
        _ = mainLoop.invoke { state.value.show(message) }
    }
}

private final class MessageState {
    private let logger: Logger
    private let onButton: @Sendable (String) -> Void
    private var notification: UnsafeMutablePointer<NotifyNotification>?

    init(logger: Logger, onButton: @escaping @Sendable (String) -> Void) {
        self.logger = logger
        self.onButton = onButton
    }

    func show(_ message: DesktopMessage) {
        let notification: UnsafeMutablePointer<NotifyNotification>
        if let existing = self.notification {
            notify_notification_update(existing, message.summary, message.body, DesktopIdentity.iconName)
            notification = existing
        } else {
            guard let created = notify_notification_new(message.summary, message.body, DesktopIdentity.iconName)
            else {
                logger.error("Failed to create a notification, ignoring.")
                return
            }
            self.notification = created
            notification = created
        }
        notify_notification_set_timeout(notification, NOTIFY_EXPIRES_DEFAULT)
        notify_notification_clear_hints(notification)
        notify_notification_set_category(notification, "x-intervald.message")
        notify_notification_set_hint_string(notification, "desktop-entry", DesktopIdentity.desktopEntry)
        notify_notification_clear_actions(notification)
        let onButton = self.onButton
        for button in message.buttons {
            addNotificationAction(key: button.key, label: button.label, to: notification) { onButton(button.key) }
        }
        var error: UnsafeMutablePointer<GError>?
        // The corresponding C function is `notify_notification_show` (Notify on the bus, replacing our id).
        if notify_notification_show(notification, &error) == 0 {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            logger.warning("Failed to show a notification, ignoring.", metadata: ["error": "\(reason)"])
        }
    }

    func dispose() {
        if let notification { g_object_unref(notification) }
        notification = nil
    }
}

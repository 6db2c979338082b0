import IntervalCore
import Logging

/// Opens the Interval Timer window (docs/reference.md §10) from the daemon: `org.freedesktop.Application.Activate` on
/// the window's application, which the bus starts by D-Bus activation if it is not running. The daemon links no GTK
/// and waits for no answer: where the window is not installed, the bus's error reply is dropped unread.
enum WindowLauncher {
    /// Queues the call on `bus` (the owner flushes it, as after any message it sends).
    static func open(on bus: Bus, logger: Logger) {
        do throws(BusError) {
            let message = try bus.newMethodCall(
                destination: DesktopIdentity.window, path: DesktopIdentity.windowObjectPath,
                interface: "org.freedesktop.Application", member: "Activate")
            try message.openContainer("a", contents: "{sv}")
            try message.closeContainer()
            try bus.send(message)
        } catch {
            logger.notice("Could not open the window.", metadata: ["error": "\(error)"])
        }
    }
}

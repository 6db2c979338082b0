import IntervalCore
import Logging

/// Opens the Interval Timer window (docs/reference.md §10) from the daemon: `org.freedesktop.Application.Activate` on
/// the window's application, which the bus starts by D-Bus activation if it is not running. The daemon links no GTK
/// and never waits for the answer.
enum WindowLauncher {
    /// Queues the call on `bus` (the owner flushes it, as after any message it sends). `unavailable` runs, from the
    /// connection's processing, if the bus answers that there is no such application to start.
    static func open(on bus: Bus, logger: Logger, unavailable: (() -> Void)? = nil) {
        do throws(BusError) {
            let message = try bus.newMethodCall(
                destination: DesktopIdentity.window, path: DesktopIdentity.windowObjectPath,
                interface: "org.freedesktop.Application", member: "Activate")
            try message.openContainer("a", contents: "{sv}")
            try message.closeContainer()
            guard let unavailable else {
                // Where the window is not installed, the bus's error reply is dropped unread.
                try bus.send(message)
                return
            }
            try bus.callAsync(message) { result in
                guard case .failure(let error) = result, let name = error.name,
                    name == BusErrorName.serviceUnknown || name.hasPrefix(BusErrorName.spawnPrefix)
                else { return }
                logger.info("The Interval Timer window is not installed.", metadata: ["error": "\(error)"])
                unavailable()
            }
        } catch {
            logger.notice("Could not open the window.", metadata: ["error": "\(error)"])
        }
    }
}

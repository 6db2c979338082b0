import IntervalCore
import Logging

/// The desktop's suspend inhibitor, which keeps the session from suspending for idleness while a workout exists
/// (docs/reference.md §6; held and released by ``AwakeOutput``). Whatever started the workout, nothing else holds it
/// off: GNOME suspends an idle session after 20 minutes.
///
/// It asks, in order, until one answers: gnome-session (`org.gnome.SessionManager.Inhibit`, flag suspend), which
/// GNOME's power daemon obeys; the desktop portal (`org.freedesktop.portal.Inhibit`), for KDE and other desktops; the
/// older `org.freedesktop.PowerManagement.Inhibit` (Xfce, older Plasma). gnome-session comes before the portal because
/// Debian 12's portal passes its backend an empty application id for a program that is not sandboxed, which
/// gnome-session refuses ("Application ID not specified") after the portal has answered with a request, so a portal
/// call on GNOME 43 holds nothing. Every one of them drops the inhibitor when this connection closes: a daemon that
/// dies holds nothing.
///
/// Runs on the daemon's queue, on the server's connection; the answers come from its processing.
public final class SuspendInhibitor: @unchecked Sendable {
    /// The interfaces, in the order they are asked; the raw value is what `Inhibited` says.
    public enum Interface: String, Sendable, CaseIterable {
        case gnomeSession = "gnome-session"
        case portal
        case powerManagement = "power-management"

        /// The bus name, object and interface whose `Inhibit` is called.
        var destination: String {
            switch self {
            case .gnomeSession: "org.gnome.SessionManager"
            case .portal: "org.freedesktop.portal.Desktop"
            case .powerManagement: "org.freedesktop.PowerManagement"
            }
        }

        var path: String {
            switch self {
            case .gnomeSession: "/org/gnome/SessionManager"
            case .portal: "/org/freedesktop/portal/desktop"
            case .powerManagement: "/org/freedesktop/PowerManagement/Inhibit"
            }
        }

        var name: String {
            switch self {
            case .gnomeSession: "org.gnome.SessionManager"
            case .portal: "org.freedesktop.portal.Inhibit"
            case .powerManagement: "org.freedesktop.PowerManagement.Inhibit"
            }
        }

        /// What gives a cookie back; the portal's request is closed instead.
        var releaseMember: String { self == .powerManagement ? "UnInhibit" : "Uninhibit" }
    }

    /// What gives the inhibitor back.
    private enum Release {
        /// The portal's request object.
        case request(path: String)
        /// gnome-session's or PowerManagement's cookie.
        case cookie(UInt32)
    }

    private let bus: Bus
    private let logger: Logger
    private let flush: () -> Void
    /// Runs when ``holder`` changes.
    private let onChange: () -> Void
    /// A workout exists, so the inhibitor is wanted.
    private var wanted = false
    /// Counts the requests, so that an answer to one given up is released, not kept.
    private var attempt = 0
    private var held: (interface: Interface, release: Release)?

    /// The interface holding the inhibitor now, if any.
    public var holder: Interface? { held?.interface }

    /// On the daemon's connection; call on the server's queue.
    public init(server: TimerBusServer, logger: Logger, onChange: @escaping () -> Void) {
        bus = server.bus
        self.logger = logger
        flush = { [weak driver = server.driver] in driver?.updateInterest() }
        self.onChange = onChange
    }

    /// Takes the inhibitor, unless it is held or asked for already; `reason` is what the desktop shows, worded only
    /// when it is asked for (every event of a workout reaches here).
    public func hold(reason: @autoclosure () -> String) {
        guard !wanted else { return }
        wanted = true
        attempt += 1
        ask(Interface.allCases[...], reason: reason(), attempt: attempt)
        flush()
    }

    /// Asks the first of `interfaces`, and the rest in turn while they fail.
    private func ask(_ interfaces: ArraySlice<Interface>, reason: String, attempt: Int) {
        guard let interface = interfaces.first else {
            logger.notice("Nothing on this desktop keeps the computer awake during the workout; it may suspend.")
            return
        }
        do throws(BusError) {
            let message = try inhibitCall(interface, reason: reason)
            try bus.callAsync(message, timeout: .seconds(10)) { [weak self] result in
                guard let self else { return }
                let current = wanted && attempt == self.attempt
                switch result {
                case .success(let reply):
                    do throws(BusError) {
                        let release =
                            interface == .portal
                            ? Release.request(path: try reply.readString(type: "o")) : .cookie(try reply.readUInt32())
                        guard current else {
                            self.send(self.releaseCall(interface, release))
                            return
                        }
                        held = (interface, release)
                        logger.info("Keeping the computer awake.", metadata: ["through": "\(interface.rawValue)"])
                        onChange()
                    } catch {
                        logger.info("An odd answer to Inhibit.", metadata: ["through": "\(interface.rawValue)"])
                        if current { ask(interfaces.dropFirst(), reason: reason, attempt: attempt) }
                    }
                case .failure(let error):
                    logger.debug(
                        "Could not inhibit suspend.",
                        metadata: ["through": "\(interface.rawValue)", "error": "\(error)"])
                    if current { ask(interfaces.dropFirst(), reason: reason, attempt: attempt) }
                }
                flush()
            }
        } catch {
            logger.debug("Could not ask to inhibit suspend.", metadata: ["through": "\(interface.rawValue)"])
            ask(interfaces.dropFirst(), reason: reason, attempt: attempt)
        }
    }

    /// Gives the inhibitor back, or the one being asked for once it comes.
    public func release() {
        guard wanted else { return }
        wanted = false
        guard let held else { return }
        self.held = nil
        send(releaseCall(held.interface, held.release))
        flush()
        logger.info("No longer keeping the computer awake.")
        onChange()
    }

    private func send(_ message: BusMessage?) {
        guard let message else { return }
        do throws(BusError) {
            try bus.send(message)
        } catch {
            logger.warning("Failed to give the suspend inhibitor back.", metadata: ["error": "\(error)"])
        }
    }

    private func inhibitCall(_ interface: Interface, reason: String) throws(BusError) -> BusMessage {
        let message = try bus.newMethodCall(
            destination: interface.destination, path: interface.path, interface: interface.name, member: "Inhibit")
        switch interface {
        case .gnomeSession:
            // Never started for us: it is the session itself, or absent.
            try message.setAutoStart(false)
            try message.append(DesktopIdentity.window)
            try message.append(UInt32(0))  // no toplevel window
            try message.append(reason)
            try message.append(Self.suspendFlag)
        case .portal:
            try message.append("")  // no window
            try message.append(Self.suspendFlag)
            try message.openContainer("a", contents: "{sv}")
            try message.appendEntry("reason", "s") { message throws(BusError) in try message.append(reason) }
            try message.closeContainer()
        case .powerManagement:
            try message.append(DesktopIdentity.window)
            try message.append(reason)
        }
        return message
    }

    private func releaseCall(_ interface: Interface, _ release: Release) -> BusMessage? {
        do throws(BusError) {
            switch release {
            case .request(let path):
                return try bus.newMethodCall(
                    destination: interface.destination, path: path, interface: "org.freedesktop.portal.Request",
                    member: "Close")
            case .cookie(let cookie):
                let message = try bus.newMethodCall(
                    destination: interface.destination, path: interface.path, interface: interface.name,
                    member: interface.releaseMember)
                try message.append(cookie)
                return message
            }
        } catch {
            logger.warning("Failed to give the suspend inhibitor back.", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Suspend, in gnome-session's and the portal's flags (idle is 8, logout 1).
    private static let suspendFlag: UInt32 = 4
}

import CSystemd

/// Tells the service manager about the daemon's state through `$NOTIFY_SOCKET` (`sd_notify`).
///
/// Every method returns `true` if the message was sent, `false` if there is no `$NOTIFY_SOCKET` (not run
/// by systemd with `Type=notify`), and throws ``BusError`` naming `sd_notify` if sending failed.
/// Thread-safe: `sd_notify` keeps no state.
public struct SystemdNotifier: WatchdogNotifying, Sendable {
    public init() {}

    /// `READY=1`: start-up is finished (the bus name is owned).
    @discardableResult
    public func ready() throws(BusError) -> Bool {
        try notify("READY=1")
    }

    /// `STOPPING=1`: the daemon is shutting down.
    @discardableResult
    public func stopping() throws(BusError) -> Bool {
        try notify("STOPPING=1")
    }

    /// `WATCHDOG=1`: pets the watchdog; send it at least every half ``watchdogInterval()``.
    @discardableResult
    public func watchdog() throws(BusError) -> Bool {
        try notify("WATCHDOG=1")
    }

    /// `STATUS=…`: a one-line status shown by `systemctl status` (line breaks become spaces).
    @discardableResult
    public func status(_ text: String) throws(BusError) -> Bool {
        let line = String(text.map { $0.isNewline ? " " : $0 })
        return try notify("STATUS=\(line)")
    }

    /// Sends newline-separated `state` assignments. The corresponding C function is `sd_notify`.
    @discardableResult
    public func notify(_ state: String) throws(BusError) -> Bool {
        try sdCall("sd_notify") { sd_notify(0, state) } > 0
    }

    /// The watchdog timeout systemd set for this process (`WatchdogSec=`), or `nil` if there is none.
    /// The corresponding C function is `sd_watchdog_enabled`.
    public func watchdogInterval() throws(BusError) -> Duration? {
        var usec: UInt64 = 0
        guard try sdCall("sd_watchdog_enabled", { sd_watchdog_enabled(0, &usec) }) > 0 else { return nil }
        return .microseconds(Int64(clamping: usec))
    }
}

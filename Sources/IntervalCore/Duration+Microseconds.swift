extension Duration {
    /// Whole microseconds, the unit of the bus, the scheduler and systemd's `WATCHDOG_USEC`: negative durations are 0
    /// and durations too long for a `UInt64` saturate.
    public var wholeMicroseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        if overflow { return UInt64.max - 1 }
        return whole &+ UInt64(attoseconds / 1_000_000_000_000)
    }
}

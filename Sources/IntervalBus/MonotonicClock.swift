import Glibc

/// The current CLOCK_MONOTONIC time in microseconds, the clock of `sd_bus_get_timeout`.
internal func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

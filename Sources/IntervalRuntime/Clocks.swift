import Glibc
import IntervalCore

/// The clock cues are scheduled on: `CLOCK_BOOTTIME`, which, unlike `CLOCK_MONOTONIC`, keeps counting while the
/// machine sleeps, so a workout's elapsed time includes a suspend (docs/reference.md §6).
public enum BootClock {
    /// Nanoseconds since boot.
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        // clock_gettime cannot fail for a valid clock id and a valid pointer.
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// Microseconds since boot, the scheduler's time base.
    public static func microseconds() -> ClockInstant {
        nanoseconds() / 1000
    }

    /// This boot's id (`/proc/sys/kernel/random/boot_id`): boot-clock instants compare only within one boot.
    public static func bootID() -> String {
        let bytes = (try? FileBytes.read("/proc/sys/kernel/random/boot_id", limit: 64)) ?? []
        return String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    }

    /// The boot clock, the wall clock and the boot id, read together.
    public static func reading() -> ClockReading {
        ClockReading(boot: microseconds(), wall: WallClock.microseconds(), bootID: bootID())
    }
}

/// The wall clock, for what people read: when a workout started and ended.
public enum WallClock {
    /// Microseconds since the Unix epoch.
    public static func microseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }

    /// ISO 8601 in local time with its offset, to the second: `2026-11-23T07:30:00+01:00`.
    public static func iso8601(_ microseconds: Int64) -> String {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "" }
        let offset = Int(parts.tm_gmtoff) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let sign = offset < 0 ? "-" : "+"
        return "\(parts.tm_year + 1900)-\(two(Int(parts.tm_mon) + 1))-\(two(Int(parts.tm_mday)))"
            + "T\(two(Int(parts.tm_hour))):\(two(Int(parts.tm_min))):\(two(Int(parts.tm_sec)))"
            + "\(sign)\(two(abs(offset) / 60)):\(two(abs(offset) % 60))"
    }

    /// Local midnight of a `YYYY-MM-DD` date, in µs since the Unix epoch; nil for another shape or no such day.
    public static func localMidnight(ofDate text: String) -> Int64? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            let year = Int32(fields[0]), let month = Int32(fields[1]), let day = Int32(fields[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        guard seconds != -1, parts.tm_mday == day else { return nil }
        return Int64(seconds) * 1_000_000
    }
}

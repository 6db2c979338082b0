/// How durations read in timelines, notifications and status lines.
public enum TimeText {
    /// "40:00", "1:05:00", "0:30", "0:00.250" — a clock face, with milliseconds only when there are some.
    public static func clock(microseconds: Int64) -> String {
        let totalMilliseconds = (microseconds + 500) / 1000
        let milliseconds = totalMilliseconds % 1000
        let totalSeconds = totalMilliseconds / 1000
        let hours = totalSeconds / 3600
        let minutes = totalSeconds / 60 % 60
        let seconds = totalSeconds % 60
        var text =
            hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(seconds))" : "\(minutes):\(twoDigits(seconds))"
        if milliseconds != 0 {
            text += "." + String(String(milliseconds + 1000).dropFirst())
        }
        return text
    }

    /// A clock face rounded down to the whole second, as elapsed times and histories read: "14:48" for 14:48.9.
    public static func clockToTheSecond(microseconds: Int64) -> String {
        clock(microseconds: microseconds / 1_000_000 * 1_000_000)
    }

    /// A clock face for a fractional number of seconds, rounded to the second: "5:30".
    public static func clock(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "--:--" }
        return clock(microseconds: Int64((seconds.rounded()) * 1_000_000))
    }

    /// A countdown face, rounded up to the second: "0:12" for 11.2 s, so that it shows 0:00 only at the change.
    public static func countdown(microseconds: Int64) -> String {
        clock(microseconds: roundedUpToSecond(microseconds))
    }

    /// `microseconds` rounded up to a whole second.
    public static func roundedUpToSecond(_ microseconds: Int64) -> Int64 {
        (max(microseconds, 0) + 999_999) / 1_000_000 * 1_000_000
    }

    /// "30 s", "5 min", "1 min 30 s", "1 h 5 min", "250 ms" — how a person says a segment's length.
    public static func spoken(microseconds: Int64) -> String {
        let milliseconds = (microseconds + 500) / 1000
        if milliseconds < 1000 || milliseconds % 1000 != 0 && milliseconds < 10_000 {
            if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
            return milliseconds < 1000
                ? "\(milliseconds) ms" : "\(Localization.decimal("\(Double(milliseconds) / 1000)")) s"
        }
        let totalSeconds = (milliseconds + 500) / 1000
        let hours = totalSeconds / 3600
        let minutes = totalSeconds / 60 % 60
        let seconds = totalSeconds % 60
        var parts: [String] = []
        if hours > 0 { parts.append("\(hours) h") }
        if minutes > 0 { parts.append("\(minutes) min") }
        if seconds > 0 { parts.append("\(seconds) s") }
        return parts.joined(separator: " ")
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

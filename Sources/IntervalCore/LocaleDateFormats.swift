/// Shorter strftime formats made from the locale's own (`nl_langinfo`'s D_FMT and T_FMT), so that a date reads in
/// the person's order and separators: the history chart's axis has no room for the year, nor its list for seconds.
public enum LocaleDateFormats {
    /// The date without its year, with the separator that went with it: "%m/%d/%Y" → "%m/%d" (United States),
    /// "%d.%m.%Y" → "%d.%m." (German), "%Y-%m-%d" → "%m-%d", "%Y年%m月%d日" → "%m月%d日".
    public static func dayAndMonth(from dateFormat: String) -> String {
        let format = dateFormat.replacing("%F", with: "%Y-%m-%d").replacing("%D", with: "%m/%d/%y")
        var parts = conversions(format)
        guard let year = parts.firstIndex(where: { $0 == "%Y" || $0 == "%y" || $0 == "%EY" || $0 == "%Ey" }) else {
            return format
        }
        if year == parts.startIndex {
            // Leading: its separator follows it.
            parts.removeSubrange(year..<min(year + 2, parts.endIndex))
        } else if year == parts.index(before: parts.endIndex) {
            // Trailing: the separator before it goes, unless it closes the day or month as German's "." does.
            let separator = parts[year - 1]
            parts.removeSubrange((separator.hasPrefix("%") || separator == "." ? year : year - 1)...year)
        } else {
            parts.removeSubrange(year...min(year + 1, parts.endIndex - 1))
        }
        return parts.joined()
    }

    /// The time without its seconds: "%H:%M:%S" → "%H:%M", "%r" → "%I:%M %p", "%T" → "%H:%M".
    public static func hoursAndMinutes(from timeFormat: String) -> String {
        let format = timeFormat.replacing("%r", with: "%I:%M:%S %p").replacing("%T", with: "%H:%M:%S")
        var parts = conversions(format)
        guard let seconds = parts.firstIndex(of: "%S") else { return format }
        let separator = seconds > parts.startIndex && !parts[seconds - 1].hasPrefix("%") ? seconds - 1 : seconds
        parts.removeSubrange(separator...seconds)
        return parts.joined()
    }

    /// The format split into its conversions ("%d", "%Ey") and the text between them.
    private static func conversions(_ format: String) -> [String] {
        var parts: [String] = []
        var text = ""
        var characters = format.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                text.append(character)
                continue
            }
            if !text.isEmpty { parts.append(text) }
            text = ""
            var conversion = "%"
            while let next = characters.next() {
                conversion.append(next)
                if next != "E" && next != "O" && next != "-" && next != "_" && next != "0" { break }
            }
            parts.append(conversion)
        }
        if !text.isEmpty { parts.append(text) }
        return parts
    }
}

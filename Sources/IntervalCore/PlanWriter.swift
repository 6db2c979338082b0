/// A plan as plan language (docs/plan-language.md): the canonical text that the window's editor writes and "Copy as
/// one line" copies. Parsed again it gives the same plan: the same items, kinds, labels, durations to the
/// microsecond, repetitions, and paces and distances to the bit where a decimal of the plan language can say them
/// exactly (else to the last bit or two). Comments and the forms the author chose (`1:30` or `90s`, `10 km/h` or
/// `6:00/km`) are not part of a plan, so they are not kept.
public enum PlanWriter {
    /// How the items are laid out: one per line, groups in braces indented by two spaces (a `.plan` file), or all on
    /// one line, separated by commas, groups in parentheses (an `intervalctl start -e` argument).
    public enum Layout: Sendable {
        case file, oneLine
    }

    public static func text(for plan: Plan, layout: Layout = .file) -> String {
        var header = ["name \(quoted(plan.name))"]
        if let countdown = plan.countdown { header.append("countdown \(duration(countdown))") }
        switch layout {
        case .file:
            var lines = header + [""]
            write(plan.root.children, depth: 0, into: &lines)
            return lines.joined(separator: "\n") + "\n"
        case .oneLine:
            return (header + [oneLineItems(of: plan)]).joined(separator: ", ")
        }
    }

    /// The items alone, on one line: `5m walk, 8x(60s run "Jog", 90s walk), 5m walk "Cool-down"`.
    public static func oneLineItems(of plan: Plan) -> String {
        plan.root.children.map(oneLine).joined(separator: ", ")
    }

    private static func write(_ nodes: [PlanNode], depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        for node in nodes {
            switch node {
            case .step(let step):
                lines.append(indent + Self.step(step))
            case .group(let group):
                lines.append("\(indent)\(head(group.repetition)) {")
                write(group.children, depth: depth + 1, into: &lines)
                lines.append(indent + "}")
            }
        }
    }

    private static func oneLine(_ node: PlanNode) -> String {
        switch node {
        case .step(let step): Self.step(step)
        case .group(let group): "\(head(group.repetition))(\(group.children.map(oneLine).joined(separator: ", ")))"
        }
    }

    /// `90s run "Uphill" @ 5:00/km`: the label only when it is not the kind's own.
    public static func step(_ step: Step) -> String {
        PlanDraft.Step(step).line
    }

    /// `6x`, `for 45m`, `for 5km`.
    public static func head(_ repetition: Repetition) -> String {
        switch repetition {
        case .once, .times(1): "1x"
        case .times(let count): "\(count)x"
        case .forDuration(let limit): "for \(duration(limit))"
        case .forDistance(let metres): "for \(distance(metres))"
        }
    }

    /// `45s`, `1m30s`, `1h5m`, `250ms`, `2m0.5s`: whole units from the hour down, a fraction only in the seconds, and
    /// exact to the microsecond.
    public static func duration(_ microseconds: Int64) -> String {
        if microseconds < Micros.second, microseconds % Micros.millisecond == 0 {
            return "\(microseconds / Micros.millisecond)ms"
        }
        let hours = microseconds / Micros.hour
        let minutes = microseconds % Micros.hour / Micros.minute
        let rest = microseconds % Micros.minute
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if rest > 0 || text.isEmpty {
            var fraction = String(rest % Micros.second)
            while fraction.count < 6 { fraction = "0" + fraction }
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "\(rest / Micros.second)" + (fraction.isEmpty ? "" : ".\(fraction)") + "s"
        }
        return text
    }

    /// The first of `5:30/km`, `9:00/mi`, `10.5 km/h`, `6 mph` that the parser reads back as this very speed, else
    /// metres per second.
    public static func pace(_ pace: Pace) -> String {
        let speed = pace.metresPerSecond
        for (length, unit) in [(1000.0, "/km"), (Pace.metresPerMile, "/mi")] {
            let seconds = (length / speed).rounded()
            if seconds >= 1, seconds < 1e9, length / seconds == speed {
                let whole = Int64(seconds)
                let secondsPart = whole % 60 < 10 ? "0\(whole % 60)" : "\(whole % 60)"
                return "\(whole / 60):\(secondsPart)\(unit)"
            }
        }
        if let text = number(speed * 3.6), let value = Double(text), value / 3.6 == speed { return "\(text) km/h" }
        if let text = number(speed * 3600 / Pace.metresPerMile), let value = Double(text),
            value * Pace.metresPerMile / 3600 == speed
        {
            return "\(text) mph"
        }
        return "\(number(speed) ?? PlanReport.fixed(speed, digits: 9)) m/s"
    }

    /// `5km`, `3.1mi`: the shorter of the two that the parser reads back as these very metres, else kilometres.
    public static func distance(_ metres: Double) -> String {
        let exact = [(1000.0, "km"), (Pace.metresPerMile, "mi")].compactMap { length, unit -> String? in
            guard let text = number(metres / length), Double(text).map({ $0 * length }) == metres else { return nil }
            return text + unit
        }
        return exact.min { $0.count < $1.count }
            ?? "\(number(metres / 1000) ?? PlanReport.fixed(metres / 1000, digits: 9))km"
    }

    /// The shortest decimal that reads back as `value` ("5", "10.5"), or nil when Swift would write it with an
    /// exponent, which the plan language has not.
    static func number(_ value: Double) -> String? {
        var text = "\(value)"
        guard value.isFinite, !text.contains("e") else { return nil }
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// `"Warm-up"`, with `"` and `\` escaped as labels and names take them.
    public static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}

/// The readable timeline of `intervalctl plan show`: repeats folded, then totals.
public enum PlanReport {
    public static func text(for plan: Plan) -> String {
        let estimate = PlanEstimate(plan)
        var lines: [String] = []
        lines.append("\(plan.displayName) — \(lengthText(plan))")
        if let countdown = plan.countdown {
            lines.append(
                tr("Countdown {time} before each change", ["time": TimeText.spoken(microseconds: countdown)]))
        }
        lines.append("")
        describe(plan.root.children, depth: 0, into: &lines)
        lines.append("")
        lines.append(contentsOf: totals(estimate))
        return lines.joined(separator: "\n")
    }

    /// "40:00, 56 segments": how long a plan is, as every command announces it.
    public static func lengthText(_ plan: Plan) -> String {
        "\(timeText(plan)), \(segmentsText(plan.segmentCount))"
    }

    /// "24:00", or "24:00 + 2 open steps" for a plan with steps the person ends: its time, wherever totals show.
    public static func timeText(_ plan: Plan) -> String {
        timeText(plan.duration, openSteps: plan.openStepCount)
    }

    public static func timeText(_ timed: Int64, openSteps: Int64) -> String {
        let clock = TimeText.clock(microseconds: timed)
        guard openSteps > 0 else { return clock }
        // TRANSLATORS: a plan's time with steps the person ends, which have none: "24:00 + 2 open steps".
        return trn(
            "{time} + {count} open step", "{time} + {count} open steps", Int(clamping: openSteps), ["time": clock])
    }

    /// A workout's time done of `plan`: as exact as the plan's times ("0:01.800") when every step is timed; to the
    /// second when steps the person ends, which a clock did not time, are in it.
    public static func workoutTimeText(_ elapsed: Int64, of plan: Plan) -> String {
        plan.openStepCount == 0
            ? TimeText.clock(microseconds: elapsed) : TimeText.clockToTheSecond(microseconds: elapsed)
    }

    /// "2 open steps": steps the person ends, counted.
    static func openStepsText(_ count: Int64) -> String {
        // TRANSLATORS: how many steps of a kind the person ends, which have no time: "Warm-up  1 open step".
        trn("{count} open step", "{count} open steps", Int(clamping: count))
    }

    /// How long a step is, as its row says it: "1:30", "until Done", "0.4 km, until Done" for a distance without a
    /// pace, or "until heart rate below 120" for a step its heart rate ends.
    static func length(of step: Step) -> String {
        guard step.isOpen else { return TimeText.clock(microseconds: step.duration) }
        if let bound = step.heartRateBound { return bound.untilText }
        guard let metres = step.distance else { return tr("until Done") }
        return tr("{distance}, until Done", ["distance": shortDistanceText(metres)])
    }

    /// "0.4 km", "1 mi": a step's distance as it was written, in the reader's decimals.
    static func shortDistanceText(_ metres: Double) -> String {
        let written = PlanWriter.distance(metres)
        let unit = written.hasSuffix("mi") ? "mi" : "km"
        return "\(Localization.decimal(String(written.dropLast(2)))) \(unit)"
    }

    /// "52 segments", "1 segment".
    public static func segmentsText(_ count: Int64) -> String {
        trn("{count} segment", "{count} segments", Int(clamping: count))
    }

    static func totals(_ estimate: PlanEstimate) -> [String] {
        let rows = totalRows(estimate, aligned: true)
        let width = rows.map(\.name.count).max() ?? 0
        return rows.map { $0.name.padding(to: width) + "  " + $0.value }
    }

    /// The plan's totals as named values: the total, the time and share of each kind, the distance and the average
    /// pace. `aligned` pads the times to one width, for a column of text.
    public static func totalRows(_ estimate: PlanEstimate, aligned: Bool = false) -> [(name: String, value: String)] {
        let clock = { (duration: Int64) in
            let text = TimeText.clock(microseconds: duration)
            return aligned ? text.leftPadding(to: 5) : text
        }
        var rows: [(name: String, value: String)] = [
            (
                tr("Total"),
                estimate.openSteps > 0
                    ? timeText(estimate.duration, openSteps: estimate.openSteps) : clock(estimate.duration)
            )
        ]
        for kind in estimate.kinds {
            let percent = Int((kind.share * 100).rounded())
            let value =
                switch (kind.duration, kind.openSteps) {
                case (_, 0): "\(clock(kind.duration))\(aligned ? "  " : " · ")\(percent) %"
                // A kind of steps the person ends alone has no time and no share of it.
                case (0, let open): openStepsText(open)
                case (let time, let open):
                    "\(timeText(time, openSteps: open))\(aligned ? "  " : " · ")\(percent) %"
                }
            rows.append((Localization.kindName(kind.kind), value))
        }
        if let distance = estimate.distance { rows.append((tr("Distance"), distanceText(distance))) }
        if let pace = estimate.averagePace {
            rows.append(
                (
                    tr("Average pace"),
                    "\(pace.perKilometreText) (\(pace.perMileText)), \(format1(pace.kilometresPerHour)) km/h (\(format1(pace.milesPerHour)) mph)"
                ))
        }
        return rows
    }

    /// One row of a plan's listing, as the window shows it: a step, or a repeat holding its rows.
    public enum Row: Sendable, Equatable {
        /// "Run (run) @ 5:00/km" (the label, the kind when the label is not its own, the pace), and "1:30".
        case step(title: String, duration: String)
        /// "6 ×" (or what a bounded repeat solved), "6:00, 1:00 per round", and what it repeats.
        case repeats(title: String, subtitle: String, rows: [Row])
    }

    /// A plan's items as a person reads them, on one line: "Brisk walk 5:00, 8 × (Jog 1:00, Walk 1:30), Walk 5:00";
    /// labels in the user's language. Where a description belongs (a program's day, a reminder); plan language is
    /// `PlanWriter.oneLineItems`.
    public static func description(of plan: Plan) -> String {
        plan.root.children.map(describe).joined(separator: ", ")
    }

    private static func describe(_ node: PlanNode) -> String {
        switch node {
        case .step(let step):
            return "\(Localization.label(step.label)) \(length(of: step))"
        case .group(let group):
            let items = group.children.map(describe).joined(separator: ", ")
            switch group.repetition {
            case .once, .times(1): return items
            case .times(let count): return "\(count) × (\(items))"
            case .forDuration(let duration):
                return tr(
                    "{items} for {length}", ["items": "(\(items))", "length": TimeText.clock(microseconds: duration)])
            case .forDistance(let metres):
                return tr("{items} for {length}", ["items": "(\(items))", "length": distanceText(metres)])
            }
        }
    }

    /// "5.00 km (3.11 mi)", with the user's decimal separator.
    public static func distanceText(_ metres: Double) -> String {
        "\(format2(metres / 1000)) km (\(format2(metres / Pace.metresPerMile)) mi)"
    }

    /// The plan's items as rows, repeats folded (as ``text(for:)`` lists them).
    public static func rows(for plan: Plan) -> [Row] {
        rows(plan.root.children)
    }

    private static func rows(_ nodes: [PlanNode]) -> [Row] {
        nodes.map { node in
            switch node {
            case .step(let step):
                .step(title: title(of: step, inWords: true), duration: length(of: step))
            case .group(let group):
                .repeats(
                    title: head(of: group),
                    subtitle: "\(timeText(of: group.totalSummary)), \(perRound(group))",
                    rows: rows(group.children))
            }
        }
    }

    /// A plan's name as a person reads it: a one-line plan, named by its own text (`8x(30s run, 30s walk)`, which
    /// `start -e` and the overview search send), is said in words, "8 × (Run 0:30, Walk 0:30)", the kinds in the
    /// reader's language (docs/reference.md §9), without paces; any other name is its author's, as it is.
    public static func readableName(_ name: String) -> String {
        guard name.utf8.count <= 48, let plan = try? PlanParser.parse(name, origin: "", defaultName: ""),
            plan.name.isEmpty, PlanLocator.inlineName(for: name) == name
        else { return Localization.planName(name) }
        return inWords(plan.root.children)
    }

    private static func inWords(_ nodes: [PlanNode]) -> String {
        nodes.map { node in
            switch node {
            case .step(let step):
                "\(Localization.label(step.label)) \(length(of: step))"
            case .group(let group):
                "\(head(of: group)) (\(inWords(group.children)))"
            }
        }.joined(separator: ", ")
    }

    /// "Uphill (Run) @ 5:00/km" or "Intervals (Bike) @ 200 W", as `plan show`'s timeline, beside plan text, writes a
    /// step; the window's rows say it in words, "Uphill · Run · 5:00/km".
    static func title(of step: Step, inWords: Bool = false) -> String {
        // The label, the kind by name when the label is not the kind's own, the target ("5:00/km", "130–150 bpm").
        let label = Localization.label(step.label)
        let kind = Localization.kindName(step.kind) == label ? nil : Localization.kindName(step.kind)
        let target = step.target?.text
        if inWords { return ([label] + [kind, target].compactMap { $0 }).joined(separator: " · ") }
        return label + (kind.map { " (\($0))" } ?? "") + (target.map { " @ \($0)" } ?? "")
    }

    static func perRound(_ group: PlanGroup) -> String {
        tr("{time} per round", ["time": timeText(of: group.iterationSummary)])
    }

    /// A stretch of plan's time, as ``timeText(_:)`` says a plan's.
    private static func timeText(of summary: PlanSummary) -> String {
        timeText(summary.duration, openSteps: summary.openSteps)
    }

    /// The timeline's lines: each item's length in a column as wide as the widest ("until Done", "3:00 + 2 open
    /// steps"), then the item, indented by its depth.
    private static func describe(_ nodes: [PlanNode], depth: Int, into lines: inout [String]) {
        var columns: [(length: String, item: String)] = []
        columnize(nodes, depth: depth, into: &columns)
        let width = max(columns.map(\.length.count).max() ?? 0, 9)
        lines.append(contentsOf: columns.map { "\($0.length.leftPadding(to: width))  \($0.item)" })
    }

    private static func columnize(
        _ nodes: [PlanNode], depth: Int, into columns: inout [(length: String, item: String)]
    ) {
        let indent = String(repeating: "  ", count: depth)
        for node in nodes {
            switch node {
            case .step(let step):
                columns.append((length(of: step), "\(indent)\(title(of: step))"))
            case .group(let group):
                columns.append((timeText(of: group.totalSummary), "\(indent)\(head(of: group)) (\(perRound(group)))"))
                columnize(group.children, depth: depth + 1, into: &columns)
            }
        }
    }

    /// "6 ×", or for a bounded repeat what it solved: "for 5 km: 6 full rounds + 0:12 of round 7".
    static func head(of group: PlanGroup) -> String {
        let rounds = trn("{count} full round", "{count} full rounds", Int(clamping: group.fullIterations))
        let solved =
            group.tailDuration > 0
            ? tr(
                "{rounds} + {time} of round {number}",
                [
                    "rounds": rounds, "time": TimeText.clock(microseconds: group.tailDuration),
                    "number": "\(group.fullIterations + 1)",
                ])
            : rounds
        switch group.repetition {
        case .once, .times: return "\(group.fullIterations) ×"
        case .forDuration(let limit):
            return tr("for {limit}: {rounds}", ["limit": TimeText.clock(microseconds: limit), "rounds": solved])
        case .forDistance(let metres):
            return tr("for {limit}: {rounds}", ["limit": "\(trimmedNumber(metres / 1000)) km", "rounds": solved])
        }
    }

    /// "5", "2.5", "0.42": as few decimals as the value needs, at most three; the decimal separator is the user's.
    static func trimmedNumber(_ value: Double) -> String {
        var text = fixed(value, digits: 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return Localization.decimal(text)
    }

    /// One or two decimals, with the user's decimal separator (text output only).
    public static func format1(_ value: Double) -> String { Localization.decimal(fixed(value, digits: 1)) }
    public static func format2(_ value: Double) -> String { Localization.decimal(fixed(value, digits: 2)) }

    /// A fixed-point rendering without Foundation's `String(format:)`.
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        // Beyond what a fixed point holds (an absurd pace or distance typed in), Swift's own rendering: "1e+20".
        guard let scaled = Int64(exactly: (abs(value) * scale).rounded()) else { return "\(value)" }
        let whole = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (digits > 0 ? "." + fraction : "")
    }
}

extension String {
    /// The string followed by spaces up to `width` characters, for columns.
    public func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Spaces up to `width` characters, then the string: right-aligned columns.
    public func leftPadding(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

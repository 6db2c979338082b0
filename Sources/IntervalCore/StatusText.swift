/// How `intervalctl status` shows the daemon's properties: the text line, `--format` templates, the JSON object and
/// waybar's object. Pure, like the rest of the core, so that every shape is tested without a bus.
///
/// Times are shown to the second as a countdown reads: the segment's remaining time is rounded up ("0:01" during the
/// last second, never "0:00" while a segment runs), the elapsed time is rounded down, so both change at the same
/// instant when segments last whole seconds.
public enum StatusText {
    /// `running · Galloway run/walk 30:30 · Run 0:12 left (23/56) · next Walk · 14:48/40:00`, or `idle`; in an open
    /// step `Warm up 2:37, until Done (1/14)`. The `next` part is left out during the last segment; the strap's heart
    /// rate follows while one is heard (`· ♥ 142`), then the machine's reading (`· 12.0 km/h · 350 m`, `· 210 W · 90
    /// rpm`).
    public static func line(_ status: TimerStatus) -> String {
        guard status.state != .idle else { return stateName(.idle) }
        var parts = [stateName(status.state)]
        if !status.planName.isEmpty { parts.append(Localization.planName(status.planName)) }
        let (current, time) = (Localization.label(status.segmentLabel), remaining(status))
        parts.append(
            status.open
                // TRANSLATORS: a step the person ends, counting up: "Warm up 2:37, until Done (1/14)"; "Done" is the
                // button that ends it.
                ? tr(
                    "{current} {remaining}, until Done ({position})",
                    ["current": current, "remaining": time, "position": position(status)])
                : tr(
                    "{current} {remaining} left ({position})",
                    ["current": current, "remaining": time, "position": position(status)]))
        if !status.nextLabel.isEmpty { parts.append(tr("next {next}", ["next": Localization.label(status.nextLabel)])) }
        parts.append("\(elapsed(status))/\(duration(status))")
        if status.heartRate > 0 { parts.append("♥ \(status.heartRate)") }
        if let machine = status.machineReading?.text, !machine.isEmpty { parts.append(machine) }
        return parts.joined(separator: " · ")
    }

    /// "running", "paused", "idle", in the user's language.
    public static func stateName(_ state: TimerState) -> String {
        switch state {
        case .idle: tr("idle")
        case .running: tr("running")
        case .paused: tr("paused")
        }
    }

    /// What `{field}` stands for in a template. While idle every field but `state` and `text` is empty.
    public static func value(_ field: StatusField, of status: TimerStatus) -> String {
        switch field {
        case .state: return status.state.rawValue
        case .text: return line(status)
        default: break
        }
        guard status.state != .idle else { return "" }
        switch field {
        case .state, .text: return ""  // Answered above.
        case .plan: return status.planName
        case .kind: return status.segmentKind
        case .label: return status.segmentLabel
        case .remaining: return remaining(status)
        case .elapsed: return elapsed(status)
        case .duration: return duration(status)
        case .index: return String(UInt64(status.segmentIndex) + 1)
        case .count: return String(status.segmentCount)
        case .next: return status.nextLabel
        case .progress: return String(percent(status))
        case .segmentIndex: return String(status.segmentIndex)
        case .segmentDuration: return TimeText.spoken(microseconds: Int64(clamping: status.segmentDuration))
        case .heartRate: return status.heartRate > 0 ? String(status.heartRate) : ""
        case .speed: return status.machineReading?.speed.map(PlanReport.format1) ?? ""
        case .power: return status.machineReading?.power.map(String.init) ?? ""
        case .machineDistance: return status.machineReading?.distance.map(String.init) ?? ""
        }
    }

    /// The segment's remaining time, rounded up to the second: "0:12" for 11.2 s; in an open step, which has none,
    /// its time so far, counting up and rounded down: "2:37".
    public static func remaining(_ status: TimerStatus) -> String {
        status.open
            ? TimeText.clockToTheSecond(microseconds: Int64(clamping: status.segmentElapsed))
            : TimeText.countdown(microseconds: Int64(clamping: status.segmentRemaining))
    }

    /// The workout's elapsed time, rounded down to the second: "14:48".
    public static func elapsed(_ status: TimerStatus) -> String {
        TimeText.clockToTheSecond(microseconds: Int64(clamping: status.elapsed))
    }

    /// The plan's time: "40:00", or "24:00 + 2 open steps" for a plan with steps the person ends.
    public static func duration(_ status: TimerStatus) -> String {
        PlanReport.timeText(Int64(clamping: status.planDuration), openSteps: Int64(status.planOpenSteps))
    }

    /// "23/56": the 1-based segment number and the segment count.
    public static func position(_ status: TimerStatus) -> String {
        "\(UInt64(status.segmentIndex) + 1)/\(status.segmentCount)"
    }

    /// How much of the plan's time is done, 0...1 (0 while idle or for a plan of steps the person ends alone): its
    /// timed steps' time so far, skips included, of their whole.
    public static func progress(_ status: TimerStatus) -> Double {
        guard status.state != .idle, status.planDuration > 0 else { return 0 }
        let done = status.planDuration - min(status.remaining, status.planDuration)
        return min(Double(done) / Double(status.planDuration), 1)
    }

    /// ``progress(_:)`` as a whole percentage, rounded down so that 100 means done.
    public static func percent(_ status: TimerStatus) -> Int {
        Int((progress(status) * 100).rounded(.down))
    }

    /// Microseconds until the shown remaining time changes (`SegmentRemaining` crosses a whole second, or in an open
    /// step `SegmentElapsed` does), or nil when nothing changes without an event (idle, paused). At most one second.
    public static func microsecondsUntilNextSecond(_ status: TimerStatus) -> UInt64? {
        guard status.state == .running else { return nil }
        if status.open { return 1_000_000 - status.segmentElapsed % 1_000_000 }
        let fraction = status.segmentRemaining % 1_000_000
        return fraction == 0 ? 1_000_000 : fraction
    }

    /// `status` with its times rounded as they are shown: two statuses that print the same compare equal.
    public static func shown(_ status: TimerStatus) -> TimerStatus {
        var shown = status
        shown.elapsed = status.elapsed / 1_000_000
        // Only an open step shows its count; elsewhere it would print a line more where it changes apart.
        shown.segmentElapsed = status.open ? status.segmentElapsed / 1_000_000 : 0
        shown.segmentRemaining = UInt64(
            TimeText.roundedUpToSecond(Int64(clamping: status.segmentRemaining)) / 1_000_000)
        // What is left of the plan, as the window shows it: rounded up, changing with the segment's time left.
        shown.remaining = UInt64(TimeText.roundedUpToSecond(Int64(clamping: status.remaining)) / 1_000_000)
        return shown
    }

    // MARK: JSON

    /// One line of JSON with stable snake_case keys: the properties (times in microseconds, `segment_index` 0-based as
    /// on the bus), then human fields: `position` "23/56", `remaining`, `elapsed`, `duration`, `progress` 0...1, and
    /// `text` (the text line, or what `--format` made of the status).
    public static func json(_ status: TimerStatus, text: String) -> String {
        var object = JSONObject()
        object.add("state", string: status.state.rawValue)
        object.add("plan_name", string: status.planName)
        object.add("plan_duration_us", number: String(status.planDuration))
        object.add("segment_index", number: String(status.segmentIndex))
        object.add("segment_count", number: String(status.segmentCount))
        object.add("segment_kind", string: status.segmentKind)
        object.add("segment_label", string: status.segmentLabel)
        object.add("segment_duration_us", number: String(status.segmentDuration))
        object.add("next_label", string: status.nextLabel)
        object.add("elapsed_us", number: String(status.elapsed))
        // An open step has no time left, not none.
        object.add("segment_remaining_us", number: status.open ? nil : String(status.segmentRemaining))
        object.add("segment_elapsed_us", number: String(status.segmentElapsed))
        object.add("open", bool: status.open)
        object.add("inhibited", string: status.inhibited)
        // No strap heard is no heart rate, not 0.
        object.add("heart_rate", number: status.heartRate > 0 ? String(status.heartRate) : nil)
        object.add("machine", object: status.machineReading.map(machineJSON))
        object.add("position", string: value(.index, of: status).isEmpty ? "" : position(status))
        object.add("remaining", string: value(.remaining, of: status))
        object.add("elapsed", string: value(.elapsed, of: status))
        object.add("duration", string: value(.duration, of: status))
        object.add("progress", number: String((progress(status) * 10_000).rounded() / 10_000))
        object.add("text", string: text)
        return object.closed
    }

    /// `{"speed":12.0,"distance":350,"incline":0.0,"power":null,"cadence":null}`: every reading, null where the
    /// machine reports none.
    private static func machineJSON(_ reading: MachineReading) -> JSONObject {
        var object = JSONObject()
        for field in MachineReading.Field.allCases {
            let number: String? =
                switch field {
                case .speed: reading.speed.flatMap(jsonNumber)
                case .distance: reading.distance.map(String.init)
                case .incline: reading.incline.flatMap(jsonNumber)
                case .power: reading.power.map(String.init)
                case .cadence: reading.cadence.flatMap(jsonNumber)
                }
            object.add(field.rawValue, number: number)
        }
        return object
    }

    /// `value` as a JSON number ("12.0", "-1.5"); nil for what JSON has no number for (infinity, NaN).
    private static func jsonNumber(_ value: Double) -> String? { value.isFinite ? "\(value)" : nil }

    // MARK: waybar

    /// waybar's custom-module object (`"return-type": "json"`): exactly `text`, `tooltip`, `class` and `percentage`.
    /// `class` is an array: the state (`idle`, `running`, `paused`) and, during a workout, `kind-KIND` (`kind-run`).
    /// `text` is used as given (the caller escapes field values for Pango); the tooltip is escaped here.
    public static func waybar(_ status: TimerStatus, text: String) -> String {
        var classes = [status.state.rawValue]
        if status.state != .idle, !status.segmentKind.isEmpty { classes.append("kind-" + status.segmentKind) }
        var object = JSONObject()
        object.add("text", string: text)
        object.add("tooltip", string: pangoEscaped(tooltip(status)))
        object.add("class", array: classes)
        object.add("percentage", number: String(percent(status)))
        return object.closed
    }

    /// Several lines for a tooltip:
    /// ```
    /// Galloway run/walk 30:30 · running
    /// Run · 0:12 left · segment 23 of 56
    /// Next: Walk
    /// 14:48 of 40:00 · 37 %
    /// ```
    public static func tooltip(_ status: TimerStatus) -> String {
        guard status.state != .idle else { return "intervald: \(stateName(.idle))" }
        let (current, time, position) = (
            Localization.label(status.segmentLabel), remaining(status), WorkoutPresenter.position(status)
        )
        return [
            "\(Localization.planName(status.planName)) · \(stateName(status.state))",
            status.open
                ? tr(
                    "{current} · {remaining}, until Done · {position}",
                    ["current": current, "remaining": time, "position": position])
                : tr(
                    "{current} · {remaining} left · {position}",
                    ["current": current, "remaining": time, "position": position]),
            WorkoutPresenter.nextText(status),
            tr(
                "{elapsed} of {duration} · {percent} %",
                ["elapsed": elapsed(status), "duration": duration(status), "percent": "\(percent(status))"]),
        ].joined(separator: "\n")
    }

    /// Escapes `&`, `<` and `>` for Pango markup, which waybar applies to `text` and `tooltip`.
    public static func pangoEscaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

}

/// What a hook learns about the event that ran it.
public struct HookEvent: Sendable {
    public enum Kind: String, Sendable {
        case cue, finish, stop
    }

    public var kind: Kind
    public var plan: Plan
    public var segment: Segment?
    public var next: Segment?
    public var reason: StopReason?

    public init(kind: Kind, plan: Plan, segment: Segment? = nil, next: Segment? = nil, reason: StopReason? = nil) {
        (self.kind, self.plan, self.segment, self.next, self.reason) = (kind, plan, segment, next, reason)
    }

    /// The fields of ``StatusField`` as the status line would show them at this event: at a cue, the segment just
    /// started, with all of it left; at a stop, the segment that played, from its start; at the end, the whole plan
    /// done.
    private var status: TimerStatus {
        let timeDone = plan.time(at: segment?.start ?? plan.timelineEnd)
        var status = TimerStatus(
            state: .running, planName: plan.name, planDuration: UInt64(clamping: plan.duration),
            segmentIndex: UInt32(clamping: segment?.index ?? 0), segmentCount: UInt32(clamping: plan.segmentCount),
            segmentKind: segment?.kind ?? "", segmentLabel: segment?.label ?? "",
            segmentDuration: UInt64(clamping: segment?.duration ?? 0),
            nextLabel: next?.label ?? "", elapsed: UInt64(clamping: timeDone),
            segmentRemaining: UInt64(clamping: segment?.duration ?? 0),
            open: segment?.isOpen ?? false)
        status.remaining = UInt64(clamping: plan.duration - timeDone)
        status.planOpenSteps = UInt32(clamping: plan.openStepCount)
        status.segmentDistance = segment?.wholeMetres ?? 0
        status.segmentHeartRateBound = segment?.heartRateBound?.planText ?? ""
        status.segmentTarget = segment?.target?.planText ?? ""
        return status
    }

    /// The value of `field` in `status` (this event's, made once per hook); the segment's fields are empty when there
    /// is no segment (`on-finish`).
    private func value(of field: StatusField, in status: TimerStatus) -> String {
        let ofSegment: Set<StatusField> = [
            .kind, .label, .remaining, .index, .next, .segmentIndex, .segmentDuration,
        ]
        guard field.inHooks, segment != nil || !ofSegment.contains(field) else { return "" }
        return StatusText.value(field, of: status)
    }

    /// The spellings of earlier releases that a hook may still use, with what to use instead: `{index}` and
    /// `{duration}` meant the segment's index from 0 and its length (now `{segment_index}`, `{segment_duration}`, as
    /// `INTERVALD_INDEX` and `INTERVALD_DURATION`), and four variables had names of their own, which are still set.
    public static let deprecated: [(spelling: String, instead: String)] = [
        ("{index}", "{index} now counts from 1, as the status line does; {segment_index} counts from 0"),
        (
            "{duration}",
            "{duration} is now the plan's duration, as in the status line; the segment's is {segment_duration}"
        ),
        ("INTERVALD_INDEX", "INTERVALD_INDEX now counts from 1; INTERVALD_SEGMENT_INDEX counts from 0"),
        ("INTERVALD_DURATION", "INTERVALD_DURATION is now the plan's; the segment's is INTERVALD_SEGMENT_DURATION"),
        ("INTERVALD_DURATION_US", "use INTERVALD_SEGMENT_DURATION_US"),
        ("INTERVALD_SEGMENT_COUNT", "use INTERVALD_COUNT"),
        ("INTERVALD_NEXT_LABEL", "use INTERVALD_NEXT"),
        ("INTERVALD_POSITION", "use INTERVALD_INDEX and INTERVALD_COUNT"),
    ]

    /// What each deprecated spelling that `argv` uses has become, to log once when the hook is loaded.
    public static func deprecations(in argv: [String]) -> [String] {
        let text = argv.joined(separator: " ")
        return deprecated.filter { uses(text, $0.spelling) }.map(\.instead)
    }

    /// Whether `text` has `spelling` as a whole name (`INTERVALD_DURATION` is not in `INTERVALD_DURATION_US`).
    private static func uses(_ text: String, _ spelling: String) -> Bool {
        var rest = text[...]
        while !rest.isEmpty {
            if rest.starts(with: spelling) {
                let after = rest.dropFirst(spelling.count).first
                if !(after.map { $0.isUppercase || $0.isNumber || $0 == "_" } ?? false) { return true }
            }
            rest = rest.dropFirst()
        }
        return false
    }

    /// The `INTERVALD_*` variables a hook gets: each field of ``StatusField`` that hooks have
    /// (``StatusField/environmentName``), the event, the stop reason, the durations in µs, and, for one release, the
    /// variables of earlier releases (``deprecated``).
    public var environment: [String: String] {
        var variables = ["INTERVALD_EVENT": kind.rawValue]
        let status = self.status
        for field in StatusField.allCases where field.inHooks {
            variables[field.environmentName] = value(of: field, in: status)
        }
        variables["INTERVALD_PLAN_DURATION_US"] = String(plan.duration)
        if let segment {
            variables["INTERVALD_SEGMENT_DURATION_US"] = String(segment.duration)
            variables["INTERVALD_DURATION_US"] = String(segment.duration)
            variables["INTERVALD_POSITION"] = WorkoutPresenter.position(segment, in: plan)
        }
        variables["INTERVALD_SEGMENT_COUNT"] = String(plan.segmentCount)
        if let next { variables["INTERVALD_NEXT_LABEL"] = next.label }
        if let reason { variables["INTERVALD_REASON"] = reason.rawValue }
        return variables
    }

    /// `argv` with the fields filled in: `{event}`, `{reason}` and each of ``StatusField`` that hooks have, so that
    /// `["espeak-ng", "{label}"]` speaks the cue without a shell. The program (`argv[0]`) is never filled in, and each
    /// argument is filled in one pass: a label that contains `{plan}` stays literal.
    public func expand(_ argv: [String]) -> [String] {
        guard let program = argv.first else { return [] }
        let status = self.status
        return [program] + argv.dropFirst().map { fill($0, status) }
    }

    private func fill(_ argument: String, _ status: TimerStatus) -> String {
        var result = ""
        var rest = argument[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"),
                let value = value(of: rest[afterOpen..<close], in: status)
            {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "{"
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }

    private func value(of name: Substring, in status: TimerStatus) -> String? {
        switch name {
        case "event": kind.rawValue
        case "reason": reason?.rawValue ?? ""
        default: StatusField(rawValue: String(name)).flatMap { $0.inHooks ? value(of: $0, in: status) : nil }
        }
    }
}

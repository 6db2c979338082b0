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
        self.kind = kind
        self.plan = plan
        self.segment = segment
        self.next = next
        self.reason = reason
    }

    /// The `INTERVALD_*` variables a hook gets.
    public var environment: [String: String] {
        var variables = [
            "INTERVALD_EVENT": kind.rawValue,
            "INTERVALD_PLAN": plan.name,
            "INTERVALD_PLAN_DURATION_US": String(plan.duration),
            "INTERVALD_SEGMENT_COUNT": String(plan.segmentCount),
        ]
        if let segment {
            variables["INTERVALD_KIND"] = segment.kind
            variables["INTERVALD_LABEL"] = segment.label
            variables["INTERVALD_INDEX"] = String(segment.index)
            variables["INTERVALD_DURATION_US"] = String(segment.duration)
            variables["INTERVALD_DURATION"] = TimeText.spoken(microseconds: segment.duration)
            variables["INTERVALD_POSITION"] = WorkoutPresenter.position(segment, in: plan)
        }
        if let next { variables["INTERVALD_NEXT_LABEL"] = next.label }
        if let reason { variables["INTERVALD_REASON"] = reason.rawValue }
        return variables
    }

    /// `argv` with `{label}`, `{kind}`, `{index}`, `{duration}`, `{plan}`, `{next}`, `{reason}` and `{event}` filled
    /// in, so that `["espeak-ng", "{label}"]` speaks the cue without a shell. The program (`argv[0]`) is never
    /// filled in, and each argument is filled in one pass: a label that contains `{plan}` stays literal.
    public func expand(_ argv: [String]) -> [String] {
        guard let program = argv.first else { return [] }
        return [program] + argv.dropFirst().map(fill)
    }

    private func fill(_ argument: String) -> String {
        var result = ""
        var rest = argument[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = value(of: rest[afterOpen..<close]) {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result += "{"
                rest = rest[afterOpen...]
            }
        }
        return result + rest
    }

    private func value(of field: Substring) -> String? {
        switch field {
        case "label": segment?.label ?? ""
        case "kind": segment?.kind ?? ""
        case "index": segment.map { String($0.index) } ?? ""
        case "duration": segment.map { TimeText.spoken(microseconds: $0.duration) } ?? ""
        case "plan": plan.name
        case "next": next?.label ?? ""
        case "reason": reason?.rawValue ?? ""
        case "event": kind.rawValue
        default: nil
        }
    }
}

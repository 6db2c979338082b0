/// The daemon's settings (spec §4a), with the defaults a missing or broken file falls back to.
public struct Settings: Sendable, Equatable {
    public var style: CueStyle
    /// The pre-cue for plans that have no `countdown` directive; nil for none.
    public var defaultCountdown: Int64?
    public var hooks: Hooks

    /// Commands run on events, as argv (no shell), with `INTERVALD_*` variables in their environment.
    public struct Hooks: Sendable, Equatable {
        public var onCue: [String]?
        public var onFinish: [String]?
        public var onStop: [String]?

        public init(onCue: [String]? = nil, onFinish: [String]? = nil, onStop: [String]? = nil) {
            self.onCue = onCue
            self.onFinish = onFinish
            self.onStop = onStop
        }
    }

    public init(style: CueStyle = CueStyle(), defaultCountdown: Int64? = nil, hooks: Hooks = Hooks()) {
        self.style = style
        self.defaultCountdown = defaultCountdown
        self.hooks = hooks
    }

    public static let defaults = Settings()
}

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
    /// in, so that `["espeak-ng", "{label}"]` speaks the cue without a shell.
    public func expand(_ argv: [String]) -> [String] {
        let values: [(String, String)] = [
            ("{label}", segment?.label ?? ""), ("{kind}", segment?.kind ?? ""),
            ("{index}", segment.map { String($0.index) } ?? ""),
            ("{duration}", segment.map { TimeText.spoken(microseconds: $0.duration) } ?? ""),
            ("{plan}", plan.name), ("{next}", next?.label ?? ""), ("{reason}", reason?.rawValue ?? ""),
            ("{event}", kind.rawValue),
        ]
        return argv.map { argument in
            values.reduce(argument) { text, pair in text.replacing(pair.0, with: pair.1) }
        }
    }
}

extension Plan {
    /// This plan with `countdown` applied when it has no `countdown` directive of its own.
    public func defaultingCountdown(to countdown: Int64?) -> Plan {
        Plan(name: name, countdown: self.countdown ?? countdown, root: root)
    }
}

/// The workout's fields, one name each, whatever shows them: a `--format` template (`{state}`, `{plan}`, …), a hook's
/// arguments (`{label}`) and its `INTERVALD_*` variables (``HookEvent``). A name means one thing everywhere; the value
/// comes from ``StatusText/value(_:of:)`` in every case. docs/workout-fields.md is rendered from this table, with the
/// D-Bus property, the `status --json` key and the MPRIS metadata each field also is.
public enum StatusField: String, CaseIterable, Sendable {
    case state
    case plan
    case kind
    case label
    case remaining
    case elapsed
    case duration
    case index
    case count
    case next
    case progress
    case text
    case segmentIndex = "segment_index"
    case segmentDuration = "segment_duration"
    case heartRate = "heart_rate"
    case speed
    case power
    case machineDistance = "machine_distance"

    /// What the field is, with an example, for docs/workout-fields.md.
    public var doc: String {
        switch self {
        case .state: "`idle`, `running` or `paused`."
        case .plan: "The plan's name."
        case .kind: "The segment's kind: `run`."
        case .label: "The segment's label: `Run`."
        case .remaining:
            "The segment's time left, rounded up to the second: `0:12`; in a step you end (`open`), its time so far, "
                + "counting up: `2:37`."
        case .elapsed:
            "The workout's time so far, pauses excluded, the steps you ended as long as they played: `14:48`."
        case .duration: "The plan's time: `40:00`, or `24:00 + 2 open steps` with steps you end, which have none."
        case .index: "The segment's number, from 1: `23`."
        case .count: "The number of segments: `56`."
        case .next: "The next segment's label, empty during the last one."
        case .progress: "The share of the plan's time done, in whole percent: `37`."
        case .text: "The status line: `running · Tabata · Work 0:12 left (3/17) · next Rest · 1:52/12:00`."
        case .segmentIndex: "The segment's index, from 0, as D-Bus counts: `22`."
        case .segmentDuration: "The segment's length in words: `30 s`."
        case .heartRate: "The heart-rate strap's last measurement in bpm: `142`; empty while none is heard."
        case .speed: "The treadmill's or bike's speed in km/h: `12.0`; empty while none is heard."
        case .power: "The bike's power in watts: `210`; empty while none is heard."
        case .machineDistance: "The metres the treadmill or bike counts: `350`; empty while none is heard."
        }
    }

    /// What the field is on the bus (`org.intervald.Timer1`), if it is one of the properties.
    public var busProperty: TimerProperty? {
        switch self {
        case .state: .state
        case .plan: .planName
        case .kind: .segmentKind
        case .label: .segmentLabel
        case .remaining: .segmentRemaining
        case .elapsed: .elapsed
        case .duration: .planDuration
        case .segmentIndex: .segmentIndex
        case .count: .segmentCount
        case .next: .nextLabel
        case .segmentDuration: .segmentDuration
        case .heartRate: .heartRate
        case .speed: .speed
        case .power: .power
        case .machineDistance: .machineDistance
        case .index, .progress, .text: nil
        }
    }

    /// Its key in `intervalctl status --json`, where it has one (times in µs there, under a `_us` key, besides the
    /// text of `remaining`, `elapsed` and `duration`); a machine's readings are members of `machine`.
    public var jsonKey: String? {
        switch self {
        case .state: "state"
        case .plan: "plan_name"
        case .kind: "segment_kind"
        case .label: "segment_label"
        case .remaining: "remaining"
        case .elapsed: "elapsed"
        case .duration: "duration"
        case .segmentIndex: "segment_index"
        case .count: "segment_count"
        case .next: "next_label"
        case .text: "text"
        case .heartRate: "heart_rate"
        case .speed: "machine.speed"
        case .power: "machine.power"
        case .machineDistance: "machine.distance"
        case .index, .progress, .segmentDuration: nil
        }
    }

    /// Its key in the MPRIS player's `Metadata`, where it is one (the title there is the cue text, "Run · 30 s").
    public var mprisKey: String? {
        switch self {
        case .plan: "xesam:artist"
        case .segmentDuration: "mpris:length"
        default: nil
        }
    }

    /// Whether hooks get it (`{name}` in their arguments, ``environmentName`` in their environment): all but the
    /// status line's own `state` and `text`.
    public var inHooks: Bool { self != .state && self != .text }

    /// The hook's variable: `INTERVALD_` and the name in capitals.
    public var environmentName: String { "INTERVALD_" + rawValue.uppercased() }
}

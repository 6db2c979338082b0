/// A field of a `--format` template: `{state}`, `{plan}`, ….
public enum StatusField: String, CaseIterable, Sendable {
    /// `idle`, `running` or `paused`.
    case state
    /// The plan's name.
    case plan
    /// The segment's kind: `run`.
    case kind
    /// The segment's label: `Run`.
    case label
    /// The segment's remaining time: `0:12`.
    case remaining
    /// The workout's elapsed time: `14:48`.
    case elapsed
    /// The plan's duration: `40:00`.
    case duration
    /// The segment's number, from 1.
    case index
    /// The number of segments.
    case count
    /// The next segment's label, empty during the last one.
    case next
    /// Elapsed share of the plan as a whole percentage: `37`.
    case progress
    /// The default text line.
    case text
}

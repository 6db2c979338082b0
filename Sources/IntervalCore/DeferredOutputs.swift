/// Outputs that need not act at a cue's instant: the timer's events reach them a moment later, so that at the instant
/// the outputs that must act then have the machine's cores to themselves (docs/reference.md §6). On two cores, the rest
/// of the cue's work (properties, the next notification, the state file, hooks, the log) kept both cores busy for half
/// a millisecond, and the bus daemon waited for a core to route the `SegmentStarted` just written, often until the next
/// scheduler tick, a millisecond late (docs/benchmarks.md, "Fourth run").
///
/// What the session's owner brings (start, pause, skip, stop …) reaches them at once, after any that wait: each
/// output still hears every event in order, and a method's reply still follows what its call changed (the history
/// record of a Stop, the state file of a Pause).
public final class DeferredOutputs: WorkoutOutput {
    private let outputs: [any WorkoutOutput]
    private let later: (@escaping () -> Void) -> Void
    private var waiting: [WorkoutMoment] = []

    /// - Parameters:
    ///   - outputs: hear every event, in this order.
    ///   - later: runs its argument on the session's queue a little later (the daemon: 2 ms, with `asyncAfter`).
    public init(_ outputs: [any WorkoutOutput], later: @escaping (@escaping () -> Void) -> Void) {
        self.outputs = outputs
        self.later = later
    }

    public func handle(_ moment: WorkoutMoment) {
        guard moment.onTimer else {
            flush()
            deliver(moment)
            return
        }
        waiting.append(moment)
        if waiting.count == 1 {
            later { [weak self] in self?.flush() }
        }
    }

    /// Hands every waiting event to the outputs now, e.g. before the daemon exits.
    public func flush() {
        let moments = waiting
        waiting = []
        for moment in moments { deliver(moment) }
    }

    private func deliver(_ moment: WorkoutMoment) {
        for output in outputs { output.handle(moment) }
    }
}

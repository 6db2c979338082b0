import Dispatch
import IntervalCore

/// The one place a session's outputs are put in order, for the daemon and `intervalctl run` alike: each process fills
/// in the slots it offers, and the order is always the slots' own. At a cue's instant, only what the runner sees, hears
/// and feels then: the bus signals, the media player, the sound, the haptic feedback, the terminal. Everything else hears the timer's events
/// ``afterTheInstant`` later, in order (``DeferredOutputs``): the Timer1 properties, the notification (whose cue the
/// GLib thread sends at the instant all the same, prepared at the change before), the tray item, the state file, the
/// history, the hooks, the watchdog, the idle exit, the log, what keeps the computer awake, the heart-rate strap, the fitness machine,
/// giving memory back (``MemorySettler``). Adding an output is a case of ``Slot``, in its place.
public struct SessionOutputs {
    /// Where an output stands, in the order the session hands it each event.
    public enum Slot: CaseIterable, Sendable {
        // At the instant.
        case busSignals, mediaPlayer, sound, haptics, terminal
        // After the instant.
        case busProperties, notification, tray, state, history, hooks, watchdog, idleExit, log, awake, heartRate,
            machine, memory

        public var isAtTheInstant: Bool { [.busSignals, .mediaPlayer, .sound, .haptics, .terminal].contains(self) }
    }

    /// How long after a cue's instant the deferred outputs hear the timer's event: the bus daemon and the sound
    /// thread have the cores to themselves meanwhile.
    public static let afterTheInstant: DispatchTimeInterval = .milliseconds(2)

    private var filled: [Slot: any WorkoutOutput] = [:]

    public init() {}

    public subscript(slot: Slot) -> (any WorkoutOutput)? {
        get { filled[slot] }
        set { filled[slot] = newValue }
    }

    /// The session's outputs, in order, for `WorkoutSession.outputs`, and the deferred part, to flush before the
    /// process exits. `queue` is the session's.
    public func assemble(on queue: DispatchQueue) -> (outputs: [any WorkoutOutput], deferred: DeferredOutputs) {
        let deferred = DeferredOutputs(
            Slot.allCases.filter { !$0.isAtTheInstant }.compactMap { filled[$0] },
            later: { work in
                let onQueue = UncheckedBox(work)
                queue.asyncAfter(deadline: .now() + Self.afterTheInstant) { onQueue.value() }
            })
        return (Slot.allCases.filter(\.isAtTheInstant).compactMap { filled[$0] } + [deferred], deferred)
    }
}

/// Carries a value that is used only on the queue it came from across a hop through another queue, or back to the
/// same queue later.
public struct UncheckedBox<Value>: @unchecked Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}

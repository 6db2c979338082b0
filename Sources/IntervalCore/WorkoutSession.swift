/// The one workout pipeline (docs/reference.md §3): at most one workout at a time, the `replace` rule, the properties,
/// and an ordered list of outputs that hear every event. The daemon and `intervalctl run` both assemble one.
///
/// Like ``Scheduler``, it is confined to its owner's serial queue: every call, every timer fire and every output
/// runs there. Parsing is not: ``parse(_:origin:)`` is pure, so the daemon parses off the queue that times cues.
public final class WorkoutSession {
    /// The largest plan text a caller may send (docs/reference.md §5); longer text is refused before parsing.
    public static let maximumPlanTextBytes = 1 << 20

    private let timer: TimerSource
    private let wallClock: () -> Int64
    /// Hear every event, in this order. Bus signals come first, so that they leave at the cue instant.
    public var outputs: [any WorkoutOutput]
    public private(set) var scheduler: Scheduler?
    /// Who the current (or last) workout is.
    public private(set) var workout: WorkoutIdentity?
    /// The pre-cue for plans without a `countdown` directive (settings).
    public var defaultCountdown: Int64?
    /// The workout was paused by ``pauseForSleep()`` and not resumed since.
    private var pausedBySleep = false
    /// How long the computer slept during the current workout (µs), from ``noteSleep(microseconds:)``.
    private var slept: Int64 = 0

    /// - Parameters:
    ///   - timer: the clock and timer that schedule cues (CLOCK_BOOTTIME in production).
    ///   - wallClock: µs since the Unix epoch, for the state file and the history.
    public init(timer: TimerSource, wallClock: @escaping () -> Int64, outputs: [any WorkoutOutput] = []) {
        self.timer = timer
        self.wallClock = wallClock
        self.outputs = outputs
    }

    /// A workout is running or paused.
    public var isActive: Bool { (scheduler?.state ?? .idle) != .idle }

    /// Parses plan text a caller sent, with the limits of docs/reference.md §5: at most ``maximumPlanTextBytes``,
    /// refused before parsing; the parser refuses the rest, among them plans of more than 2^32 − 1 segments
    /// (``PlanLimits/maximumSegmentCount``), so that `SegmentIndex` and `SegmentCount` fit their `u`.
    public static func parse(_ text: String, origin: String) throws(TimerCommandError) -> Plan {
        try checkSize(bytes: text.utf8.count, origin: origin)
        let origin = origin.isEmpty ? "<inline>" : origin
        let plan: Plan
        do {
            plan = try PlanParser.parse(
                text, origin: origin,
                defaultName: origin == "<inline>"
                    ? PlanLocator.inlineName(for: text) : PlanLocator.planName(forPath: origin))
        } catch {
            throw TimerCommandError(.invalidPlan, error.description)
        }
        return plan
    }

    /// Refuses plan text of `bytes` UTF-8 bytes when that is over ``maximumPlanTextBytes`` (`InvalidPlan`). Needs only
    /// the length, so that the bus server can refuse a long text before copying it and before it waits to be parsed
    /// behind other callers' plans.
    public static func checkSize(bytes: Int, origin: String) throws(TimerCommandError) {
        guard bytes <= maximumPlanTextBytes else {
            let name = origin.isEmpty ? "<inline>" : origin
            throw TimerCommandError(
                .invalidPlan,
                "\(name): error: the plan is \(bytes) bytes long; the limit is \(maximumPlanTextBytes) (1 MiB)")
        }
    }

    /// Parses `text` and starts it. `origin` names it in errors ("" for inline text).
    @discardableResult
    public func start(_ text: String, origin: String, replace: Bool) throws(TimerCommandError) -> Plan {
        try start(Self.parse(text, origin: origin), text: text, origin: origin, replace: replace)
    }

    /// Starts a parsed plan, with the default countdown applied; `text` and `origin` are what it was parsed from,
    /// `program` the program's day it is.
    @discardableResult
    public func start(
        _ parsed: Plan, text: String = "", origin: String = "", program: ProgramDayReference? = nil, replace: Bool
    ) throws(TimerCommandError) -> Plan {
        if let running = scheduler, running.state != .idle {
            // The fact alone: what to do about it is each client's to say (intervalctl's --replace, the window's
            // question, Start's `replace` in docs/reference.md §3).
            guard replace else {
                throw .alreadyRunning(running.plan.name)
            }
            running.stop(.replaced)
        }
        let started = wallClock()
        let identity = WorkoutIdentity(
            id: WorkoutIdentity.newID(startedWall: started), text: text, origin: origin, startedWall: started,
            program: program)
        return begin(parsed, as: identity) { $0.start() }
    }

    /// Continues a workout an earlier process recorded (docs/reference.md §5), as `resumption` says, with what it
    /// recorded of it (`track`, on this session's clock); nothing runs before.
    public func restore(
        _ parsed: Plan, as identity: WorkoutIdentity, anchor: ClockInstant, pausedElapsed: Int64?,
        track: WorkoutTrack = WorkoutTrack()
    ) {
        guard !isActive else { return }
        begin(parsed, as: identity) { $0.restore(anchor: anchor, pausedElapsed: pausedElapsed, track: track) }
    }

    @discardableResult
    private func begin(_ parsed: Plan, as identity: WorkoutIdentity, _ run: (Scheduler) -> Void) -> Plan {
        let plan = parsed.defaultingCountdown(to: defaultCountdown)
        let scheduler = Scheduler(plan: plan, timer: timer) { [weak self] event in
            self?.broadcast(event, of: plan, as: identity)
        }
        self.scheduler = scheduler
        workout = identity
        (pausedBySleep, slept, heartRates, heartRateCues, machineSamples, distanceAtStepStart) =
            (false, 0, [], HeartRateCues(), [], nil)
        run(scheduler)
        return plan
    }

    /// Stops the workout, if one runs.
    public func stop(_ reason: StopReason) {
        scheduler?.stop(reason)
    }

    /// After a wake-up from suspend: see `Scheduler.resynchronize()`.
    public func resynchronize() {
        scheduler?.resynchronize()
    }

    /// A notification button was pressed: the one place where buttons map to operations.
    public func perform(_ action: NotificationAction) throws(TimerCommandError) { try active().perform(action) }

    /// A media control (MPRIS, docs/reference.md §8): the one place where they map to operations. None fails: a control
    /// that does not apply to the workout's state (Play while running, anything while idle) does nothing.
    public func perform(_ control: MediaPlayer.Control) {
        guard let scheduler else { return }
        // Each operation is called only in a state it accepts, so none throws.
        switch (control, scheduler.state) {
        case (_, .idle), (.play, .running), (.pause, .paused): break
        case (.play, .paused), (.playPause, .paused): try? scheduler.resume()
        case (.pause, .running), (.playPause, .running): try? scheduler.pause()
        case (.next, _): try? scheduler.skip()
        case (.previous, _): try? scheduler.restartSegment()
        case (.stop, _): scheduler.stop(.user)
        }
    }

    /// Starts the current segment again (see ``Scheduler/restartSegment()``).
    public func restartSegment() throws(TimerCommandError) { try active().restartSegment() }

    public func pause() throws(TimerCommandError) { try active().pause() }
    public func resume() throws(TimerCommandError) { try active().resume() }
    public func skip() throws(TimerCommandError) { try active().skip() }

    /// The computer is about to sleep (docs/reference.md §6, `on-sleep = "pause"`): a running workout pauses now, and
    /// its outputs say why. Nothing happens while idle or already paused.
    public func pauseForSleep() {
        guard let scheduler, scheduler.state == .running else { return }
        pausedBySleep = true
        // Running, so the pause is accepted.
        try? scheduler.pause()
    }

    /// The computer slept for `microseconds` during the workout: the history records it.
    public func noteSleep(microseconds: Int64) {
        guard isActive else { return }
        slept += max(microseconds, 0)
    }

    /// The strap's last heart rate in bpm; nil while none is heard (no strap chosen, not found yet, or lost).
    public private(set) var heartRate: Int?
    /// The workout's heart rate, a sample a second, for its history.
    private var heartRates: [HeartRateSample] = []
    /// Samples a second for the plan's timed steps and a few minutes more (open steps, pauses), at most four hours'.
    var samplesExpected: Int {
        let seconds = (scheduler?.plan.duration ?? 0) / 1_000_000
        return Int(min(seconds + 300, 4 * 3600))
    }
    /// Whether the heart is out of a running step's target range long enough to say so.
    private var heartRateCues = HeartRateCues()
    /// Gives a cue of the heart out of the running step's range (`@ 130-150bpm`): the daemon's notification and voice.
    public var onHeartRateCue: ((HeartRateCue) -> Void)?

    /// A measurement of the strap (docs/sensors.md): shown from now on, and, in a step its heart rate ends
    /// (`hr<120 walk`), the step's end when it is strictly past the bound, as a press of Done is; in a step held in a
    /// range (`@ 130-150bpm`), out of it for 10 s running, a cue (``onHeartRateCue``). Nothing ends and nothing is cued
    /// while paused. Answers whether the shown heart rate changed.
    @discardableResult
    public func heard(heartRate bpm: Int) -> Bool {
        let changed = heartRate != bpm
        heartRate = bpm
        if isActive {
            heartRates.appendOnePerSecond(HeartRateSample(wall: wallClock(), bpm: bpm), expected: samplesExpected)
        }
        if let scheduler, scheduler.state == .running, let segment = scheduler.current {
            if let cue = heartRateCues.heard(
                bpm, segment: segment.index, range: segment.target?.heartRateRange, at: timer.now)
            {
                onHeartRateCue?(cue)
            }
            if let bound = segment.heartRateBound, bound.isReached(by: bpm) {
                // Running, so the skip is accepted.
                try? scheduler.skip()
            }
        } else {
            heartRateCues.interrupt()
        }
        return changed
    }

    /// The strap is gone (out of range, switched off): no heart rate is shown until it is heard again.
    public func lostHeartRate() {
        heartRate = nil
        heartRateCues.interrupt()
    }

    /// The machine's last reading; nil while none is heard (no machine chosen, not found yet, or lost).
    public private(set) var machineReading: MachineReading?
    /// The workout's machine readings, a sample a second, for its history.
    private var machineSamples: [MachineSample] = []
    /// The machine's distance when the running distance step began (its segment's index, metres): where the machine's
    /// own distance ends the step.
    private var distanceAtStepStart: (segment: Int64, metres: Int)?

    /// A reading of the machine's (docs/machines.md): shown from now on, kept a second at a time, and, in a step of a
    /// distance (`0.4km run`), the step's end once the machine's own distance since the step began covers it, as a
    /// press of Done is. Nothing ends while paused. Answers whether the shown reading changed.
    @discardableResult
    public func heard(machine reading: MachineReading) -> Bool {
        let changed = machineReading != reading
        machineReading = reading
        if isActive {
            machineSamples.appendOnePerSecond(
                MachineSample(wall: wallClock(), reading: reading), expected: samplesExpected)
        }
        guard let scheduler, scheduler.state == .running, let segment = scheduler.current,
            let length = segment.distance, let metres = reading.distance
        else { return changed }
        guard let start = distanceAtStepStart, start.segment == segment.index else {
            distanceAtStepStart = (segment.index, metres)
            return changed
        }
        if Double(metres - start.metres) >= length {
            // Running, so the skip is accepted.
            try? scheduler.skip()
        }
        return changed
    }

    /// The machine is gone (out of range, switched off): no reading is shown until it is heard again.
    public func lostMachine() {
        machineReading = nil
        distanceAtStepStart = nil
    }

    private func active() throws(TimerCommandError) -> Scheduler {
        guard let scheduler, scheduler.state != .idle else { throw TimerCommandError.notRunning }
        return scheduler
    }

    /// The properties now.
    public var status: TimerStatus {
        guard let scheduler, scheduler.state != .idle, let segment = scheduler.current else { return .idle }
        let plan = scheduler.plan
        let (place, elapsed, remaining) = scheduler.reading
        var status = TimerStatus(
            state: scheduler.state, planName: plan.name, planDuration: UInt64(plan.duration),
            // Exact: every plan has at most PlanLimits.maximumSegmentCount (UInt32.max) segments.
            segmentIndex: UInt32(clamping: segment.index), segmentCount: UInt32(clamping: plan.segmentCount),
            segmentKind: segment.kind, segmentLabel: segment.label,
            segmentDuration: UInt64(segment.duration),
            nextLabel: plan.segment(after: segment)?.label ?? "",
            elapsed: UInt64(max(elapsed, 0)), segmentRemaining: UInt64(max(scheduler.segmentRemaining, 0))
        )
        status.open = segment.isOpen
        status.segmentElapsed = UInt64(max(segment.isOpen ? scheduler.openPlayed : place - segment.start, 0))
        status.remaining = UInt64(max(remaining, 0))
        status.segmentDistance = segment.wholeMetres
        status.segmentHeartRateBound = segment.heartRateBound?.planText ?? ""
        status.segmentTarget = segment.target?.planText ?? ""
        status.heartRate = UInt16(clamping: heartRate ?? 0)
        status.machineReading = machineReading
        status.planOpenSteps = UInt32(clamping: plan.openStepCount)
        return status
    }

    /// Brings an output that joins while a workout exists (one made again for new settings, docs/reference.md §4c)
    /// up to date: it hears the workout as if it had just been resumed, or paused; nothing while idle.
    public func catchUp(_ output: any WorkoutOutput) {
        guard let scheduler, let segment = scheduler.current, let workout else { return }
        let event: SchedulerEvent
        switch scheduler.state {
        case .idle: return
        case .running: event = .resumed(segment)
        case .paused: event = .paused(segment)
        }
        output.handle(moment(event, of: scheduler.plan, as: workout))
    }

    private func broadcast(_ event: SchedulerEvent, of plan: Plan, as identity: WorkoutIdentity) {
        if case .paused = event {} else { pausedBySleep = false }
        let moment = moment(event, of: plan, as: identity)
        for output in outputs { output.handle(moment) }
    }

    private func moment(_ event: SchedulerEvent, of plan: Plan, as identity: WorkoutIdentity) -> WorkoutMoment {
        WorkoutMoment(
            event: event, plan: plan, workout: identity, status: status, place: scheduler?.place ?? 0,
            now: timer.now, wallNow: wallClock(), planStart: scheduler?.planStart, nextChange: scheduler?.nextChange,
            onTimer: scheduler?.isFiring ?? false, pausedBySleep: pausedBySleep, slept: slept,
            skipped: scheduler?.skipped ?? [:], track: scheduler?.track ?? WorkoutTrack(), heartRates: heartRates,
            machineSamples: machineSamples)
    }
}

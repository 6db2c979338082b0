/// What a scheduler announces, in order, at the instants they happen.
public enum SchedulerEvent: Sendable, Equatable {
    /// A segment began: the cue. `next` is nil for the last segment.
    case segmentStarted(Segment, next: Segment?)
    /// The `countdown` pre-cue: `current` ends (and `next` begins) in `remaining` microseconds.
    case countdown(current: Segment, next: Segment?, remaining: Int64)
    case paused(Segment)
    case resumed(Segment)
    /// The plan ran to its end.
    case finished
    case stopped(StopReason)
}

/// Drives one plan through its segments on a `TimerSource`, with one timer armed for the next event.
///
/// Every deadline is `start + offset` on the timer's clock, never "N seconds from now", so cues do not drift however
/// long the plan; a pause moves `start`. When the timer fires late (the machine slept), the scheduler moves straight
/// to the segment due now with one cue, or finishes: stale cues are never fired.
///
/// Not thread-safe by design: its owner (the daemon's serial queue, or a test) makes every call, and the timer source
/// delivers on that owner.
public final class Scheduler {
    public let plan: Plan
    public private(set) var state: TimerState = .idle
    /// The segment playing, or, after the end, the last one played.
    public private(set) var current: Segment?
    /// True while the scheduler announces what its timer brought at the scheduled instant (a cue, the countdown, the
    /// finish); false while it answers its owner (start, pause, skip, stop, a resynchronization …).
    public private(set) var isFiring = false

    private let timer: TimerSource
    private let onEvent: (SchedulerEvent) -> Void
    /// The plan's start on the timer's clock, moved by pauses and skips.
    private var startInstant: ClockInstant = 0
    private var pausedPlace: Int64 = 0
    private var countdownDone = false
    private var started = false
    /// Where the plan was when it finished or stopped.
    private var endedPlace: Int64 = 0
    /// Microseconds of the plan passed over by skips, per segment kind: part of ``elapsed``, but never done.
    public private(set) var skipped: [String: Int64] = [:]
    /// What happened, on the timer's clock: the runs of the schedule and the pauses between them.
    public private(set) var track = WorkoutTrack()
    /// In an open step: when it would have begun had it not been paused (its time played is `now` less this).
    private var openStart: ClockInstant = 0
    /// In an open step, paused: its time played.
    private var pausedOpenPlayed: Int64 = 0

    public init(plan: Plan, timer: TimerSource, onEvent: @escaping (SchedulerEvent) -> Void) {
        self.plan = plan
        self.timer = timer
        self.onEvent = onEvent
    }

    deinit {
        timer.disarm()
    }

    /// Where the plan stands on its timeline (``Segment/start``, ``Plan/timelineEnd``), moved by skips; in an open step,
    /// the step's start.
    public var place: Int64 {
        switch state {
        case .running: position(at: timer.now)
        case .paused: pausedPlace
        case .idle: endedPlace
        }
    }

    /// The workout's time so far, pauses excluded: the plan's time up to ``place`` (a skip passes over time) and
    /// every step the person ended, as long as it played.
    public var elapsed: Int64 { reading.elapsed }

    /// The time of the timed steps still to come, µs: the plan's ``Plan/duration`` less its time up to ``place``.
    public var remaining: Int64 { reading.remaining }

    /// ``place``, ``elapsed`` and ``remaining`` from one reading of the clock, the plan's time up to the place found
    /// once: a status shows the three together, at every cue.
    public var reading: (place: Int64, elapsed: Int64, remaining: Int64) {
        let now = timer.now
        let place = position(at: now)
        let times = Self.times(of: plan, at: place, track: track, now: now)
        return (place, times.elapsed, times.remaining)
    }

    /// ``elapsed`` and ``remaining`` of a workout of `plan` standing at `place` with `track` at `now`.
    static func times(
        of plan: Plan, at place: Int64, track: WorkoutTrack, now: ClockInstant
    ) -> (elapsed: Int64, remaining: Int64) {
        let timeDone = plan.time(at: place)
        return (timeDone + track.heldTime(until: now), plan.duration - timeDone)
    }

    /// An open step plays (docs/plan-language.md): the plan stands still until the person ends it.
    public var isHolding: Bool { state != .idle && current?.isOpen == true }

    /// How long the open step playing has played (counting up, its pauses left out); 0 in any other step.
    public var openPlayed: Int64 {
        guard isHolding else { return 0 }
        return state == .paused ? pausedOpenPlayed : max(timer.now - openStart, 0)
    }

    /// The plan's start on the timer's clock, moved by pauses and skips: every deadline is this plus an offset. Nil
    /// unless running.
    public var planStart: ClockInstant? { state == .running ? startInstant : nil }

    /// When the current segment ends (the next cue, or the finish) on the timer's clock; nil unless running, and in
    /// an open step, which the person ends.
    public var nextChange: ClockInstant? {
        guard state == .running, let current, !current.isOpen else { return nil }
        return startInstant + current.end
    }

    /// Microseconds left in the current segment; 0 in an open step.
    public var segmentRemaining: Int64 {
        guard state != .idle, let current, !current.isOpen else { return 0 }
        return max(current.end - place, 0)
    }

    /// Starts the plan now, cueing its first segment. A scheduler runs once.
    public func start() {
        guard !started, let first = plan.segment(at: 0) else { return }
        started = true
        startInstant = timer.now
        state = .running
        track.begin(at: startInstant, from: 0)
        enter(first, at: 0)
        arm()
    }

    /// Continues a workout recorded by an earlier process on the schedule that starts at `anchor`, or paused at
    /// `pausedElapsed`: cues the segment due now, once (and reports the pause). `track` is what the earlier process
    /// recorded of it, on this timer's clock: a running workout goes on in the run it was in. A scheduler runs once.
    ///
    /// A workout recorded in an open step goes on in it, its time played kept, however long ago its schedule's anchor
    /// was: the plan stood still there.
    public func restore(anchor: ClockInstant, pausedElapsed: Int64?, track recorded: WorkoutTrack = WorkoutTrack()) {
        let now = timer.now
        let holding = recorded.holding(at: now)
        let elapsed = holding?.offset ?? pausedElapsed ?? (now - anchor)
        guard !started, let due = plan.segment(at: max(elapsed, 0)) else { return }
        started = true
        startInstant = holding != nil || pausedElapsed != nil ? now - elapsed : anchor
        state = .running
        track = recorded
        if pausedElapsed != nil {
            track.end(at: now, at: max(elapsed, 0))
        } else if track.runs.last.map({ $0.end != nil }) ?? true {
            track.begin(at: now, from: max(elapsed, 0), held: holding != nil)
        }
        if pausedElapsed != nil { state = .paused }
        enter(due, at: elapsed, openPlayed: holding?.played ?? 0)
        if state == .paused {
            self.pausedPlace = elapsed
            onEvent(.paused(due))
        } else {
            arm()
        }
    }

    /// Pauses; `resume` continues where it left off.
    public func pause() throws(TimerCommandError) {
        switch state {
        case .idle: throw TimerCommandError.notRunning
        case .paused: throw TimerCommandError(.invalidState, "The workout is already paused.")
        case .running: break
        }
        let now = timer.now
        pausedPlace = position(at: now)
        pausedOpenPlayed = isHolding ? max(now - openStart, 0) : 0
        track.end(at: now, at: pausedPlace)
        timer.disarm()
        state = .paused
        if let current { onEvent(.paused(current)) }
    }

    public func resume() throws(TimerCommandError) {
        switch state {
        case .idle: throw TimerCommandError.notRunning
        case .running: throw TimerCommandError(.invalidState, "The workout is not paused.")
        case .paused: break
        }
        let now = timer.now
        startInstant = now - pausedPlace
        openStart = now - pausedOpenPlayed
        state = .running
        track.begin(at: now, from: pausedPlace, held: isHolding)
        if let current { onEvent(.resumed(current)) }
        arm()
    }

    /// Where the plan stands at `now` (``place``, from one reading of the clock that the caller reuses).
    private func position(at now: ClockInstant) -> Int64 {
        guard state == .running else { return place }
        return isHolding ? current?.start ?? 0 : min(max(now - startInstant, 0), plan.timelineEnd)
    }

    /// Puts the workout at `offset` into the plan from `now` on: where a paused one stays, or where a running one is.
    private func moveSchedule(to offset: Int64, at now: ClockInstant) {
        if state == .paused {
            pausedPlace = offset
        } else {
            // One reading: the runs meet, with no gap between them that would read as a pause, and the run ends where
            // the caller measured the plan to stand.
            track.end(at: now, at: position(at: now))
            startInstant = now - offset
            track.begin(at: now, from: offset)
        }
    }

    /// Ends the current segment now: the next one starts (paused, if the workout is paused), or the plan finishes. An
    /// open step ends so, as it should: nothing of it is skipped.
    public func skip() throws(TimerCommandError) {
        guard state != .idle, let current else { throw TimerCommandError.notRunning }
        // One reading of the clock: what is skipped and where the run ends add up to the segment, to the microsecond.
        let now = timer.now
        if !current.isOpen { skipped[current.kind, default: 0] += max(current.end - position(at: now), 0) }
        moveSchedule(to: current.end, at: now)
        advance(to: current.end)
    }

    /// Starts the current segment again from its beginning, with a fresh cue (MPRIS `Previous`, docs/reference.md §8);
    /// a paused workout stays paused, at the segment's start. The schedule moves back by what was played of the
    /// segment.
    public func restartSegment() throws(TimerCommandError) {
        guard state != .idle, let current else { throw TimerCommandError.notRunning }
        moveSchedule(to: current.start, at: timer.now)
        enter(current, at: current.start)
        arm()
    }

    /// Stops the plan; nothing happens when it is not running.
    public func stop(_ reason: StopReason) {
        guard state != .idle else { return }
        endedPlace = place
        track.finish(at: timer.now, at: endedPlace)
        timer.disarm()
        state = .idle
        onEvent(.stopped(reason))
    }

    /// Does what a notification button asks; Stop gives the reason `notification`.
    public func perform(_ action: NotificationAction) throws(TimerCommandError) {
        switch action {
        case .stop: stop(.notification)
        case .pause: try pause()
        case .resume: try resume()
        case .skip, .done: try skip()
        }
    }

    /// Catches up after the clock may have jumped (the machine woke from suspend): cues the segment due now, once,
    /// or finishes, and re-arms the timer from the plan's start.
    public func resynchronize() {
        catchUp()
    }

    // MARK: Timing

    private func fire() {
        isFiring = true
        defer { isFiring = false }
        catchUp()
    }

    /// Announces what is due now: the segment, with one cue, the finish, or the countdown; then re-arms the timer.
    private func catchUp() {
        // An open step has no deadline: nothing is due until the person ends it.
        guard state == .running, let current, !current.isOpen else { return }
        let now = timer.now - startInstant
        if now >= current.end {
            advance(to: now)
            return
        }
        if !countdownDone, let countdown = plan.countdown, now >= current.end - countdown {
            countdownDone = true
            onEvent(.countdown(current: current, next: plan.segment(after: current), remaining: countdown))
        }
        arm()
    }

    /// Moves to the segment due at `elapsed`, with one cue, or finishes the plan; a schedule that passed an open step
    /// (a timer brought late, a wake-up) stops at it, for the person to end.
    private func advance(to elapsed: Int64) {
        let from = current?.end ?? 0
        guard let due = plan.firstOpenSegment(from: from, before: elapsed + 1) ?? plan.segment(at: elapsed) else {
            finish()
            return
        }
        enter(due, at: due.isOpen ? due.start : elapsed)
        if state == .running { arm() }
    }

    /// Makes `segment` the current one and cues it. An open step holds the plan where it begins, from the instant
    /// the schedule reached it, with `openPlayed` of it played already (a resumed workout).
    private func enter(_ segment: Segment, at elapsed: Int64, openPlayed: Int64 = 0) {
        if segment.isOpen {
            if state == .running {
                let reached = min(startInstant + segment.start, timer.now)
                openStart = reached - openPlayed
                if track.runs.last.map({ $0.held != true || $0.end != nil }) ?? true {
                    track.end(at: reached, at: segment.start)
                    track.begin(at: reached, from: segment.start, held: true)
                }
            } else {
                pausedOpenPlayed = openPlayed
            }
        }
        current = segment
        // A pre-cue is owed only when there is room for it and the segment was not entered inside its window.
        if let countdown = plan.countdown, countdown < segment.duration {
            countdownDone = elapsed >= segment.end - countdown
        } else {
            countdownDone = true
        }
        onEvent(.segmentStarted(segment, next: plan.segment(after: segment)))
    }

    private func finish() {
        endedPlace = plan.timelineEnd
        // A running plan ran out at its schedule's end, though the timer may bring that later (the machine slept).
        let end = state == .running ? min(timer.now, startInstant + plan.timelineEnd) : timer.now
        track.finish(at: end, at: plan.timelineEnd)
        timer.disarm()
        state = .idle
        onEvent(.finished)
    }

    private func arm() {
        guard state == .running, let current else { return }
        guard !current.isOpen else {
            timer.disarm()
            return
        }
        var offset = current.end
        if !countdownDone, let countdown = plan.countdown {
            offset -= countdown
        }
        timer.arm(at: startInstant + offset) { [weak self] in self?.fire() }
    }
}

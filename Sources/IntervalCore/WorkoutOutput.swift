/// One event of a workout as every output hears it: what happened, to which plan, and when the next change is due.
public struct WorkoutMoment: Sendable {
    public let event: SchedulerEvent
    public let plan: Plan
    /// Who the workout is: its id, the text it was started from, when it started.
    public let workout: WorkoutIdentity
    /// The properties right after the event (`Elapsed` and `SegmentRemaining` as of `now`).
    public let status: TimerStatus
    /// Where the plan stood on its timeline when the event happened (``Scheduler/place``); after a stop, where the
    /// workout stopped.
    public let place: Int64
    /// The session clock's reading when the event happened.
    public let now: ClockInstant
    /// The wall clock (µs since the Unix epoch) at the same instant.
    public let wallNow: Int64
    /// The plan's start on the session's clock, moved by pauses and skips; nil unless running.
    public let planStart: ClockInstant?
    /// When the current segment ends (the next cue, or the finish) on the session's clock, or nil when nothing runs
    /// or the workout is paused. Outputs that need a head start (speech, countdown pips, the next notification)
    /// prepare against it.
    public let nextChange: ClockInstant?
    /// The timer brought the event at its scheduled instant (a cue, the countdown, the finish); false when the
    /// session's owner did (start, pause, resume, skip, stop, a restored workout, a wake-up from suspend).
    public let onTimer: Bool
    /// The workout is paused because the computer went to sleep (docs/reference.md §6), not by a person.
    public let pausedBySleep: Bool
    /// How long the computer slept during the workout so far (µs), as logind's signals told.
    public let slept: Int64
    /// µs of the plan passed over by skips so far, per kind (``Scheduler/skipped``).
    public let skipped: [String: Int64]
    /// What happened so far, on the session's clock (``Scheduler/track``).
    public let track: WorkoutTrack
    /// The strap's heart rate so far, a sample a second (docs/sensors.md); empty without a strap.
    public let heartRates: [HeartRateSample]
    /// What the machine said so far, a sample a second (docs/machines.md); empty without a machine.
    public let machineSamples: [MachineSample]

    public init(
        event: SchedulerEvent, plan: Plan, workout: WorkoutIdentity, status: TimerStatus, place: Int64,
        now: ClockInstant, wallNow: Int64, planStart: ClockInstant?, nextChange: ClockInstant?, onTimer: Bool,
        pausedBySleep: Bool = false, slept: Int64 = 0, skipped: [String: Int64] = [:],
        track: WorkoutTrack = WorkoutTrack(), heartRates: [HeartRateSample] = [], machineSamples: [MachineSample] = []
    ) {
        self.event = event
        self.plan = plan
        self.workout = workout
        self.status = status
        self.place = place
        self.now = now
        self.wallNow = wallNow
        self.planStart = planStart
        self.nextChange = nextChange
        self.onTimer = onTimer
        self.pausedBySleep = pausedBySleep
        self.slept = slept
        self.skipped = skipped
        self.track = track
        self.heartRates = heartRates
        self.machineSamples = machineSamples
    }

    /// The workout's time so far, pauses excluded (``Scheduler/elapsed``); after the end, its whole time.
    public var elapsed: Int64 { Scheduler.times(of: plan, at: place, track: track, now: now).elapsed }

    /// The segment the event is about: the one starting, counting down, paused or resumed; nil at the end.
    public var segment: Segment? {
        switch event {
        case .segmentStarted(let segment, _), .paused(let segment), .resumed(let segment): segment
        case .countdown(let current, _, _): current
        case .finished, .stopped: nil
        }
    }
}

/// Something that reacts to a workout: bus signals, properties, the notification, hooks, sound, the state file.
///
/// A ``WorkoutSession`` hands every event to its outputs in the order of its list, on the session's owner (its
/// serial queue), at the instant the event happens. An output must not block that queue: anything slower than a
/// few microseconds (libnotify, audio, speech, child processes) goes to a thread of its own.
public protocol WorkoutOutput: AnyObject {
    func handle(_ moment: WorkoutMoment)
}

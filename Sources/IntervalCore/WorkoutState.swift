/// What the daemon records of a running workout in `$XDG_STATE_HOME/intervald/state.json` (docs/reference.md §5), so
/// that a restarted daemon continues it on the original schedule. Written at start, pause, resume, skip and when the
/// notification's id becomes known; removed when the workout ends.
public struct WorkoutState: Sendable, Equatable, Codable {
    public static let currentVersion = 1

    public enum RunState: String, Sendable, Equatable, Codable {
        case running, paused
    }

    public var version: Int
    /// The workout's id, kept by its history record.
    public var id: String
    /// The plan text as it was started, and where it came from ("" for inline text).
    public var plan: String
    public var origin: String
    /// `/proc/sys/kernel/random/boot_id` of the boot whose clock `anchorBoot` is on.
    public var bootID: String
    /// The plan's start on CLOCK_BOOTTIME (µs), moved by pauses and skips: segment offsets count from it.
    public var anchorBoot: Int64
    /// The same instant on the wall clock (µs since the Unix epoch), for a resume after a reboot.
    public var anchorWall: Int64
    /// When the workout was started, on the wall clock (µs since the Unix epoch).
    public var startedWall: Int64
    public var state: RunState
    /// Where the plan stood when it was paused (µs); nil while it runs.
    public var pausedElapsed: Int64?
    /// The server's id of the workout's notification, or 0 before one was shown.
    public var notificationID: UInt32
    /// The program's day the workout is (docs/programs.md); absent for a plan.
    public var program: ProgramDayReference?
    /// What happened so far, on CLOCK_BOOTTIME of `bootID` (µs), as `anchorBoot` is; absent in older files.
    public var track: WorkoutTrack?

    enum CodingKeys: String, CodingKey {
        case version, id, plan, origin, state, program, track
        case bootID = "boot_id"
        case anchorBoot = "anchor_boot_us"
        case anchorWall = "anchor_wall_us"
        case startedWall = "started_wall_us"
        case pausedElapsed = "paused_elapsed_us"
        case notificationID = "notification_id"
    }

    public init(
        id: String, plan: String, origin: String, bootID: String, anchorBoot: Int64, anchorWall: Int64,
        startedWall: Int64, state: RunState, pausedElapsed: Int64?, notificationID: UInt32,
        program: ProgramDayReference? = nil, track: WorkoutTrack? = nil
    ) {
        version = Self.currentVersion
        self.id = id
        self.plan = plan
        self.origin = origin
        self.bootID = bootID
        self.anchorBoot = anchorBoot
        self.anchorWall = anchorWall
        self.startedWall = startedWall
        self.state = state
        self.pausedElapsed = pausedElapsed
        self.notificationID = notificationID
        self.program = program
        self.track = track
    }

    /// The recorded track on the clock a resumption's `anchor` is on: moved as the anchor was from `anchorBoot`.
    public func track(anchoredAt anchor: ClockInstant) -> WorkoutTrack {
        track?.shifted(by: anchor - anchorBoot) ?? WorkoutTrack()
    }

    /// Whether `other` records the same schedule: equal but for the wall-clock anchor, which is derived anew at every
    /// event from two clock readings and so differs by microseconds from cue to cue.
    public func hasSameSchedule(as other: WorkoutState) -> Bool {
        var other = other
        other.anchorWall = anchorWall
        return other == self
    }

    /// What a restarted daemon does with this state, given the clocks now.
    public func resumption(at now: ClockReading, planDuration: Int64) -> Resumption {
        // On the same boot the boot clock is exact; after a reboot only the wall clock connects the two.
        let anchor = now.bootID == bootID ? anchorBoot : now.boot - (now.wall - anchorWall)
        if state == .paused, let pausedElapsed {
            return .resume(anchor: anchor, pausedElapsed: min(max(pausedElapsed, 0), planDuration))
        }
        let elapsed = now.boot - anchor
        // In an open step the plan stands still: however long ago its anchor was, nothing ran out.
        let holding = track?.runs.last?.held == true
        if elapsed >= planDuration, !holding {
            return .interrupted(elapsed: planDuration, endedWall: anchorWall + planDuration)
        }
        return .resume(anchor: anchor, pausedElapsed: nil)
    }

    /// The instants and spans (µs) a sound state holds lie in this range, about 285 years either way: sums and
    /// differences of such values cannot overflow, whatever a damaged file says.
    static let plausibleMicroseconds: ClosedRange<Int64> = -(1 << 53)...(1 << 53)

    /// Whether every time in it is within ``plausibleMicroseconds``; a file with others is damaged (docs/reference.md
    /// §5: set aside, never fatal), and resuming from it would overflow.
    public var hasPlausibleTimes: Bool {
        ([anchorBoot, anchorWall, startedWall, pausedElapsed ?? 0] + (track?.times ?? []))
            .allSatisfy(Self.plausibleMicroseconds.contains)
    }
}

/// The clocks a workout is recorded against, read at one instant.
public struct ClockReading: Sendable, Equatable {
    /// CLOCK_BOOTTIME, µs.
    public var boot: ClockInstant
    /// The wall clock, µs since the Unix epoch.
    public var wall: Int64
    public var bootID: String

    public init(boot: ClockInstant, wall: Int64, bootID: String) {
        self.boot = boot
        self.wall = wall
        self.bootID = bootID
    }
}

/// What becomes of a recorded workout when the daemon starts.
public enum Resumption: Sendable, Equatable {
    /// Continue on the schedule that starts at `anchor` (the session's clock), paused at `pausedElapsed` if set.
    case resume(anchor: ClockInstant, pausedElapsed: Int64?)
    /// Its time passed while no daemon ran: record it as interrupted, at the end of its schedule.
    case interrupted(elapsed: Int64, endedWall: Int64)
}

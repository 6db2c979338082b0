import IntervalCore

extension ManualTimerSource {
    /// A ``WorkoutSession`` on a new virtual clock that reads `now`, handing its moments to `outputs` in order: how
    /// every output's unit test drives it. The session's wall clock reads `wallEpoch` plus the virtual clock, so that
    /// wall times (the state file's, the history's) move with ``advance(by:)``.
    public static func session(
        now: ClockInstant = 0, wallEpoch: Int64 = 0, outputs: [any WorkoutOutput] = []
    ) -> (session: WorkoutSession, clock: ManualTimerSource) {
        let clock = ManualTimerSource(now: now)
        let session = WorkoutSession(timer: clock, wallClock: { wallEpoch + clock.now }, outputs: outputs)
        return (session, clock)
    }
}

import Dispatch
import IntervalBus
import IntervalCore
import IntervalRuntime
import IntervalTestSupport
import Logging
import Testing

/// The watchdog's rule (docs/reference.md §5, §6): systemd's interval while a workout runs, a day while idle, so that
/// an idle daemon is never woken to pet it.
@Suite struct WatchdogTests {
    final class Recorder: WatchdogNotifying, @unchecked Sendable {
        let interval: Duration?
        let states = Locked<[String]>([])

        init(interval: Duration?) {
            self.interval = interval
        }

        func watchdogInterval() throws(BusError) -> Duration? { interval }
        func watchdog() throws(BusError) -> Bool { true }
        func notify(_ state: String) throws(BusError) -> Bool {
            states.withLock { $0.append(state) }
            return true
        }
    }

    @Test func theIntervalFollowsWhetherAWorkoutRuns() throws {
        let recorder = Recorder(interval: .seconds(30))
        let queue = DispatchQueue(label: "WatchdogTests")
        let watchdog = queue.sync { Watchdog(queue: queue, systemd: recorder, logger: Logger(label: "test")) }
        let (session, clock) = ManualTimerSource.session(outputs: [watchdog])
        try session.start("2x(10s run)", origin: "", replace: false)
        clock.advance(by: 10_000_000)  // a cue: still active, nothing new to say
        try session.pause()  // paused is active too
        session.stop(.user)
        try session.start("1s run", origin: "", replace: false)
        clock.advance(by: 1_000_000)  // finished
        let day = "WATCHDOG_USEC=86400000000\nWATCHDOG=1"
        let active = "WATCHDOG_USEC=30000000\nWATCHDOG=1"
        #expect(recorder.states.withLock { $0 } == [day, active, day, active, day])
        queue.sync { withExtendedLifetime(watchdog) {} }
    }

    @Test func withoutASystemdWatchdogNothingIsSaid() throws {
        let recorder = Recorder(interval: nil)
        let queue = DispatchQueue(label: "WatchdogTests")
        let watchdog = queue.sync { Watchdog(queue: queue, systemd: recorder, logger: Logger(label: "test")) }
        let (session, _) = ManualTimerSource.session(outputs: [watchdog])
        try session.start("1m run", origin: "", replace: false)
        session.stop(.user)
        #expect(recorder.states.withLock { $0 }.isEmpty)
    }
}

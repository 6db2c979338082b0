import Dispatch
import IntervalRuntime
import IntervalTestSupport
import Logging
import Testing

@testable import IntervalNotify

/// The GLib thread's timed work (`invoke(at:)`), which sends each cue's notification at its instant: on the GLib
/// thread, once, and never before the instant (a timerfd on the boot clock, not GLib's millisecond timeouts).
@Suite struct GLibMainLoopThreadTests {
    @Test func aTimedBodyRunsOnceOnTheGLibThreadAndNeverBeforeItsInstant() throws {
        let thread = GLibMainLoopThread.shared(logger: Logger(label: "test"))
        let runs = Locked<[(early: Int64, onGLibThread: Bool)]>([])
        let done = DispatchSemaphore(value: 0)
        let start = BootClock.microseconds()
        // Deadlines 10 ms apart, and one already past (due at once).
        let deadlines = [start - 5_000] + (1...5).map { start + Int64($0) * 10_000 }
        let armed = thread.invokeAndWait {
            deadlines.allSatisfy { deadline in
                thread.invoke(at: deadline) {
                    let now = BootClock.microseconds()
                    runs.withLock { $0.append((early: deadline - now, onGLibThread: thread.isCurrentThread)) }
                    done.signal()
                } != nil
            }
        }
        #expect(armed == true)
        for _ in deadlines {
            #expect(done.wait(timeout: .now() + 5) == .success)
        }
        let seen = runs.withLock { $0 }
        #expect(seen.count == deadlines.count)
        let allOnGLibThread = seen.allSatisfy(\.onGLibThread)
        let mostEarly = seen.map(\.early).max() ?? 0
        #expect(allOnGLibThread)
        #expect(mostEarly <= 0, "ran before its instant by \(mostEarly) µs")
    }
}

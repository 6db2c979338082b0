import Dispatch
import Testing

@testable import IntervalRuntime

struct LockedTests {
    /// Threads that take the lock at once all see each other's changes. Under ThreadSanitizer (scripts/test's
    /// sanitized step) this is also the check that the lock's hand-off is one it sees: with the standard library's
    /// `Mutex` it reported this loop as a race.
    @Test func contendedChangesAreAllKept() {
        let count = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<5_000 { count.withLock { $0 += 1 } }
        }
        #expect(count.withLock { $0 } == 40_000)
    }

    @Test func anErrorThrownInsideLeavesTheLockFree() {
        struct Refused: Error {}
        let value = Locked("before")
        #expect(throws: Refused.self) {
            try value.withLock { text throws(Refused) in
                text = "changed"
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == "changed")
    }
}

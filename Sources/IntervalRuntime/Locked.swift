import Glibc

/// A value that threads share behind a pthread mutex: this package's lock, in place of the standard library's
/// `Mutex`. On Linux, Swift 6.3's `Mutex` is a priority-inheritance futex: under contention the kernel hands the lock
/// from one thread to the next with no atomic operation that ThreadSanitizer sees, so every contended use was reported
/// as a race (a CI run's ThreadSanitizer step failed on ``HookRunner``'s count). ThreadSanitizer intercepts
/// `pthread_mutex_lock`.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while no other thread can reach it.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

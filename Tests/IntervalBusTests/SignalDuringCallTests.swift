import CSystemd
import Dispatch
import Foundation
import IntervalCore
import IntervalRuntime
import IntervalTestSupport
import Logging
import Testing

@testable import IntervalBus

/// A caught signal that arrives while a thread waits in a synchronous bus call (the daemon's SIGTERM at start-up): the
/// call goes on to its own end and the signal is handled after it. libsystemd 252 fails the call with -EINTR when a
/// handler interrupts its poll, and then an output's set-up failed (the tray item's, which crashed on that path).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil, "needs a session bus"))
struct SignalDuringCallTests {
    /// Caught once for the whole test process, as a daemon catches its signals once.
    static let watcher = Result { () throws(FileError) in try SignalWatcher.catching([SIGUSR2]) }
    let logger = Logger(label: "SignalDuringCallTests")

    @Test func aCaughtSignalDuringACallIsHandledAfterItInsteadOfFailingIt() throws {
        let watcher = try Self.watcher.get()
        let caught = DispatchSemaphore(value: 0)
        watcher.watch(on: DispatchQueue(label: "test.signals")) { number in
            if number == SIGUSR2 { caught.signal() }
        }
        // A peer that owns a name and never reads: a call to it waits for its whole timeout.
        let silent = "org.intervald.Test.Silent\(getpid())"
        let peer = try Bus.openUser(description: "silent-peer")
        try peer.requestName(silent)
        let bus = try Bus.openUser(description: "caller")
        let message = try bus.newMethodCall(destination: silent, path: "/", interface: "org.example.X", member: "Y")

        // Aimed at the calling thread itself, 100 ms into the call: the kernel cannot hand it to another thread.
        // The test runner's threads block SIGUSR2; the daemon's do not block the signals it catches.
        var usr2 = sigset_t()
        var runnerMask = sigset_t()
        sigemptyset(&usr2)
        sigaddset(&usr2, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &usr2, &runnerMask)
        defer { pthread_sigmask(SIG_SETMASK, &runnerMask, nil) }
        let caller = pthread_self()
        // From a thread of its own: the global queue's workers (two on two CPUs) may be busy with other tests' work
        // (hooks waited for) until after the call, which then missed its signal (one run in ten under load). The
        // call lasts 3 s, so that the signal lands in it even when that thread is scheduled seconds late (a whole
        // build beside the tests delayed it past a 600 ms call once): a signal after the call's end would be blocked
        // again on the calling thread, and the test would prove nothing.
        let sent = DispatchSemaphore(value: 0)
        let sentAt = SentAt()
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.1)
            sentAt.instant = ContinuousClock.now
            _ = pthread_kill(caller, SIGUSR2)
            sent.signal()
        }
        let started = ContinuousClock.now
        let error = #expect(throws: BusError.self) { try bus.call(message, timeout: .seconds(3)) }
        let ended = ContinuousClock.now
        #expect(
            error?.errno == ETIMEDOUT, "the call ended on its timeout, not on the signal: \(String(describing: error))")
        #expect(ended - started >= .milliseconds(2950))
        #expect(sent.wait(timeout: .now() + 30) == .success)
        #expect(sentAt.instant.map { $0 < ended } == true, "the signal was sent during the call")
        // Its handler runs on a queue of the shared pool, which the other suites' work can hold for seconds (a fresh
        // clone's ThreadSanitizer run, where a whole suite ran eight times slower, waited past 5 s once).
        #expect(caught.wait(timeout: .now() + 30) == .success, "the signal was handled once the call returned")
    }

    @Test func aTrayItemWhoseWatcherMatchFailsThrowsAndFreesItsContextOnce() throws {
        let queue = DispatchQueue(label: "test.tray")
        let server = try TimerBusServer.open(queue: queue, delegate: TimerBusTests.Stand(), logger: logger) { _ in }
        defer { queue.sync { server.close() } }
        let (session, _) = ManualTimerSource.session()
        queue.sync {
            // A closed connection fails the match's call, as an interrupted one did.
            sd_bus_close(server.bus.pointer)
            #expect(throws: BusError.self) {
                _ = try TrayOutput(
                    server: server, session: session, restKinds: [], refreshTimer: ManualTimerSource(now: 0),
                    logger: logger)
            }
        }
    }
}

/// When the signal was sent: written by its thread before it signals `sent`, read after waiting for it.
private final class SentAt: @unchecked Sendable {
    var instant: ContinuousClock.Instant?
}

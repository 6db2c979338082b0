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
        // A peer that owns a name and answers the call only once the signal was sent: the call cannot end before
        // the signal is pending on its thread, however late any thread is scheduled.
        let answering = "org.intervald.Test.AnswersLate\(getpid())"
        let peer = try Bus.openUser(description: "answering-peer")
        try peer.requestName(answering)
        let bus = try Bus.openUser(description: "caller")
        let message = try bus.newMethodCall(destination: answering, path: "/", interface: "org.example.X", member: "Y")

        // Aimed at the calling thread itself: the kernel cannot hand it to another thread.
        // The test runner's threads block SIGUSR2; the daemon's do not block the signals it catches.
        var usr2 = sigset_t()
        var runnerMask = sigset_t()
        sigemptyset(&usr2)
        sigaddset(&usr2, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &usr2, &runnerMask)
        defer { pthread_sigmask(SIG_SETMASK, &runnerMask, nil) }
        let caller = pthread_self()
        // From a thread of its own, driven by events alone: the call's arrival at the peer (sent from within the
        // call, so its thread defers the signal from then on), then the signal, then the answer. It used to be sent
        // 100 ms into a call that ended on its 3 s timeout; a sender held past the call's end (two fresh clones'
        // ThreadSanitizer runs) then signalled a thread waiting on a semaphore, where ThreadSanitizer holds an
        // asynchronous signal until the thread's next intercepted call, and the handler had not run 30 s later.
        let answered = DispatchSemaphore(value: 0)
        let peerSide = AnsweringPeer(peer: peer, logger: logger)
        Thread.detachNewThread {
            peerSide.answerAfterSignalling(caller, signal: SIGUSR2, within: .seconds(30))
            answered.signal()
        }
        let error = #expect(throws: BusError.self) { try bus.call(message, timeout: .seconds(30)) }
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(peerSide.signalled, "the signal was sent while the call waited for its answer")
        #expect(
            error?.name == AnsweringPeer.answer,
            "the call ended on the peer's answer, not on the signal: \(String(describing: error))")
        // Its handler runs on a queue of the shared pool, which the other suites' work can hold for seconds.
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

/// The peer of the call: waits for the call to arrive, signals the calling thread, then answers with an error. Used by
/// one thread at a time: the sender's, then the test's after `answered`.
private final class AnsweringPeer: @unchecked Sendable {
    static let answer = "org.intervald.Test.AnsweredAfterTheSignal"
    private let peer: Bus
    private let logger: Logger
    private(set) var signalled = false

    init(peer: Bus, logger: Logger) {
        self.peer = peer
        self.logger = logger
    }

    func answerAfterSignalling(_ thread: pthread_t, signal: Int32, within limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            var received: OpaquePointer?
            let processed = sd_bus_process(peer.pointer, &received)
            if let received {
                let message = BusMessage(owning: received)
                guard message.interface == "org.example.X", message.member == "Y" else { continue }
                signalled = pthread_kill(thread, signal) == 0
                BusCall(message: message, interface: "org.example.X", logger: logger) {}
                    .fail(BusCallError(Self.answer, "answered once the signal was sent"))
                try? peer.flush()
                return
            }
            guard processed >= 0 else { return }
            if processed == 0 { try? peer.wait(timeout: .milliseconds(100)) }
        }
    }
}

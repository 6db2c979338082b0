import Dispatch
import Foundation
import IntervalBus
import IntervalCore
import Logging
import Synchronization
import Testing

/// The sd-bus adapter against a real session bus: the server exports its object, the client reads it back.
/// Run under `dbus-run-session` (scripts/test does); without a session bus these tests are skipped.
@Suite(
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil, "needs a session bus"),
    .timeLimit(.minutes(1))
)
struct TimerBusTests {
    /// A delegate with a fixed status that fails every command with `failure`, when set.
    final class Stand: TimerBusDelegate, @unchecked Sendable {
        var current = TimerStatus.idle
        var failure: TimerCommandError?
        var startedPlans: [String] = []
        var refusedBytes: [Int] = []
        var settingsProblems: [String] = []
        var reloads = 0
        var statusReads = 0

        func start(
            plan: String, origin: String, replace: Bool, answer: @escaping (Result<Void, TimerCommandError>) -> Void
        ) {
            startedPlans.append(plan)
            answer(failure.map { .failure($0) } ?? .success(()))
        }
        func startProgram(
            _ program: String, day: String, replace: Bool,
            answer: @escaping (Result<Void, TimerCommandError>) -> Void
        ) {
            startedPlans.append("\(program) \(day)")
            answer(failure.map { .failure($0) } ?? .success(()))
        }
        func remindProgram(_ program: String, answer: @escaping (Result<Void, TimerCommandError>) -> Void) {
            startedPlans.append("remind \(program)")
            answer(failure.map { .failure($0) } ?? .success(()))
        }
        func refusedOversizedPlan(bytes: Int) { refusedBytes.append(bytes) }
        func stop() {}
        func pause() throws(TimerCommandError) { try fail() }
        func resume() throws(TimerCommandError) { try fail() }
        func skip() throws(TimerCommandError) { try fail() }
        func restart() throws(TimerCommandError) { try fail() }
        func reloadSettings() -> [String] {
            reloads += 1
            return settingsProblems
        }
        func status() -> TimerStatus {
            statusReads += 1
            return current
        }

        private func fail() throws(TimerCommandError) {
            if let failure { throw failure }
        }
    }

    let queue = DispatchQueue(label: "TimerBusTests.server")
    let logger = Logger(label: "TimerBusTests")

    func serve(_ stand: Stand, _ body: (TimerBusServer) throws -> Void) throws {
        let server = try TimerBusServer.open(queue: queue, delegate: stand, logger: logger) { _ in }
        defer { queue.sync { server.close() } }
        try body(server)
    }

    /// A status in which every property of the table holds a value of its own, different from idle's.
    static func distinctStatus() -> TimerStatus {
        var status = TimerStatus.idle
        for (offset, property) in TimerProperty.all.enumerated() {
            let value: TimerProperty.Value =
                switch property.signature {
                case .string: property == .state ? .string("paused") : .string("\(property.name) ✓ \(offset)")
                case .uint16: .uint16(UInt16(200 + offset))
                case .uint32: .uint32(UInt32(1000 + offset))
                case .uint64: .uint64(UInt64(1 << 40) + UInt64(offset))
                // Not the default, false, so that a property that never reaches the bus would show.
                case .boolean: .boolean(true)
                case .double: .double(Double(offset) + 0.25)
                }
            #expect(property.assign(value, to: &status), "\(property)")
        }
        return status
    }

    @Test func everyPropertyRoundTripsFromServerToClient() throws {
        let stand = Stand()
        stand.current = Self.distinctStatus()
        #expect(stand.current != .idle)
        try serve(stand) { _ in
            let client = try TimerBusClient(logger: logger)
            let read = try client.status()
            #expect(read == stand.current)
            for property in TimerProperty.all {
                #expect(property.value(of: read) == property.value(of: stand.current), "\(property)")
            }
        }
    }

    /// A `GetAll` read the daemon's status once per property (about twenty), each a walk of the plan: hostile callers
    /// reading properties cost the queue that times cues twenty times what they needed. Its values are one status.
    @Test func everyPropertyOfOneReplyIsReadFromOneStatus() throws {
        let stand = Stand()
        stand.current = Self.distinctStatus()
        try serve(stand) { _ in
            let client = try TimerBusClient(logger: logger)
            #expect(try client.status() == stand.current)
            #expect(queue.sync { stand.statusReads } == 1)
            #expect(try client.status() == stand.current)
            #expect(queue.sync { stand.statusReads } == 2, "each reply reads the status again")
        }
    }

    @Test(arguments: TimerCommandError.Code.allCases)
    func everyErrorNameMapsBothWays(code: TimerCommandError.Code) throws {
        let stand = Stand()
        let failure = TimerCommandError(code, "Refused for a test: \(code).")
        stand.failure = failure
        try serve(stand) { _ in
            let client = try TimerBusClient(logger: logger)
            // Start is answered late (the daemon parses off its queue), Pause at once: both paths.
            let calls: [(String, () throws(TimerClientError) -> Void)] = [
                (
                    "Start",
                    { () throws(TimerClientError) in
                        try client.call(TimerMethods.Start(plan: "1s run", origin: "", replace: false))
                    }
                ),
                ("Pause", { () throws(TimerClientError) in try client.call(TimerMethods.Pause()) }),
            ]
            for (name, call) in calls {
                do throws(TimerClientError) {
                    try call()
                    Issue.record("\(name) must fail with \(failure.busErrorName)")
                } catch {
                    guard case .command(let received) = error else {
                        Issue.record("expected a command error from \(name), got \(error)")
                        continue
                    }
                    #expect(received == failure, "\(name)")
                }
            }
        }
    }

    @Test func reloadSettingsAnswersTheProblemsAndANoDaemonIsNil() throws {
        let stand = Stand()
        stand.settingsProblems = [
            "s.toml:2: volume: expected a percentage from 1 to 100; keeping the value read before."
        ]
        try serve(stand) { _ in
            let client = try TimerBusClient(logger: logger)
            #expect(try client.callIfRunning(TimerMethods.ReloadSettings())?.problems == stand.settingsProblems)
            stand.settingsProblems = []
            #expect(try client.callIfRunning(TimerMethods.ReloadSettings())?.problems == [])
        }
        #expect(stand.reloads == 2)
        // With the server gone nothing answers, and nothing is activated: nil.
        #expect(try TimerBusClient(logger: logger).callIfRunning(TimerMethods.ReloadSettings()) == nil)
    }

    @Test func anOversizedPlanIsRefusedBeforeItReachesTheDelegate() throws {
        let stand = Stand()
        let oversized = String(repeating: "1s run\n", count: WorkoutSession.maximumPlanTextBytes / 7 + 1)
        try serve(stand) { _ in
            let client = try TimerBusClient(logger: logger)
            do throws(TimerClientError) {
                try client.call(TimerMethods.Start(plan: oversized, origin: "big.plan", replace: false))
                Issue.record("an oversized plan must be refused")
            } catch {
                guard case .command(let received) = error else {
                    Issue.record("expected InvalidPlan, got \(error)")
                    return
                }
                #expect(received.code == .invalidPlan)
                #expect(received.message.hasPrefix("big.plan: error: the plan is \(oversized.utf8.count) bytes long"))
            }
            try client.call(TimerMethods.Start(plan: "1s run", origin: "", replace: false))
        }
        #expect(stand.refusedBytes == [oversized.utf8.count])
        #expect(stand.startedPlans == ["1s run"])
    }

    @Test func everyAnnouncedPropertyCanSignalItsChange() throws {
        let stand = Stand()
        stand.current = Self.distinctStatus()
        try serve(stand) { server in
            let announced = TimerProperty.all.filter(\.emitsChangedSignal).map(\.name)
            try queue.sync { try server.emitPropertiesChanged(announced) }
            for snapshot in TimerProperty.all.filter({ !$0.emitsChangedSignal }) {
                #expect(throws: BusError.self, "\(snapshot) is a snapshot") {
                    try queue.sync { try server.emitPropertiesChanged([snapshot.name]) }
                }
            }
        }
    }
}

extension TimerProperty: Equatable {
    public static func == (lhs: TimerProperty, rhs: TimerProperty) -> Bool { lhs.name == rhs.name }
}

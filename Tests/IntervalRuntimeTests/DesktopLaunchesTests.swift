import Dispatch
import Foundation
import IntervalCore
import Logging
import Testing

@testable import IntervalRuntime

/// What the daemon does for the desktop's requests (docs/reference.md §8), decided by ``DesktopLaunches`` on a real
/// ``PlanCatalog`` (the repository's bundled plans, copied to a data directory of a temporary home) and a real
/// ``StateStore``. Only the daemon's edges are recorded: what it would start, whether it stops, the notifications.
@Suite struct DesktopLaunchesTests {
    /// The daemon's side of the requests, seen on its queue.
    final class Daemon {
        var started: [(text: String, origin: String)] = []
        var startedPrograms: [String] = []
        var laterPrograms: [String] = []
        var stops = 0
        var shown: [DesktopMessage] = []
        /// What `Start` answers.
        var startAnswer: Result<Void, TimerCommandError> = .success(())
    }

    /// A temporary home: the user's plan directory, a data directory with the bundled plans, the state directory.
    final class Home {
        let root: String
        let paths: XDGPaths
        let queue: DispatchQueue
        let parseQueue: DispatchQueue
        let daemon: Daemon
        let store: StateStore
        let launches: DesktopLaunches

        init(bundled: Bool = true) throws {
            root =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "desktop-launches-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
                ).path
            paths = XDGPaths(environment: [
                "HOME": root, "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
                "XDG_DATA_DIRS": root + "/share", "XDG_STATE_HOME": root + "/state",
            ])
            for directory in paths.planDirectories {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            if bundled {
                let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .deletingLastPathComponent().deletingLastPathComponent()
                let plans = repository.appendingPathComponent("config/plans").path
                for file in try FileManager.default.contentsOfDirectory(atPath: plans) where file.hasSuffix(".plan") {
                    try FileManager.default.copyItem(
                        atPath: plans + "/" + file, toPath: root + "/share/intervald/plans/" + file)
                }
            }
            store = StateStore(directory: paths.stateDirectory)
            let daemon = Daemon()
            self.daemon = daemon
            queue = DispatchQueue(label: "DesktopLaunchesTests.daemon")
            parseQueue = DispatchQueue(label: "DesktopLaunchesTests.parse")
            launches = DesktopLaunches(
                queue: queue, parseQueue: parseQueue, catalog: PlanCatalog(locator: PlanLocator(paths: paths)),
                programs: ProgramLedger(paths: paths), store: store, logger: Logger(label: "test"),
                start: { text, origin, answer in
                    daemon.started.append((text, origin))
                    answer(daemon.startAnswer)
                },
                startProgram: { program, answer in
                    daemon.startedPrograms.append(program)
                    answer(daemon.startAnswer)
                },
                stop: { daemon.stops += 1 },
                show: { daemon.shown.append($0) },
                remindLater: { daemon.laterPrograms.append($0) })
        }

        deinit {
            try? FileManager.default.removeItem(atPath: root)
        }

        /// The data directory of `XDG_DATA_DIRS`, where a package installs its plans.
        var bundledDirectory: String { root + "/share/intervald/plans" }

        /// Runs `body` on the daemon's queue, then waits until the work it sent to the parse queue, and what that
        /// sent back, has run (both queues are serial: a few rounds drain them).
        func onQueue<Value>(_ body: (DesktopLaunches) -> Value) -> Value {
            let value = queue.sync { body(launches) }
            for _ in 0..<4 {
                parseQueue.sync {}
                queue.sync {}
            }
            return value
        }

        func perform(_ request: DesktopLauncher.Request) -> Result<Void, TimerCommandError>? {
            var answered: Result<Void, TimerCommandError>?
            onQueue { $0.perform(request) { answered = $0 } }
            return queue.sync { answered }
        }

        func search(_ query: String) -> [PlanSearch.Hit]? {
            var hits: [PlanSearch.Hit]?
            onQueue { $0.search(query) { hits = $0 } }
            return queue.sync { hits }
        }

        func describe(_ results: [PlanSearch.Result]) -> [PlanSearch.Description?]? {
            var descriptions: [PlanSearch.Description?]?
            onQueue { $0.describe(results) { descriptions = $0 } }
            return queue.sync { descriptions }
        }

        /// A history line for a workout of the plan at `origin`.
        func recordWorkout(origin: String, id: String) throws {
            try store.append(
                HistoryRecord(
                    id: id, plan: "P", origin: origin, start: "2026-01-01T07:00:00+00:00",
                    end: "2026-01-01T07:04:00+00:00", startWall: 0, plannedDuration: 240_000_000,
                    doneDuration: 240_000_000, segmentsDone: 16, timePerKind: [:], result: .finished, reason: nil))
        }
    }

    /// Couch to 5K, bundled in the home's data directory.
    static func withCouchTo5K(_ home: Home) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.createDirectory(
            atPath: home.root + "/share/intervald/programs", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("config/programs/c25k.program").path,
            toPath: home.root + "/share/intervald/programs/c25k.program")
    }

    @Test func searchOffersAProgramsNextDayAndItsResultStartsTheProgram() throws {
        let home = try Home()
        try Self.withCouchTo5K(home)
        let found = try #require(home.search("c25k"))
        #expect(found.first?.result == .program("c25k"), "\(found.map(\.result))")
        #expect(found.first?.description.name == "Start Couch to 5K — Week 1, Day 1")
        #expect(found.contains { $0.result == .named("c25k-week1") }, "the plan of the same name is still offered")
        #expect(try #require(home.search("couch week")).first?.result == .program("c25k"))

        let ledger = ProgramLedger(paths: home.paths)
        let chosen = try ledger.dayToStart(program: "c25k", day: "")
        try ledger.finished(chosen.reference, workout: "w1", wall: 0)
        #expect(try #require(home.describe([.program("c25k")])).first??.name == "Start Couch to 5K — Week 1, Day 2")

        #expect(throws: Never.self) { try home.perform(.start(.program("c25k")))?.get() }
        #expect(home.queue.sync { home.daemon.startedPrograms } == ["c25k"])
        #expect(home.queue.sync { home.daemon.started }.isEmpty, "a program's day starts through StartProgram")
    }

    @Test func aRemindersButtonsStartTheNextDayOrComeAgainLater() throws {
        let home = try Home()
        try Self.withCouchTo5K(home)
        var answered: Result<Void, TimerCommandError>?
        home.onQueue { $0.remind("c25k", workoutRunning: false) { answered = $0 } }
        #expect(throws: Never.self) { try home.queue.sync { answered }?.get() }
        let message = try #require(home.queue.sync { home.daemon.shown }.last)
        #expect(message.summary == "Couch to 5K: Week 1, Day 1 today (30:00)")
        #expect(message.buttons.map(\.label) == ["Start", "Later"])
        home.onQueue { $0.pressed(message.buttons[1].key) }
        #expect(home.queue.sync { home.daemon.laterPrograms } == ["c25k"])
        home.onQueue { $0.pressed(message.buttons[0].key) }
        #expect(home.queue.sync { home.daemon.startedPrograms } == ["c25k"])

        // While a workout runs, the reminder is answered but not shown; an unknown program is refused.
        home.onQueue { $0.remind("c25k", workoutRunning: true) { answered = $0 } }
        #expect(home.queue.sync { home.daemon.shown }.count == 1)
        home.onQueue { $0.remind("nothing", workoutRunning: false) { answered = $0 } }
        let refused = home.queue.sync { answered }
        guard case .failure(let failure) = refused else {
            Issue.record("an unknown program's reminder must be refused")
            return
        }
        #expect(failure.code == .invalidPlan)
    }

    @Test func activateStartsThePlanUsedLastWhoseFileIsStillThere() throws {
        let home = try Home()
        let tabata = home.bundledDirectory + "/tabata.plan"
        let gone = home.root + "/gone.plan"
        try home.recordWorkout(origin: "", id: "inline")
        try home.recordWorkout(origin: tabata, id: "tabata")
        try home.recordWorkout(origin: gone, id: "gone")  // used last, but its file is gone
        try home.recordWorkout(origin: "relative.plan", id: "relative")  // not a path the daemon can read again
        let answer = try #require(home.perform(.activate))
        #expect(throws: Never.self) { try answer.get() }
        let started = home.queue.sync { home.daemon.started }
        #expect(started.map(\.origin) == [tabata])
        #expect(started.first?.text == (try String(contentsOfFile: tabata, encoding: .utf8)))
        #expect(home.queue.sync { home.daemon.shown }.isEmpty)
    }

    @Test func activateWithoutAWorkoutToRepeatOffersThePlansAsButtons() throws {
        let home = try Home()
        let answer = try #require(home.perform(.activate))
        #expect(throws: Never.self) { try answer.get() }
        #expect(home.queue.sync { home.daemon.started }.isEmpty)
        let message = try #require(home.queue.sync { home.daemon.shown }.last)
        #expect(message.summary == "Interval Timer")
        #expect(message.body == "Choose a workout, or type a plan's name in the desktop's search.")
        #expect(message.buttons.contains(DesktopMessage.Button(key: "plan:tabata", label: "Tabata")))
        #expect(message.buttons.count == 7, "\(message.buttons)")

        // A button starts its plan from its file.
        let tabata = try #require(message.buttons.first { $0.label == "Tabata" })
        home.onQueue { $0.pressed(tabata.key) }
        home.onQueue { $0.pressed("not a key") }
        #expect(home.queue.sync { home.daemon.started }.map(\.origin) == [home.bundledDirectory + "/tabata.plan"])
    }

    @Test func activateWithNoPlansAtAllSaysWhereItLooked() throws {
        let home = try Home(bundled: false)
        _ = home.perform(.activate)
        let message = try #require(home.queue.sync { home.daemon.shown }.last)
        #expect(message.buttons.isEmpty)
        #expect(message.body.hasPrefix("There are no plans in \(home.root)/config/intervald/plans, "))
    }

    @Test func searchFindsTheBundledPlansByNameAndTitleAndAOneLinePlan() throws {
        let home = try Home()
        let tabata = try #require(home.search("tabata"))
        #expect(tabata.map(\.result) == [.named("tabata")])
        #expect(tabata.first?.description.name == "Start Tabata")
        let galloway = try #require(home.search("galloway"))
        #expect(galloway.map(\.result) == [.named("galloway-1-1"), .named("galloway-3-1"), .named("galloway-30-30")])
        let inline = try #require(home.search("30s run"))
        #expect(inline.first?.result == .inline("30s run"), "a query that parses is offered as a plan first")
        #expect(try #require(home.search("zumba")).isEmpty)
    }

    @Test func describeAnswersNilForAPlanThatVanished() throws {
        let home = try Home()
        let found = try #require(home.search("hiit"))
        #expect(found.map(\.result) == [.named("hiit-30-30")])
        let results = found.map(\.result) + [.inline("5m walk"), .inline("zumba")]
        let before = try #require(home.describe(results))
        #expect(before.count == 3)
        #expect(before[0] == found[0].description)
        #expect(before[1] != nil)
        #expect(before[2] == nil, "text that is no plan describes nothing")
        try FileManager.default.removeItem(atPath: home.bundledDirectory + "/hiit-30-30.plan")
        let after = try #require(home.describe(results))
        #expect(after[0] == nil)
        #expect(after[1] == before[1])
    }

    @Test func aMalformedActionIsReportedAndNothingStarts() throws {
        let home = try Home()
        for (action, parameter) in [("start", nil), ("start", "../tabata"), ("../tabata", nil)] {
            do throws(TimerCommandError) {
                let request = try DesktopLauncher.request(action: action, parameter: parameter)
                Issue.record("\(action) \(parameter ?? "") must be refused, not read as \(request)")
            } catch {
                // As DesktopLauncherExport does with an action it cannot read.
                home.onQueue { $0.report(error) }
            }
        }
        let shown = home.queue.sync { home.daemon.shown }
        try #require(shown.count == 3)
        #expect(shown.map(\.summary) == Array(repeating: "Could not start the workout", count: 3))
        #expect(shown[0].body == "The start action needs a plan's name as its parameter.")
        #expect(shown[1].body == shown[0].body)
        #expect(shown[2].body == "There is no action '../tabata'.")
        #expect(home.queue.sync { home.daemon.started }.isEmpty)
        // A well-formed action for the bundled plan of its name starts it.
        let request = try DesktopLauncher.request(action: "tabata", parameter: nil)
        #expect(throws: Never.self) { try home.perform(request)?.get() }
        #expect(home.queue.sync { home.daemon.started }.map(\.origin) == [home.bundledDirectory + "/tabata.plan"])
    }

    @Test func aPlanThatCannotStartIsShownAndAnswered() throws {
        let home = try Home()
        let missing = home.perform(.start(.named("missing")))
        guard case .failure(let failure) = missing else {
            Issue.record("a missing plan must fail, got \(String(describing: missing))")
            return
        }
        #expect(failure.code == .invalidPlan)
        #expect(failure.message.hasPrefix("No plan named 'missing' (looked in \(home.root)/config/intervald/plans"))
        try "30s run\nzumba\n".write(
            toFile: home.root + "/config/intervald/plans/broken.plan", atomically: true, encoding: .utf8)
        #expect(throws: TimerCommandError.self) { try home.perform(.start(.named("broken")))?.get() }
        home.queue.sync { home.daemon.startAnswer = .failure(TimerCommandError(.alreadyRunning, "Busy.")) }
        #expect(throws: TimerCommandError.self) { try home.perform(.start(.inline("1m run")))?.get() }
        let shown = home.queue.sync { home.daemon.shown }
        try #require(shown.count == 3)
        #expect(shown.map(\.summary) == Array(repeating: "Could not start the workout", count: 3))
        #expect(shown[1].body.hasPrefix(home.root + "/config/intervald/plans/broken.plan:2:1: error:"))
        #expect(shown[2].body == "Busy.")
        #expect(home.queue.sync { home.daemon.started }.map(\.text) == ["1m run"])
        _ = home.perform(.stop)
        #expect(home.queue.sync { home.daemon.stops } == 1)
    }
}

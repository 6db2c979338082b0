import Dispatch
import IntervalCore
import Logging

/// What the daemon does for the desktop's requests (docs/reference.md §8): the desktop entry's activation and actions,
/// GNOME Shell's search and KRunner, and a training program's reminder (docs/programs.md). Plans and programs are
/// looked up, read and parsed on the parse queue, so no search delays a cue; a plan starts through the daemon's own
/// `Start` (a program's day through `StartProgram`), and whatever stops it is shown as a notification, since there is
/// no terminal to print to. Called on the daemon's queue.
///
/// The decisions only: the daemon wires it to the bus (`DesktopLauncherExport`), to its own `Start` and `Stop`, and
/// to libnotify (`DesktopMessageNotifier`, whose buttons come back through ``pressed(_:)``).
public final class DesktopLaunches: DesktopLauncherDelegate, @unchecked Sendable {
    private let queue: DispatchQueue
    private let parseQueue: DispatchQueue
    private let catalog: PlanCatalog
    private let programs: ProgramLedger
    private let store: StateStore
    private let logger: Logger
    /// Starts plan text (`Start` with replace false) and answers on `queue`.
    private let start:
        (_ text: String, _ origin: String, _ answer: @escaping (Result<Void, TimerCommandError>) -> Void)
            -> Void
    /// Starts a program's next day (`StartProgram` with no day and replace false) and answers on `queue`.
    private let startProgram: (_ program: String, _ answer: @escaping (Result<Void, TimerCommandError>) -> Void) -> Void
    private let stop: () -> Void
    /// Shows a message to the person (a notification); called on `queue`.
    private let show: (DesktopMessage) -> Void
    /// Has the reminder of a program come again in an hour (a reminder's Later).
    private let remindLater: (_ program: String) -> Void

    /// - Parameters:
    ///   - start: starts plan text and origin as the daemon's `Start` with replace false, answering on `queue`.
    ///   - startProgram: starts a program's next day as `StartProgram(program, "", false)`, answering on `queue`.
    ///   - stop: stops the workout, as `Stop`.
    ///   - show: shows a message (a notification); a button pressed on it is handed to ``pressed(_:)`` on `queue`.
    ///   - remindLater: has a program's reminder come again in an hour.
    public init(
        queue: DispatchQueue, parseQueue: DispatchQueue, catalog: PlanCatalog, programs: ProgramLedger,
        store: StateStore, logger: Logger,
        start: @escaping (String, String, @escaping (Result<Void, TimerCommandError>) -> Void) -> Void,
        startProgram: @escaping (String, @escaping (Result<Void, TimerCommandError>) -> Void) -> Void,
        stop: @escaping () -> Void, show: @escaping (DesktopMessage) -> Void,
        remindLater: @escaping (String) -> Void
    ) {
        self.queue = queue
        self.parseQueue = parseQueue
        self.catalog = catalog
        self.programs = programs
        self.store = store
        self.logger = logger
        self.start = start
        self.startProgram = startProgram
        self.stop = stop
        self.show = show
        self.remindLater = remindLater
    }

    public func perform(_ request: DesktopLauncher.Request, answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    {
        logger.info("Desktop request.", metadata: ["request": "\(request)"])
        switch request {
        case .stop:
            stop()
            answer(.success(()))
        case .start(.program(let name)):
            startProgram(name) { [self] outcome in
                if case .failure(let failure) = outcome { report(failure) }
                answer(outcome)
            }
        case .start(let result):
            off { [self] in
                planText(for: result)
            } then: { [self] found in
                switch found {
                case .success(let (text, origin)): startShowingFailure(text, origin, answer: answer)
                case .failure(let failure):
                    report(failure)
                    answer(.failure(failure))
                }
            }
        case .activate:
            off { [self] in
                lastPlanFile()
            } then: { [self] last in
                if let last {
                    startShowingFailure(last.text, last.origin, answer: answer)
                } else {
                    offerPlans()
                    answer(.success(()))
                }
            }
        }
    }

    public func report(_ failure: TimerCommandError) {
        logger.notice("Could not start a workout from the desktop.", metadata: ["error": "\(failure.message)"])
        show(DesktopMessage(summary: tr("Could not start the workout"), body: failure.message))
    }

    /// The programs' next days first ("c25k" finds "Couch to 5K — Week 3, Day 2"), then the plans, then the query as
    /// a one-line plan when it parses.
    public func search(_ query: String, answer: @escaping ([PlanSearch.Hit]) -> Void) {
        off { [catalog, programs] () -> [PlanSearch.Hit] in
            let entries = catalog.items().compactMap { item in
                (try? item.plan.get()).map { PlanSearch.Entry(name: item.name, plan: $0) }
            }
            let programEntries = programs.catalog.items().compactMap { Self.nextDayEntry($0.name, programs) }
            var hits =
                PlanSearch.matches(query, in: programEntries).map { PlanSearch.Hit(.program($0.name), .init($0)) }
                + PlanSearch.matches(query, in: entries).map { PlanSearch.Hit(.named($0.name), .init($0)) }
            hits = Array(hits.prefix(PlanSearch.maximumResults))
            if PlanSearch.mayBeInlinePlan(query), let plan = try? WorkoutSession.parse(query, origin: "") {
                hits.insert(PlanSearch.Hit(.inline(query), .init(title: query, plan: plan)), at: 0)
            }
            return hits
        } then: {
            answer($0)
        }
    }

    public func describe(_ results: [PlanSearch.Result], answer: @escaping ([PlanSearch.Description?]) -> Void) {
        off { [catalog, programs] in
            results.map { result -> PlanSearch.Description? in
                switch result {
                case .named(let name):
                    guard let plan = catalog.item(named: name).flatMap({ try? $0.plan.get() }) else { return nil }
                    return PlanSearch.Description(PlanSearch.Entry(name: name, plan: plan))
                case .inline(let text):
                    guard let plan = try? WorkoutSession.parse(text, origin: "") else { return nil }
                    return PlanSearch.Description(title: text, plan: plan)
                case .program(let name):
                    return Self.nextDayEntry(name, programs).map(PlanSearch.Description.init)
                }
            }
        } then: {
            answer($0)
        }
    }

    /// A button of a message was pressed: its key names the plan or program to start
    /// (``PlanSearch/Result/identifier``), or a reminder to have again later; a key that names none is ignored. On
    /// `queue`.
    public func pressed(_ key: String) {
        if key.hasPrefix(Self.laterPrefix) {
            let name = String(key.dropFirst(Self.laterPrefix.count))
            if PlanLocator.isName(name) { remindLater(name) }
            return
        }
        guard let result = PlanSearch.Result(identifier: key) else { return }
        perform(.start(result)) { _ in }
    }

    private static let laterPrefix = "later:"

    /// Shows the reminder of program `name`'s next day (docs/programs.md): "Couch to 5K: Week 3, Day 2 today (25:00)"
    /// with Start and Later. Nothing is shown while a workout runs (the person is training already); a complete
    /// program says so, and how to turn its reminder off. Answers on `queue` once the message is shown (or refused).
    public func remind(
        _ name: String, workoutRunning: Bool, answer: @escaping (Result<Void, TimerCommandError>) -> Void
    ) {
        off { [programs] () -> Result<(Program, ProgramDay?), TimerCommandError> in
            Result { () throws(TimerCommandError) in
                let program = try programs.program(named: name)
                return (program, programs.store.load(name, of: program).progress.nextDay(in: program))
            }
        } then: { [self] found in
            switch found {
            case .failure(let failure):
                logger.notice("A reminder for an unknown program.", metadata: ["error": "\(failure.message)"])
                answer(.failure(failure))
            case .success(let (program, next)):
                if workoutRunning {
                    logger.info("A reminder while a workout runs, not shown.", metadata: ["program": "\(name)"])
                } else if let next, let plan = program.day(next)?.plan {
                    show(
                        DesktopMessage(
                            summary: tr(
                                "{program}: {day} today ({duration})",
                                [
                                    "program": program.name, "day": next.title,
                                    "duration": PlanReport.timeText(plan),
                                ]),
                            body: PlanReport.description(of: plan),
                            buttons: [
                                DesktopMessage.Button(
                                    key: PlanSearch.Result.program(name).identifier, label: tr("Start")),
                                DesktopMessage.Button(key: Self.laterPrefix + name, label: tr("Later")),
                            ]))
                } else {
                    show(
                        DesktopMessage(
                            summary: tr("{program} is complete", ["program": program.name]),
                            body: tr(
                                "Every day is done. 'intervalctl program remind {name} --off' ends its reminders.",
                                ["name": name])))
                }
                answer(.success(()))
            }
        }
    }

    // MARK: Helpers

    /// Program `name`'s next day as the search offers it; nil for a program that is missing, invalid or complete. On
    /// the parse queue.
    private static func nextDayEntry(_ name: String, _ programs: ProgramLedger) -> PlanSearch.Entry? {
        guard let program = try? programs.program(named: name),
            let next = programs.store.load(name, of: program).progress.nextDay(in: program),
            let plan = program.day(next)?.plan
        else { return nil }
        return PlanSearch.Entry(program: name, title: program.name, day: next, plan: plan)
    }

    /// Runs `work` on the parse queue and hands its value to `then` on the daemon's queue.
    private func off<Value>(_ work: @escaping () -> Value, then: @escaping (Value) -> Void) {
        let box = QueueBound((work, then))
        parseQueue.async { [queue] in
            let value = QueueBound(box.value.0())
            queue.async { box.value.1(value.value) }
        }
    }

    /// The text and origin of the plan `result` stands for. On the parse queue.
    private func planText(for result: PlanSearch.Result) -> Result<(String, String), TimerCommandError> {
        switch result {
        case .inline(let text):
            return .success((text, ""))
        case .program(let name):
            // perform(_:answer:) starts programs itself, through StartProgram.
            return .failure(TimerCommandError(.invalidPlan, tr("'{name}' is a program, not a plan.", ["name": name])))
        case .named(let name):
            guard let item = catalog.item(named: name) else {
                let directories = catalog.locator.searchDirectories.joined(separator: ", ")
                return .failure(
                    TimerCommandError(
                        .invalidPlan,
                        tr(
                            "No plan named '{name}' (looked in {directories}).",
                            ["name": name, "directories": directories])))
            }
            switch item.plan {
            case .success: return .success((item.text ?? "", item.path))
            case .failure(let failure): return .failure(TimerCommandError(.invalidPlan, failure.description))
            }
        }
    }

    /// The plan file of the latest workout in the history that came from a file still there (the history keeps a
    /// plan's origin, not its text). On the parse queue.
    private func lastPlanFile() -> (text: String, origin: String)? {
        let records: [HistoryRecord]
        do {
            records = try store.history().records
        } catch {
            logger.warning("Failed to read the history, ignoring.", metadata: ["error": "\(error)"])
            return nil
        }
        for record in records.reversed() where record.origin.hasPrefix("/") {
            let item = PlanCatalog.load(name: PlanLocator.planName(forPath: record.origin), path: record.origin)
            if let text = item.text { return (text, record.origin) }
        }
        return nil
    }

    private func startShowingFailure(
        _ text: String, _ origin: String, answer: @escaping (Result<Void, TimerCommandError>) -> Void
    ) {
        start(text, origin) { [self] outcome in
            if case .failure(let failure) = outcome { report(failure) }
            answer(outcome)
        }
    }

    /// Activation with no workout to repeat: the named plans as buttons. On the parse queue for the catalog.
    private func offerPlans() {
        off { [catalog] in
            catalog.items().compactMap { item -> DesktopMessage.Button? in
                guard let plan = try? item.plan.get() else { return nil }
                return DesktopMessage.Button(key: PlanSearch.Result.named(item.name).identifier, label: plan.name)
            }
        } then: { [self] buttons in
            let body =
                buttons.isEmpty
                ? tr(
                    "There are no plans in {directories}.",
                    ["directories": catalog.locator.searchDirectories.joined(separator: ", ")])
                : tr("Choose a workout, or type a plan's name in the desktop's search.")
            show(DesktopMessage(summary: tr("Interval Timer"), body: body, buttons: buttons))
        }
    }
}

/// Carries the work and its answer from the daemon's queue through the parse queue and back: each is used only on
/// the queue it came from, or on the parse queue alone.
private struct QueueBound<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// Starting a workout from the desktop, no terminal (docs/reference.md §8): where the daemon serves the desktop's
/// interfaces, and what each request of theirs asks for.
public enum DesktopLauncher {
    /// `org.freedesktop.Application`, on the path the Desktop Entry Specification derives from the bus name.
    public static let applicationPath = BusNames.objectPath
    public static let applicationInterface = "org.freedesktop.Application"
    /// `org.gnome.Shell.SearchProvider2`; the search provider's `.ini` names this path.
    public static let searchProviderPath = BusNames.objectPath + "/SearchProvider"
    public static let searchProviderInterface = "org.gnome.Shell.SearchProvider2"
    /// `org.kde.krunner1`; the runner's `.desktop` names this path.
    public static let runnerPath = BusNames.objectPath + "/KRunner"
    public static let runnerInterface = "org.kde.krunner1"

    /// What a request from the desktop asks the daemon to do.
    public enum Request: Sendable, Equatable {
        /// `Activate`: start the plan used last, or offer the plans.
        case activate
        /// Start this plan.
        case start(PlanSearch.Result)
        /// Stop the workout.
        case stop
    }

    /// The action that stops the workout (the desktop entry's "Stop").
    public static let stopAction = "stop"
    /// The action that starts the named plan given as its string parameter (for scripts: `gapplication action`).
    public static let startAction = "start"

    /// What `ActivateAction(name, parameter)` asks for: `stop`; `start` with a plan name; any other name is the
    /// desktop entry's action for the bundled plan of that name ("tabata"). Throws `InvalidPlan` for a `start`
    /// without a plan name and for a name that cannot be a plan's.
    public static func request(action name: String, parameter: String?) throws(TimerCommandError) -> Request {
        switch name {
        case stopAction:
            return .stop
        case startAction:
            guard let parameter, PlanLocator.isName(parameter) else {
                throw TimerCommandError(.invalidPlan, tr("The start action needs a plan's name as its parameter."))
            }
            return .start(.named(parameter))
        default:
            guard PlanLocator.isName(name) else {
                throw TimerCommandError(.invalidPlan, tr("There is no action '{action}'.", ["action": name]))
            }
            return .start(.named(name))
        }
    }
}

/// What the desktop's requests (IntervalBus's `DesktopLauncherExport`) are forwarded to: the daemon's
/// `DesktopLaunches` (IntervalRuntime). Called on the connection's queue; each `answer` is called once, on that queue,
/// and may be called later (after work off the queue).
public protocol DesktopLauncherDelegate: AnyObject {
    /// Carries out `request`; answers with why it could not (shown to the person as a notification too).
    func perform(
        _ request: DesktopLauncher.Request, answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    /// Shows the person why a request could not be carried out (a malformed action).
    func report(_ failure: TimerCommandError)
    /// The results for what was typed (``PlanSearch/query(_:)``), best first.
    func search(_ query: String, answer: @escaping ([PlanSearch.Hit]) -> Void)
    /// What to show for each of `results`, in their order; nil for one that no longer stands for a plan.
    func describe(_ results: [PlanSearch.Result], answer: @escaping ([PlanSearch.Description?]) -> Void)
}

extension DesktopLauncher {
    /// `org.freedesktop.Application` (the Desktop Entry Specification's D-Bus activation) as a table.
    public static let applicationInterfaceTable = BusInterface(
        name: applicationInterface, path: applicationPath,
        summary: "The D-Bus-activatable desktop entry and its actions.",
        members: [
            .method(
                name: "Activate", arguments: [.init("platform_data", "a{sv}")], results: [],
                doc: "Starts the plan used last, or shows the plans in a notification."),
            .method(
                name: "Open", arguments: [.init("uris", "as"), .init("platform_data", "a{sv}")], results: [],
                doc: "As `Activate` (no file types are declared)."),
            .method(
                name: "ActivateAction",
                arguments: [.init("action_name", "s"), .init("parameter", "av"), .init("platform_data", "a{sv}")],
                results: [],
                doc: "`stop`; `start` with a plan's name as the parameter; or a bundled plan's name (`tabata`)."),
        ])

    /// `org.gnome.Shell.SearchProvider2` as a table.
    public static let searchProviderInterfaceTable = BusInterface(
        name: searchProviderInterface, path: searchProviderPath,
        summary: "GNOME Shell's overview search: plan names and one-line plans.",
        members: [
            .method(
                name: "GetInitialResultSet", arguments: [.init("terms", "as")], results: [.init("results", "as")],
                doc: "The plans that match the terms, best first."),
            .method(
                name: "GetSubsearchResultSet", arguments: [.init("previous_results", "as"), .init("terms", "as")],
                results: [.init("results", "as")], doc: "As `GetInitialResultSet`."),
            .method(
                name: "GetResultMetas", arguments: [.init("identifiers", "as")], results: [.init("metas", "aa{sv}")],
                doc: "`id`, `name`, `description`, `gicon` for each identifier, in order."),
            .method(
                name: "ActivateResult",
                arguments: [.init("identifier", "s"), .init("terms", "as"), .init("timestamp", "u")], results: [],
                doc: "Starts the result's plan."),
            .method(
                name: "LaunchSearch", arguments: [.init("terms", "as"), .init("timestamp", "u")], results: [],
                doc: "As `Activate`."),
        ])

    /// `org.kde.krunner1` as a table.
    public static let runnerInterfaceTable = BusInterface(
        name: runnerInterface, path: runnerPath,
        summary: "KRunner's D-Bus runner: plan names and one-line plans.",
        members: [
            .method(name: "Actions", arguments: [], results: [.init("actions", "a(sss)")], doc: "None."),
            .method(
                name: "Match", arguments: [.init("query", "s")], results: [.init("matches", "a(sssida{sv})")],
                doc: "The plans that match: id, text, icon, category (100 exact, 30 possible), relevance, "
                    + "`subtext`."),
            .method(
                name: "Run", arguments: [.init("match_id", "s"), .init("action_id", "s")], results: [],
                doc: "Starts the match's plan."),
            BusInterface.method("Teardown", "Nothing to release."),
        ])
}

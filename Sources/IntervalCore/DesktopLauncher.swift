/// Starting a workout from the desktop, no terminal (spec §8): where the daemon serves the desktop's interfaces, and
/// what each request of theirs asks for.
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

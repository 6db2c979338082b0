import CGtk
import CGtkShims
import IntervalBus
import IntervalCore
import IntervalGLib
import IntervalRuntime
import IntervalSettings
import Logging

/// The Interval Timer application (docs/reference.md §10): a single-instance, D-Bus-activatable GtkApplication whose
/// window (``MainWindow``) is a client of `org.intervald.Timer1` (``TimerSession``), as `intervalctl` is. Here: the
/// application's actions (a plan's, Stop, Preferences, About, Retry) and accelerators, its command line, and the
/// window's life.
///
/// Threading: everything here runs on the GLib main thread.
final class TimerApplication {
    static let id = "org.intervald.IntervalTimer"

    let app: UnsafeMutablePointer<AdwApplication>
    let catalog: PlanCatalog
    let library: PlanLibrary
    let programs: ProgramLedger
    let reminders: ProgramReminders
    let store: StateStore
    let session: TimerSession
    /// The settings' rest kinds (the cool colours), read again when Preferences change them.
    private(set) var restKinds: Set<String>
    let paths: XDGPaths
    private let logger: Logger
    private var window: MainWindow?
    /// The finish page's watch on the history, while the window exists.
    private var finishWatcher: FinishWatcher?
    private let trace: FrameTrace?

    init(environment: [String: String], logger: Logger) {
        self.logger = logger
        let paths = XDGPaths(environment: environment)
        self.paths = paths
        catalog = PlanCatalog(locator: PlanLocator(paths: paths))
        library = PlanLibrary(paths: paths)
        programs = ProgramLedger(paths: paths)
        reminders = ProgramReminders(paths: paths)
        store = StateStore(directory: paths.stateDirectory)
        session = TimerSession(logger: logger)
        restKinds = SettingsFile.load(path: paths.settingsFile).0.sound.restKinds
        trace = FrameTrace(environment: environment)
        app = adw_application_new(Self.id, G_APPLICATION_HANDLES_COMMAND_LINE)
        session.changed = { [unowned self] previous in window?.statusChanged(from: previous) }
        session.ended = { [unowned self] plan in finishWatcher?.ended(planName: plan) }
        session.failed = { [unowned self] error in problem(error) }
        session.answered = { [unowned self] in window?.clearProblem() }
        on(app, .startup) { [unowned self] in startup() }
        on(app, .activate) { [unowned self] in present() }
        on(app, .commandLine) { [unowned self] line in commandLine(line) }
    }

    func run(_ arguments: [String]) -> Int32 {
        var cArguments = arguments.map { strdup($0) }
        defer { cArguments.forEach { free($0) } }
        return app.run(Int32(cArguments.count), &cArguments)
    }

    private func startup() {
        let css: UnsafeMutablePointer<GtkCssProvider> = gtk_css_provider_new()
        gtk_css_provider_load_from_data(css, Self.style, -1)
        gtk_style_context_add_provider_for_display(
            gdk_display_get_default(), OpaquePointer(css), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        let map = app.actionMap
        // One action per plan, as the desktop entry's actions name them (its ID is the plan's name), and stop.
        for file in catalog.files() where g_action_name_is_valid(file.name) != 0 {
            let name = file.name
            addAction(to: map, name) { [unowned self] _ in startNamedPlan(name) }
        }
        addAction(to: map, "stop") { [unowned self] _ in
            session.command { client throws(TimerClientError) in try client.call(TimerMethods.Stop()) }
        }
        // The primary menu's (docs/reference.md §14), and the unreachable toast's.
        addAction(to: map, "preferences") { [unowned self] _ in showPreferences() }
        addAction(to: map, "about") { [unowned self] _ in showAbout() }
        addAction(to: map, "retry") { [unowned self] _ in session.refresh() }
        // The window's keys that no control uses (its workout keys are the workout page's: ui/workout-page.ui).
        for key in WindowKey.application { setAccelerators(key.action, key.accelerators) }
        session.refresh()
    }

    private func setAccelerators(_ action: String, _ accelerators: [String]) {
        let list = accelerators.map { strdup($0) } + [nil]
        defer { list.forEach { free($0) } }
        list.withUnsafeBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                gtk_application_set_accels_for_action(app.gtkApplication, action, $0.baseAddress)
            }
        }
    }

    /// `interval-timer [--start PLAN]`, run where it was typed or by a desktop without D-Bus activation; 0, the
    /// invocation's exit status (what it asked for is shown in the window).
    private func commandLine(_ line: UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32 {
        var count: Int32 = 0
        let argv = g_application_command_line_get_arguments(line, &count)
        defer { g_strfreev(argv) }
        let arguments = (0..<Int(count)).compactMap { argv?[$0].map { String(cString: $0) } }
        if let flag = arguments.firstIndex(of: "--start"), flag + 1 < arguments.count {
            startNamedPlan(arguments[flag + 1])
        } else {
            present()
        }
        return 0
    }

    /// Shows the window, building it the first time; the window it shows.
    @discardableResult
    func present() -> MainWindow {
        let shown = window ?? MainWindow(application: self, trace: trace)
        if window == nil {
            window = shown
            finishWatcher = FinishWatcher(
                store: store, recorded: { [unowned self] record in window?.showFinished(record) },
                historyChanged: { [unowned self] in window?.historyChanged() })
        }
        shown.present()
        return shown
    }

    /// The window was closed: the workout goes on; the window is built again when asked for.
    func windowClosed() {
        (window, finishWatcher) = (nil, nil)
    }

    /// Starts a plan of the catalog by name (a desktop action, `--start`), then shows it.
    func startNamedPlan(_ name: String) {
        let window = present()
        guard let item = catalog.item(named: name), let text = item.text else {
            window.problem(tr("No plan named '{name}'.", ["name": name]))
            return
        }
        window.start(text: text, origin: item.path)
    }

    private func problem(_ error: TimerClientError) {
        logger.notice("Problem shown.", metadata: ["error": "\(error)"])
        window?.problem(error)
    }

    private func showPreferences() {
        let window = present()
        PreferencesWindow(parent: window.window, path: paths.settingsFile, logger: logger) {
            [unowned self] settings in
            guard settings.sound.restKinds != restKinds else { return }
            restKinds = settings.sound.restKinds
            self.window?.restKindsChanged()
        }.present()
    }

    private func showAbout() {
        let window = present()
        let about = AboutWindow.checked(adw_about_window_new())
        about.setTransient(for: window.window)
        adw_about_window_set_application_name(about.c, tr("Interval Timer"))
        adw_about_window_set_application_icon(about.c, DesktopIdentity.iconName)
        adw_about_window_set_version(about.c, DesktopIdentity.version)
        adw_about_window_set_developer_name(about.c, tr("The intervald developers"))
        adw_about_window_set_website(about.c, DesktopIdentity.website)
        adw_about_window_set_issue_url(about.c, DesktopIdentity.website + "/issues")
        adw_about_window_set_license_type(about.c, GTK_LICENSE_APACHE_2_0)
        // TRANSLATORS: your names, one per line, as the About window lists them; leave it as it is if none.
        let translators = tr("translator-credits")
        if translators != "translator-credits" { adw_about_window_set_translator_credits(about.c, translators) }
        about.present()
    }

    /// The workout view in its tone's colour (``ToneColours``: white text reads on each at 4.5:1 or more), its
    /// controls and progress in white on a darker shade of it, whatever the theme's accent; the digits use tabular
    /// figures.
    private static let style =
        WorkoutDisplay.Tone.allCases.map { ".workout.\($0.rawValue) { background-color: \(ToneColours.hex($0)); }" }
        .joined(separator: "\n") + """

            .workout { color: white; }
            .workout button.control { color: white; background-color: alpha(black, 0.2); padding: 6px 12px; }
            .workout button.control:hover { background-color: alpha(black, 0.3); }
            .workout button.control:active { background-color: alpha(black, 0.4); }
            .workout progressbar > trough { background-color: alpha(black, 0.3); }
            .workout progressbar > trough > progress { background-color: white; }
            .countdown { font-feature-settings: "tnum"; font-weight: bold; }
            """
}

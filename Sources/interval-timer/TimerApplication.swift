import CGtk
import CGtkShims
import IntervalBus
import IntervalCore
import IntervalRuntime
import IntervalSettings
import Logging

/// The Interval Timer application (docs/reference.md §10): a single-instance, D-Bus-activatable GtkApplication whose
/// window is a client of `org.intervald.Timer1`, as `intervalctl` is. It keeps the timer's properties as last read
/// and carries them forward with the local clock to each second's boundary; every signal of the daemon re-reads them.
///
/// Threading: everything here runs on the GLib main thread; the bus connection runs on its own queue and hands its
/// events and answers back through ``onMainThread(_:)``.
final class TimerApplication {
    static let id = "org.intervald.IntervalTimer"

    let app: UnsafeMutablePointer<AdwApplication>
    let catalog: PlanCatalog
    let store: StateStore
    /// The settings' rest kinds (the cool colours), read again when Preferences change them.
    private(set) var restKinds: Set<String>
    private let paths: XDGPaths
    private let logger: Logger
    private lazy var connection: TimerBusConnection = {
        let box = UncheckedBox(Unmanaged.passUnretained(self))
        return TimerBusConnection(logger: logger) { event in
            onMainThread { box.value.takeUnretainedValue().handle(event) }
        }
    }()

    private var window: Widget?
    private var viewStack: OpaquePointer?
    private var toasts: OpaquePointer?
    /// The toast saying that the daemon cannot be reached, while it shows: updated rather than stacked, and dismissed
    /// once the daemon answers.
    private var unreachableToast: OpaquePointer?
    private var workoutPage: WorkoutPage?
    private var plansPage: PlansPage?
    private var historyPage: HistoryPage?
    private var calculatorPage: CalculatorPage?

    /// The timer's properties as last read, and when (g_get_monotonic_time, µs).
    private(set) var status = TimerStatus.idle
    private var readAt: Int64 = 0
    private var tick: UInt32 = 0
    private var inhibitCookie: UInt32 = 0
    /// The history file's monitor, and how many records it held when last looked at: a workout's end (its signal)
    /// shows the finish page from the record the daemon appends, which may come just before or just after it.
    private var historyMonitor: UnsafeMutablePointer<GFileMonitor>?
    private var recordsSeen = 0
    private var endingPlan: String?
    /// The last plan text started here, for Start Again when its origin is no file.
    private var lastStarted: (text: String, origin: String)?
    private let trace: FrameTrace?

    init(environment: [String: String], logger: Logger) {
        self.logger = logger
        let paths = XDGPaths(environment: environment)
        self.paths = paths
        catalog = PlanCatalog(locator: PlanLocator(paths: paths))
        store = StateStore(directory: paths.stateDirectory)
        restKinds = SettingsFile.load(path: paths.settingsFile).0.sound.restKinds
        trace = FrameTrace(environment: environment)
        app = adw_application_new(Self.id, G_APPLICATION_HANDLES_COMMAND_LINE)
        on(app, .startup) { [unowned self] in startup() }
        on(app, .activate) { [unowned self] in present() }
        onCommandLine(app) { [unowned self] line in commandLine(line) }
    }

    func run(_ arguments: [String]) -> Int32 {
        var cArguments = arguments.map { strdup($0) }
        defer { cArguments.forEach { free($0) } }
        return g_application_run(cast(app), Int32(cArguments.count), &cArguments)
    }

    // MARK: Application

    private func startup() {
        let css: UnsafeMutablePointer<GtkCssProvider> = gtk_css_provider_new()
        gtk_css_provider_load_from_data(css, Self.style, -1)
        gtk_style_context_add_provider_for_display(
            gdk_display_get_default(), OpaquePointer(css), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
        // One action per plan, as the desktop entry's actions name them (its ID is the plan's name), and stop.
        for file in catalog.files() where g_action_name_is_valid(file.name) != 0 {
            let name = file.name
            addAction(name) { [unowned self] in startNamedPlan(name) }
        }
        addAction("stop") { [unowned self] in command { client throws(TimerClientError) in try client.stop() } }
        // The primary menu's (docs/reference.md §14).
        addAction("preferences") { [unowned self] in showPreferences() }
        addAction("about") { [unowned self] in showAbout() }
        addAction("retry") { [unowned self] in refresh() }
        setAccelerator("app.preferences", "<Control>comma")
        refresh()
    }

    private func setAccelerator(_ action: String, _ accelerator: String) {
        let accelerators = [strdup(accelerator), nil]
        defer { accelerators.forEach { free($0) } }
        accelerators.withUnsafeBufferPointer { list in
            list.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                gtk_application_set_accels_for_action(cast(app), action, $0.baseAddress)
            }
        }
    }

    private func addAction(_ name: String, _ activated: @escaping () -> Void) {
        let action: OpaquePointer = g_simple_action_new(name, nil)
        on(UnsafeMutableRawPointer(action), .actionActivated) { _ in activated() }
        g_action_map_add_action(cast(app), action)
        g_object_unref(UnsafeMutableRawPointer(action))
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

    /// Shows the window, building it the first time.
    func present() {
        if window == nil { buildWindow() }
        if let window { gtk_window_present(cast(window)) }
    }

    // MARK: Window

    private func buildWindow() {
        let window: Widget = adw_application_window_new(cast(app))
        self.window = window
        gtk_window_set_title(cast(window), tr("Interval Timer"))
        gtk_window_set_default_size(cast(window), 720, 640)

        let stack: Widget = adw_view_stack_new()
        viewStack = cast(stack)
        trace?.attach(to: window)
        let workout = WorkoutPage(application: self, trace: trace)
        let plans = PlansPage(application: self)
        let history = HistoryPage(application: self)
        let calculator = CalculatorPage()
        (workoutPage, plansPage, historyPage, calculatorPage) = (workout, plans, history, calculator)
        addPage(stack, workout.root, "workout", tr("Workout"), "media-playback-start-symbolic")
        addPage(stack, plans.root, "plans", tr("Plans"), "view-list-symbolic")
        addPage(stack, history.root, "history", tr("History"), "document-open-recent-symbolic")
        addPage(stack, calculator.root, "calculator", tr("Calculator"), "accessories-calculator-symbolic")
        on(stack, .notify("visible-child-name")) { [unowned self] _ in
            if visiblePage == "history" { historyPage?.reload() }
            if visiblePage == "workout", status.state != .idle { workoutPage?.focusPause() }
        }

        let header: Widget = adw_header_bar_new()
        let switcher: Widget = adw_view_switcher_title_new()
        adw_view_switcher_title_set_stack(cast(switcher), cast(stack))
        adw_view_switcher_title_set_title(cast(switcher), tr("Interval Timer"))
        adw_header_bar_set_title_widget(cast(header), switcher)
        adw_header_bar_pack_end(cast(header), primaryMenu())
        let bottom: Widget = adw_view_switcher_bar_new()
        adw_view_switcher_bar_set_stack(cast(bottom), cast(stack))
        g_object_bind_property(
            switcher, "title-visible", bottom, "reveal", G_BINDING_SYNC_CREATE)

        if let shortcuts = ShortcutsWindow.make() {
            gtk_application_window_set_help_overlay(cast(window), cast(shortcuts))
        }
        let content = box(GTK_ORIENTATION_VERTICAL, spacing: 0, [header, stack, bottom])
        gtk_widget_set_vexpand(stack, 1)
        // Refusals and failures show as toasts over the pages, which stay usable.
        let overlay: Widget = adw_toast_overlay_new()
        adw_toast_overlay_set_child(cast(overlay), content)
        toasts = cast(overlay)
        adw_application_window_set_content(cast(window), overlay)

        let keys: OpaquePointer = gtk_event_controller_key_new()
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        onKeyPressed(keys) { [unowned self] key, state in pressed(key, state) }
        gtk_widget_add_controller(window, keys)
        on(window, .closeRequest) { [unowned self] in
            // Closing the window never stops the workout: it only lets the screen blank again.
            uninhibit()
            self.window = nil
            (workoutPage, plansPage, historyPage, calculatorPage) = (nil, nil, nil, nil)
            (viewStack, toasts, unreachableToast) = (nil, nil, nil)
            return false
        }
        render()
        watchHistory()
        if status.state != .idle {
            show("workout")
            workout.focusPause()
        }
    }

    /// Preferences, Keyboard Shortcuts and About, as GNOME apps have them.
    private func primaryMenu() -> Widget {
        guard let menu = g_menu_new() else { return gtk_menu_button_new() }
        g_menu_append(menu, tr("Preferences"), "app.preferences")
        g_menu_append(menu, tr("Keyboard Shortcuts"), "win.show-help-overlay")
        g_menu_append(menu, tr("About Interval Timer"), "app.about")
        let button: Widget = gtk_menu_button_new()
        gtk_menu_button_set_icon_name(cast(button), "open-menu-symbolic")
        gtk_menu_button_set_menu_model(cast(button), cast(menu))
        gtk_menu_button_set_primary(cast(button), 1)
        g_object_unref(UnsafeMutableRawPointer(menu))
        accessibleName(button, tr("Main Menu"))
        return button
    }

    private func showPreferences() {
        present()
        PreferencesWindow(parent: window, path: paths.settingsFile, logger: logger) { [unowned self] settings in
            guard settings.sound.restKinds != restKinds else { return }
            restKinds = settings.sound.restKinds
            render()
        }.present()
    }

    private func showAbout() {
        present()
        let about: Widget = adw_about_window_new()
        if let window { gtk_window_set_transient_for(cast(about), cast(window)) }
        adw_about_window_set_application_name(cast(about), tr("Interval Timer"))
        adw_about_window_set_application_icon(cast(about), DesktopIdentity.iconName)
        adw_about_window_set_version(cast(about), DesktopIdentity.version)
        adw_about_window_set_developer_name(cast(about), tr("The intervald developers"))
        adw_about_window_set_website(cast(about), DesktopIdentity.website)
        adw_about_window_set_issue_url(cast(about), DesktopIdentity.website + "/issues")
        adw_about_window_set_license_type(cast(about), GTK_LICENSE_APACHE_2_0)
        // TRANSLATORS: your names, one per line, as the About window lists them; leave it as it is if none.
        let translators = tr("translator-credits")
        if translators != "translator-credits" { adw_about_window_set_translator_credits(cast(about), translators) }
        gtk_window_present(cast(about))
    }

    private func addPage(_ stack: Widget, _ page: Widget, _ name: String, _ title: String, _ icon: String) {
        let added = adw_view_stack_add_titled(cast(stack), page, name, title)
        adw_view_stack_page_set_icon_name(added, icon)
    }

    var visiblePage: String? {
        guard let viewStack, let name = adw_view_stack_get_visible_child_name(viewStack) else { return nil }
        return String(cString: name)
    }

    func show(_ page: String) {
        if let viewStack { adw_view_stack_set_visible_child_name(viewStack, page) }
    }

    /// Space, Right and Left act on the workout while it is shown; Ctrl+Q closes the window, F11 toggles full screen.
    private func pressed(_ key: UInt32, _ state: GdkModifierType) -> Bool {
        guard let window else { return false }
        let modifiers = state.rawValue & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SHIFT_MASK.rawValue)
        if modifiers == GDK_CONTROL_MASK.rawValue, key == UInt32(GDK_KEY_q) || key == UInt32(GDK_KEY_Q) {
            gtk_window_close(cast(window))
            return true
        }
        guard modifiers == 0 else { return false }
        if key == UInt32(GDK_KEY_F11) {
            if gtk_window_is_fullscreen(cast(window)) != 0 {
                gtk_window_unfullscreen(cast(window))
            } else {
                gtk_window_fullscreen(cast(window))
            }
            return true
        }
        guard visiblePage == "workout", status.state != .idle, !focusKeeps(key, in: window) else { return false }
        switch Int32(key) {
        case GDK_KEY_space: togglePause()
        case GDK_KEY_Right: skip()
        case GDK_KEY_Left: restart()
        default: return false
        }
        return true
    }

    /// Whether the focused control uses `key` itself: a text field types Space and moves its cursor with the arrows;
    /// a focused button is pressed by Space; lists, tabs and the menu move with the arrows. The workout's own buttons
    /// take no focus from a click, so that after one Space still pauses.
    private func focusKeeps(_ key: UInt32, in window: Widget) -> Bool {
        guard let focus = gtk_root_get_focus(cast(window)) else { return false }
        if g_type_check_instance_is_a(cast(focus), gtk_editable_get_type()) != 0 { return true }
        switch Int32(key) {
        case GDK_KEY_space: return true
        default: return !(workoutPage?.contains(focus) ?? false)
        }
    }

    // MARK: The timer

    func togglePause() {
        let paused = status.state == .paused
        command { client throws(TimerClientError) in paused ? try client.resume() : try client.pause() }
    }

    func skip() { command { client throws(TimerClientError) in try client.skip() } }
    func restart() { command { client throws(TimerClientError) in try client.restart() } }

    /// The workout's Stop asks first: a Stop pressed by mistake costs nothing. (The notification's Stop, the tray's
    /// and `intervalctl stop` do not ask: they are deliberate.)
    func askToStop() {
        guard status.state != .idle else { return }
        confirm(
            tr("Stop the workout?"),
            tr("{plan} ends here and is kept in the history as stopped.", ["plan": status.planName]),
            cancel: tr("Keep Going"), destructive: tr("Stop Workout")
        ) { [unowned self] in
            command { client throws(TimerClientError) in try client.stop() }
        }
    }

    /// Starts a plan of the catalog by name (a desktop action, `--start`), then shows it.
    func startNamedPlan(_ name: String) {
        present()
        guard let item = catalog.item(named: name), let text = item.text else {
            problem(tr("No plan named '{name}'.", ["name": name]))
            return
        }
        start(text: text, origin: item.path)
    }

    /// Starts plan text; while a workout exists, first asks whether to replace it.
    func start(text: String, origin: String) {
        lastStarted = (text, origin)
        guard status.state == .idle else {
            askToReplace(text: text, origin: origin)
            return
        }
        perform({ client throws(TimerClientError) in
            try client.start(plan: text, origin: origin, replace: false)
        }) { [unowned self] result in
            if case .failure(.command(let refusal)) = result, refusal.code == .alreadyRunning {
                askToReplace(text: text, origin: origin)
            } else if case .failure(let error) = result {
                problem(error)
            } else {
                show("workout")
            }
        }
    }

    private func askToReplace(text: String, origin: String) {
        confirm(
            tr("Replace the running workout?"),
            tr("{plan} is running. Starting another plan stops it.", ["plan": status.planName]),
            cancel: tr("Cancel"), destructive: tr("Replace")
        ) { [unowned self] in
            perform({ client throws(TimerClientError) in
                try client.start(plan: text, origin: origin, replace: true)
            }) { [unowned self] result in
                if case .failure(let error) = result { problem(error) } else { show("workout") }
            }
        }
    }

    /// Asks a question whose answer is Cancel (the default, and Escape) or a destructive action, which runs `confirmed`.
    private func confirm(
        _ heading: String, _ body: String, cancel: String, destructive: String, _ confirmed: @escaping () -> Void
    ) {
        guard let window else { return }
        let dialog: Widget = adw_message_dialog_new(cast(window), heading, body)
        adw_message_dialog_add_response(cast(dialog), "cancel", cancel)
        adw_message_dialog_add_response(cast(dialog), "confirm", destructive)
        adw_message_dialog_set_response_appearance(cast(dialog), "confirm", ADW_RESPONSE_DESTRUCTIVE)
        adw_message_dialog_set_default_response(cast(dialog), "cancel")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        on(dialog, .response) { response in
            if response == "confirm" { confirmed() }
        }
        gtk_window_present(cast(dialog))
    }

    /// Sends a control call; a refusal or an unreachable daemon is shown.
    private func command(_ body: @escaping @Sendable (TimerBusClient) throws(TimerClientError) -> Void) {
        perform(body) { [unowned self] result in
            if case .failure(let error) = result { problem(error) }
        }
    }

    /// Runs `body` on the bus's queue and `done` with its result back on the main thread.
    func perform<Value: Sendable>(
        _ body: @escaping @Sendable (TimerBusClient) throws(TimerClientError) -> Value,
        _ done: @escaping (Result<Value, TimerClientError>) -> Void
    ) {
        let done = UncheckedBox(done)
        connection.perform(body) { result in onMainThread { done.value(result) } }
    }

    /// Re-reads the timer's properties (they never start the daemon).
    func refresh() {
        perform({ client throws(TimerClientError) in try client.status() }) { [unowned self] result in
            switch result {
            case .success(let read):
                clearProblem()
                update(read)
            case .failure(let error):
                problem(error)
            }
        }
    }

    private func handle(_ event: TimerEvent) {
        switch event {
        case .segmentStarted(let index, let kind, let label, let duration):
            // The digits change at once from the signal; the rest follows from the properties read after it.
            var started = status.state == .idle ? TimerStatus.idle : status
            started.state = .running
            (started.segmentIndex, started.segmentKind, started.segmentLabel) = (index, kind, label)
            (started.segmentDuration, started.segmentRemaining) = (duration, duration)
            update(started)
            refresh()
        case .daemonVanished:
            // A daemon that went away during a workout (a crash, a restart) resumes it from its state file when it
            // is started again: started by activation, it shows here as it resumes.
            if status.state == .idle {
                update(.idle)
            } else {
                logger.notice("The timer service went away during a workout; starting it again.")
                perform({ client throws(TimerClientError) in try client.status(activating: true) }) {
                    [unowned self] result in
                    switch result {
                    case .success(let read): update(read)
                    case .failure(let error):
                        update(.idle)
                        problem(error)
                    }
                }
            }
        case .finished, .stopped:
            endingPlan = status.planName
            showFinishIfRecorded()
            refresh()
        case .propertiesChanged, .daemonAppeared, .tick:
            refresh()
        }
    }

    private func update(_ read: TimerStatus) {
        let appeared = status.state == .idle && read.state != .idle
        status = read
        readAt = Int64(g_get_monotonic_time())
        render()
        if appeared {
            show("workout")
            workoutPage?.focusPause()
        }
    }

    /// Draws the workout as it is now and sets the timer for the next change of its digits.
    private func render() {
        if tick != 0 {
            g_source_remove(tick)
            tick = 0
        }
        let age = Int64(g_get_monotonic_time()) - readAt
        workoutPage?.show(WorkoutDisplay(status, age: age, restKinds: restKinds), planName: status.planName)
        if status.state == .running, window != nil { inhibit() } else { uninhibit() }
        guard window != nil, let change = WorkoutDisplay.nextChange(status, age: age) else { return }
        let wait = max(0, change - age)
        tick = after(milliseconds: UInt32(clamping: (wait + 999) / 1000)) { [unowned self] in
            tick = 0
            render()
        }
    }

    /// The screen neither blanks nor locks while a running workout is shown.
    private func inhibit() {
        guard inhibitCookie == 0, let window else { return }
        inhibitCookie = gtk_application_inhibit(
            cast(app), cast(window), GTK_APPLICATION_INHIBIT_IDLE, tr("A workout is running"))
    }

    private func uninhibit() {
        guard inhibitCookie != 0 else { return }
        gtk_application_uninhibit(cast(app), inhibitCookie)
        inhibitCookie = 0
    }

    // MARK: The finish page

    /// Watches the history file (its appends), counting the records it holds now.
    private func watchHistory() {
        recordsSeen = (try? store.history().records.count) ?? 0
        guard historyMonitor == nil, let file = g_file_new_for_path(store.historyPath) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        historyMonitor = g_file_monitor_file(file, G_FILE_MONITOR_NONE, nil, nil)
        guard let historyMonitor else { return }
        onFileChanged(historyMonitor) { [unowned self] in
            showFinishIfRecorded()
            if visiblePage == "history" { historyPage?.reload() }
        }
    }

    /// After a workout's end, its record, once the history holds it: shown as the finish page.
    private func showFinishIfRecorded() {
        guard let endingPlan, let records = try? store.history().records, records.count > recordsSeen,
            let record = records.last, record.plan == endingPlan
        else { return }
        recordsSeen = records.count
        self.endingPlan = nil
        let fromFile = record.origin.hasSuffix(".plan") ? PlanCatalog.load(name: "", path: record.origin).text : nil
        let again =
            fromFile.map { (text: $0, origin: record.origin) }
            ?? lastStarted.flatMap {
                $0.origin == record.origin ? $0 : nil
            }
        workoutPage?.showFinished(record, again: again)
        show("workout")
    }

    // MARK: Problems

    func problem(_ error: TimerClientError) {
        if error.isUnreachable {
            problem(
                tr("The timer service (intervald) cannot be reached: {reason}", ["reason": error.description]),
                retry: true)
        } else {
            problem(error.description)
        }
    }

    /// A refusal or a failure, as a toast that goes by itself; with `retry` (the daemon cannot be reached), one that
    /// stays, with Retry, until dismissed or the daemon answers.
    func problem(_ text: String, retry: Bool = false) {
        logger.notice("Problem shown.", metadata: ["text": "\(text)"])
        guard let toasts else { return }
        if retry, let unreachableToast {
            adw_toast_set_title(unreachableToast, markupEscaped(text))
            return
        }
        guard let toast = adw_toast_new(markupEscaped(text)) else { return }
        if retry {
            adw_toast_set_button_label(toast, tr("Retry"))
            adw_toast_set_action_name(toast, "app.retry")
            adw_toast_set_timeout(toast, 0)
            adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
            unreachableToast = toast
            on(UnsafeMutableRawPointer(toast), .dismissed) { [unowned self] in unreachableToast = nil }
        }
        adw_toast_overlay_add_toast(toasts, toast)
    }

    private func clearProblem() {
        if let unreachableToast { adw_toast_dismiss(unreachableToast) }
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

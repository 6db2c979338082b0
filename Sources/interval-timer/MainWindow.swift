import CGtk
import IntervalBus
import IntervalCore
import IntervalGLib
import IntervalRuntime

/// The window (docs/window.md): its layout is ui/window.ui, its four pages are built by their classes, and what a
/// person can do in it are the window's actions (`win.pause`, `win.skip`, `win.restart-interval`, `win.stop`,
/// `win.show-page`, `win.back`, `win.fullscreen`), which its buttons, keys and menus name. It draws the workout as
/// the ``TimerSession`` last read it, carried forward with the local clock to each second's boundary.
final class MainWindow {
    let window: UnsafeMutablePointer<AdwApplicationWindow>
    unowned let application: TimerApplication
    private let layout: Builder
    private let viewStack: UnsafeMutablePointer<ViewStack>
    private let toasts: UnsafeMutablePointer<ToastOverlay>
    private let back: UnsafeMutablePointer<GtkButton>
    private let workoutPage: WorkoutPage
    private let plansPage: PlansPage
    private let historyPage: HistoryPage
    private let calculatorPage = CalculatorPage()
    /// The toast saying that the daemon cannot be reached, while it shows: updated rather than stacked, and dismissed
    /// once the daemon answers.
    private var unreachableToast: OpaquePointer?
    /// What acts on a workout: enabled while one exists, so that its buttons and keys do nothing otherwise.
    private var workoutActions: [OpaquePointer] = []
    private var tick: UInt32 = 0
    private var inhibitCookie: UInt32 = 0
    /// The last plan text started here, for Start Again when its origin is no file.
    private var lastStarted: (text: String, origin: String)?

    init(application: TimerApplication, trace: FrameTrace?) {
        self.application = application
        layout = Builder(PackageResources.window_ui)
        window = layout.get("window", AdwApplicationWindow.self)
        window.setApplication(application.app)
        viewStack = layout.get("stack", ViewStack.self)
        toasts = layout.get("toasts", ToastOverlay.self)
        back = layout.get("back", GtkButton.self)
        window.setHelpOverlay(ShortcutsWindow.make())
        trace?.attach(to: window.widget)

        workoutPage = WorkoutPage(trace: trace)
        plansPage = PlansPage(application: application)
        historyPage = HistoryPage(application: application)
        workoutPage.startAgain = { [unowned self] text, origin in start(text: text, origin: origin) }
        plansPage.start = { [unowned self] text, origin in start(text: text, origin: origin) }
        plansPage.programs.startDay = { [unowned self] name, day in
            start(.programDay(program: name, day: day.description))
        }
        plansPage.programs.toast = { [unowned self] text in toast(text, undo: nil) }
        historyPage.toast = { [unowned self] text in toast(text, undo: nil) }
        plansPage.programs.inProgressChanged = { [unowned self] in
            workoutPage.offerContinue(plansPage.programs.inProgress?.label)
        }
        plansPage.programs.inProgressChanged()
        workoutPage.continueTraining = { [unowned self] in
            if let name = plansPage.programs.inProgress?.name { plansPage.programs.continueProgram(name) }
        }
        workoutPage.continueLabel = { [unowned self] name in plansPage.programs.continueLabel(of: name) }
        workoutPage.continueProgram = { [unowned self] name in plansPage.programs.continueProgram(name) }
        plansPage.programs.progressChanged = { [unowned self] in workoutPage.refreshFinishOffer() }
        for page in Page.allCases {
            let root =
                switch page {
                case .workout: workoutPage.root
                case .plans: plansPage.root
                case .history: historyPage.root
                case .calculator: calculatorPage.root
                }
            adw_view_stack_page_set_icon_name(
                adw_view_stack_add_titled(viewStack.c, root, page.rawValue, tr(page.title)), page.icon)
        }
        addActions()
        // The view switchers (the header bar's and the narrow window's bottom bar's) and the menus of the layouts'
        // menu buttons: GTK 4.8 names them after their classes ("AdwViewSwitcher", "GtkPopoverMenu").
        namePageSwitchers(in: window.widget)
        for button in descendants(of: window, MenuButton.self) {
            // Its label ("Export"), or the tooltip of an icon's ("Main Menu").
            if let name = gtk_menu_button_get_label(button.c) ?? gtk_widget_get_tooltip_text(button.widget) {
                nameMenu(of: button, String(cString: name))
            }
        }
        on(UnsafeMutableRawPointer(viewStack), .notify("visible-child-name")) { [unowned self] _ in
            if visiblePage == .history { historyPage.reload() }
            if visiblePage == .workout, application.session.status.state != .idle { workoutPage.focusPause() }
            showBack()
        }
        plansPage.innerPageChanged = { [unowned self] in showBack() }
        plansPage.toast = { [unowned self] text, undo in toast(text, undo: undo) }
        plansPage.askName = { [unowned self] heading, initial, confirm, done in
            askName(heading, initial: initial, confirm: confirm, done)
        }
        on(window, .closeRequest) { [unowned self] in
            // Closing the window never stops the workout: it only lets the screen blank again.
            uninhibit()
            if tick != 0 { g_source_remove(tick) }
            tick = 0
            self.application.windowClosed()
            return false
        }
        render()
        if application.session.status.state != .idle {
            show(.workout)
            workoutPage.focusPause()
        }
    }

    func present() {
        window.present()
    }

    private func addActions() {
        let map = window.actionMap
        workoutActions = [
            addAction(to: map, "pause") { [unowned self] _ in togglePause() },
            addAction(to: map, "skip") { [unowned self] _ in
                application.session.command { client throws(TimerClientError) in try client.call(TimerMethods.Skip()) }
            },
            addAction(to: map, "restart-interval") { [unowned self] _ in
                application.session.command { client throws(TimerClientError) in try client.call(TimerMethods.Restart())
                }
            },
            addAction(to: map, "stop") { [unowned self] _ in askToStop() },
        ]
        addAction(to: map, "show-page", parameter: "s") { [unowned self] page in
            if let page, let name = g_variant_get_string(page, nil), let shown = Page(rawValue: String(cString: name)) {
                show(shown)
            }
        }
        addAction(to: map, "back") { [unowned self] _ in plansPage.goBack() }
        addAction(to: map, "new-plan") { [unowned self] _ in
            show(.plans)
            plansPage.newPlan()
        }
        addAction(to: map, "fullscreen") { [unowned self] _ in
            if window.isFullscreen {
                window.unfullscreen()
            } else {
                window.fullscreen()
            }
        }
    }

    /// The window's pages, in the view switcher's order: each its name (`win.show-page`'s target), title and icon.
    enum Page: String, CaseIterable {
        case workout, plans, history, calculator

        /// Untranslated; ``tr(_:_:)`` where shown.
        var title: String {
            switch self {
            case .workout: trLater("Workout")
            case .plans: trLater("Plans")
            case .history: trLater("History")
            case .calculator: trLater("Calculator")
            }
        }

        var icon: String {
            switch self {
            case .workout: "media-playback-start-symbolic"
            case .plans: "view-list-symbolic"
            case .history: "document-open-recent-symbolic"
            case .calculator: "accessories-calculator-symbolic"
            }
        }
    }

    var visiblePage: Page? {
        adw_view_stack_get_visible_child_name(viewStack.c).flatMap { Page(rawValue: String(cString: $0)) }
    }

    func show(_ page: Page) {
        adw_view_stack_set_visible_child_name(viewStack.c, page.rawValue)
    }

    /// The header bar's back button, while the Plans page shows a plan.
    private func showBack() {
        gtk_widget_set_visible(back.widget, visiblePage == .plans && plansPage.showsPlan ? 1 : 0)
    }

    func historyChanged() {
        if visiblePage == .history { historyPage.reload() }
    }

    /// The settings' rest kinds changed (Preferences): the colours follow.
    func restKindsChanged() {
        render()
        plansPage.redraw()
        historyPage.reload()
    }

    // MARK: The timer

    /// The session read the timer anew: drawn, and a workout that appeared is shown.
    func statusChanged(from previous: TimerStatus) {
        render()
        if previous.state == .idle, application.session.status.state != .idle {
            show(.workout)
            workoutPage.focusPause()
        }
    }

    private func togglePause() {
        let paused = application.session.status.state == .paused
        application.session.command { client throws(TimerClientError) in
            if paused { try client.call(TimerMethods.Resume()) } else { try client.call(TimerMethods.Pause()) }
        }
    }

    /// The workout's Stop asks first: a Stop pressed by mistake costs nothing. (The notification's Stop, the tray's
    /// and `intervalctl stop` do not ask: they are deliberate.)
    private func askToStop() {
        let status = application.session.status
        guard status.state != .idle else { return }
        confirm(
            window, tr("Stop the workout?"),
            tr(
                "{plan} ends here and is kept in the history as stopped.",
                ["plan": Localization.planName(status.planName)]),
            cancel: tr("Keep Going"), destructive: tr("Stop Workout")
        ) { [unowned self] in
            application.session.command { client throws(TimerClientError) in try client.call(TimerMethods.Stop()) }
        }
    }

    /// Starts plan text; while a workout exists, first asks whether to replace it.
    func start(text: String, origin: String) {
        lastStarted = (text, origin)
        start(.plan(text: text, origin: origin))
    }

    /// Starts a plan or a program's day; while a workout exists, first asks whether to replace it.
    private func start(_ request: StartRequest) {
        guard application.session.status.state == .idle else {
            askToReplace(request)
            return
        }
        application.session.perform({ client throws(TimerClientError) in
            try request.send(client, replace: false)
        }) { [unowned self] result in
            if case .failure(.command(let refusal)) = result, refusal.code == .alreadyRunning {
                askToReplace(request)
            } else if case .failure(let error) = result {
                problem(error)
            } else {
                show(.workout)
            }
        }
    }

    private func askToReplace(_ request: StartRequest) {
        confirm(
            window, tr("Replace the running workout?"),
            tr(
                "{plan} is running. Starting another plan stops it.",
                ["plan": Localization.planName(application.session.status.planName)]),
            cancel: tr("Cancel"), destructive: tr("Replace")
        ) { [unowned self] in
            application.session.perform({ client throws(TimerClientError) in
                try request.send(client, replace: true)
            }) { [unowned self] result in
                if case .failure(let error) = result { problem(error) } else { show(.workout) }
            }
        }
    }

    /// Asks for a name in a field (Enter confirms, Escape cancels), then runs `done` with it.
    private func askName(_ heading: String, initial: String, confirm: String, _ done: @escaping (String) -> Void) {
        let entry = GtkEntry.checked(gtk_entry_new())
        entry.text = initial
        gtk_entry_set_activates_default(entry, 1)
        accessibleName(entry, tr("Name"))
        ask(
            window, heading, nil,
            answers: [
                Answer(id: "cancel", label: tr("Cancel")),
                Answer(id: "confirm", label: confirm, appearance: ADW_RESPONSE_SUGGESTED),
            ], cancel: "cancel", preferred: "confirm", extra: entry.widget
        ) { response in
            if response == "confirm" { done(entry.text) }
        }
    }

    /// Draws the workout as it is now and sets the timer for the next change of its digits.
    func render() {
        if tick != 0 {
            g_source_remove(tick)
            tick = 0
        }
        let (status, age) = (application.session.status, application.session.age)
        workoutPage.show(
            WorkoutDisplay(status, age: age, restKinds: application.restKinds),
            planName: Localization.planName(status.planName))
        for action in workoutActions { g_simple_action_set_enabled(action, status.state == .idle ? 0 : 1) }
        if status.state == .running { inhibit() } else { uninhibit() }
        guard let change = WorkoutDisplay.nextChange(status, age: age) else { return }
        let wait = max(0, change - age)
        tick = after(milliseconds: UInt32(clamping: (wait + 999) / 1000)) { [unowned self] in
            tick = 0
            render()
        }
    }

    /// The screen neither blanks nor locks while a running workout is shown.
    private func inhibit() {
        guard inhibitCookie == 0 else { return }
        inhibitCookie = gtk_application_inhibit(
            application.app.gtkApplication, window.gtkWindow, GTK_APPLICATION_INHIBIT_IDLE, tr("A workout is running"))
    }

    private func uninhibit() {
        guard inhibitCookie != 0 else { return }
        gtk_application_uninhibit(application.app.gtkApplication, inhibitCookie)
        inhibitCookie = 0
    }

    /// The finish page for the workout just recorded, with Start Again and the distance run when its plan is known
    /// (``RecordedPlan``).
    func showFinished(_ record: HistoryRecord) {
        let known = RecordedPlan(of: record, lastStarted: lastStarted)
        workoutPage.showFinished(
            record, again: known.map { ($0.text, $0.origin) }, plan: known?.plan,
            distance: known?.distanceDone(by: record))
        show(.workout)
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
        guard retry else {
            toast(text, undo: nil)
            return
        }
        if let unreachableToast {
            adw_toast_set_title(unreachableToast, markupEscaped(text))
            return
        }
        guard let toast = adw_toast_new(markupEscaped(text)) else { return }
        adw_toast_set_button_label(toast, tr("Retry"))
        adw_toast_set_action_name(toast, "app.retry")
        adw_toast_set_timeout(toast, 0)
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        unreachableToast = toast
        on(UnsafeMutableRawPointer(toast), .dismissed) { [unowned self] in unreachableToast = nil }
        adw_toast_overlay_add_toast(toasts.c, toast)
    }

    /// What was just done, as a toast; with `undo`, its Undo button.
    func toast(_ text: String, undo: (() -> Void)?) {
        guard let toast = adw_toast_new(markupEscaped(text)) else { return }
        if let undo {
            adw_toast_set_button_label(toast, tr("Undo"))
            on(UnsafeMutableRawPointer(toast), .buttonClicked, undo)
            // Shown at once, never queued behind another toast that a pointer resting on it keeps up.
            adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        }
        adw_toast_overlay_add_toast(toasts.c, toast)
    }

    func clearProblem() {
        if let unreachableToast { adw_toast_dismiss(unreachableToast) }
    }
}

/// What the window asks the timer to start: plan text, or a training program's day (`StartProgram`).
enum StartRequest: Sendable {
    case plan(text: String, origin: String)
    case programDay(program: String, day: String)

    func send(_ client: TimerBusClient, replace: Bool) throws(TimerClientError) {
        switch self {
        case .plan(let text, let origin):
            try client.call(TimerMethods.Start(plan: text, origin: origin, replace: replace))
        case .programDay(let program, let day):
            try client.call(TimerMethods.StartProgram(program: program, day: day, replace: replace))
        }
    }
}

import CGtk
import CGtkShims
import Dispatch
import IntervalCore
import IntervalGLib
import IntervalRuntime
import IntervalWatch

/// The plans (docs/reference.md §10), laid out in ui/plans-page.ui: the bundled and the user's plans, and a field for
/// a one-line plan, checked as it is typed; a plan's page, a leaflet's inner page (the window's header bar has its back
/// button), with its timeline as a bar of coloured segments, its items as rows (a repeat folds out) and its totals.
final class PlansPage {
    let root: Widget
    /// A plan to start: its text and origin.
    var start: (_ text: String, _ origin: String) -> Void = { _, _ in }
    /// The training programs: their rows above the plans, and a program's page.
    let programs: ProgramPages
    /// The page went to a plan's page, or back.
    var innerPageChanged: () -> Void = {}
    /// A toast: what happened, and an Undo for it if there is one.
    var toast: (_ text: String, _ undo: (() -> Void)?) -> Void = { _, _ in }
    /// Asks for a plan's name (a heading, the name to start from, the button that confirms it), then runs `done`.
    var askName: (_ heading: String, _ initial: String, _ confirm: String, _ done: @escaping (String) -> Void) -> Void =
        { _, _, _, _ in }
    unowned let application: TimerApplication
    let layout: Builder
    let leaflet: UnsafeMutablePointer<Leaflet>
    let list: UnsafeMutablePointer<ListBox>
    let detailTitle: UnsafeMutablePointer<Label>
    let timeline: UnsafeMutablePointer<GtkDrawingArea>
    /// The plan's items and its totals: rows, replaced for each plan shown.
    let detailGroups: UnsafeMutablePointer<GtkBox>
    let detailScroll: UnsafeMutablePointer<ScrolledWindow>
    var detailPlan: (plan: Plan, text: String, origin: String)?
    let oneLine: UnsafeMutablePointer<GtkEntry>
    let verdict: UnsafeMutablePointer<Label>
    let startOneLine: UnsafeMutablePointer<GtkButton>
    let saveOneLine: UnsafeMutablePointer<GtkButton>
    /// Edit, Rename and Delete: enabled on the user's own plans' pages only.
    var ownPlanActions: [OpaquePointer] = []
    /// The connected watches (USB storage or MTP, through GIO), for Send to Watch.
    let watch = WatchMonitor()
    /// The plan menu's Send to Watch items, one per connected watch.
    let watchItems: OpaquePointer
    /// The plan editor, while it is open.
    var editor: PlanEditor?
    /// A file chooser (Import, Export), while it is open.
    var chooser: OpaquePointer?
    /// The own plans' folder, watched: a plan saved, changed or deleted by any program shows at once.
    var ownPlansWatch: FileWatch?
    /// Bumped at each keystroke: only the newest text's verdict is shown.
    var typed = 0

    /// Texts longer than this are parsed off the main thread, so that typing never waits for the parser.
    static let parseInPlaceLimit = 256
    static let parseQueue = DispatchQueue(label: "org.intervald.window.parse", qos: .userInitiated)

    init(application: TimerApplication) {
        self.application = application
        layout = Builder(PackageResources.plans_page_ui)
        leaflet = layout.get("leaflet", Leaflet.self)
        root = leaflet.widget
        programs = ProgramPages(
            layout: layout, leaflet: leaflet, ledger: application.programs, reminders: application.reminders,
            restKinds: { [unowned application] in application.restKinds })
        (list, oneLine, verdict, startOneLine) = (
            layout.get("list", ListBox.self), layout.get("one-line", GtkEntry.self), layout.get("verdict", Label.self),
            layout.get("start-one-line", GtkButton.self)
        )
        (detailTitle, timeline, detailGroups) = (
            layout.get("detail-title", Label.self), layout.get("timeline", GtkDrawingArea.self),
            layout.get("detail-groups", GtkBox.self)
        )
        detailScroll = layout.get("detail-scroll", ScrolledWindow.self)
        let startPlan = layout.get("start-plan", GtkButton.self)
        saveOneLine = layout.get("save-one-line", GtkButton.self)
        watchItems = layout.menu("watch-items")

        on(UnsafeMutableRawPointer(leaflet), .notify("visible-child")) { [unowned self] _ in innerPageChanged() }
        on(startPlan, .clicked) { [unowned self] in
            if let detailPlan { start(detailPlan.text, detailPlan.origin) }
        }
        insertActions(into: root, "plan") { actions in
            addAction(to: actions, "duplicate") { [unowned self] _ in duplicateShown() }
            addAction(to: actions, "copy-one-line") { [unowned self] _ in copyShown() }
            addAction(to: actions, "export-fit") { [unowned self] _ in exportShownAsWorkout() }
            // Its parameter is the watch's GARMIN folder (its URI): the menu has an item per watch.
            addAction(to: actions, "send-to-watch", parameter: "s") { [unowned self] folder in
                guard let folder, let uri = g_variant_get_string(folder, nil) else { return }
                sendShownToWatch(folder: String(cString: uri))
            }
            addAction(to: actions, "export") { [unowned self] _ in exportShown() }
            addAction(to: actions, "import") { [unowned self] _ in importPlan() }
            ownPlanActions = [
                addAction(to: actions, "edit") { [unowned self] _ in editShown() },
                addAction(to: actions, "rename") { [unowned self] _ in renameShown() },
                addAction(to: actions, "delete") { [unowned self] _ in deleteShown() },
            ]
        }
        programs.sendToWatch = { [unowned self] days, watch in send(days, to: watch) }
        // Offered (the menu's items, each program day's and week's button) only while a watch is connected.
        watch.changed = { [unowned self] in showWatches() }
        showWatches()
        on(saveOneLine, .clicked) { [unowned self] in saveTyped() }
        on(startOneLine, .clicked) { [unowned self] in startTyped() }
        on(oneLine, .activate) { [unowned self] in startTyped() }
        on(oneLine, .changed) { [unowned self] in check() }
        setDrawing(timeline) { [unowned self] cairo, width, height in
            if let plan = detailPlan?.plan {
                Timeline.draw(plan, restKinds: application.restKinds, cairo, width, height)
            }
        }
        fill()
        watchOwnPlans()
    }

    /// Whether a plan's or a program's page is shown.
    var showsPlan: Bool {
        ProgramPages.visiblePage(leaflet.c) != "list"
    }

    /// Back to the list of plans.
    func goBack() {
        adw_leaflet_set_visible_child_name(leaflet.c, "list")
    }

    /// The timeline again, in the settings' colours.
    func redraw() {
        gtk_widget_queue_draw(timeline.widget)
    }

    /// Lists the catalog's plans; an unreadable or invalid one says why. The plan's page shown follows its file: it
    /// shows the file's new text, or goes back to the list when the file is gone.
    func fill() {
        removeChildren(list)
        var shownStill = false
        for item in application.catalog.items() {
            switch item.plan {
            case .success(let plan):
                let text = item.text ?? ""
                let row = actionRow(title: plan.displayName, subtitle: PlanReport.lengthText(plan)) { [unowned self] in
                    open(plan, text: text, origin: item.path)
                }
                row.addPrefix(Timeline.small(plan) { [unowned self] in application.restKinds })
                gtk_list_box_append(list.c, row.widget)
                if let detailPlan, detailPlan.origin == item.path {
                    shownStill = true
                    if detailPlan.text != text, showsPlan { open(plan, text: text, origin: item.path) }
                }
            case .failure(let failure):
                gtk_list_box_append(list.c, actionRow(title: item.name, subtitle: failure.description).widget)
            }
        }
        if !shownStill, detailPlan?.origin.hasSuffix(".plan") == true {
            detailPlan = nil
            goBack()
        }
    }

    /// Lists the plans again when the own plans' folder changes.
    func watchOwnPlans() {
        ownPlansWatch = FileWatch(.folder(application.library.directory), settle: 150) { [weak self] in self?.fill() }
    }

    func open(_ plan: Plan, text: String, origin: String) {
        detailPlan = (plan, text, origin)
        setText(detailTitle, plan.displayName)
        for action in ownPlanActions { g_simple_action_set_enabled(action, application.library.owns(origin) ? 1 : 0) }
        removeChildren(detailGroups)
        let items = AdwPreferencesGroup.checked(adw_preferences_group_new())
        adw_preferences_group_set_title(items, tr("Steps"))
        if let countdown = plan.countdown {
            adw_preferences_group_set_description(
                items,
                tr("Countdown {time} before each change", ["time": TimeText.spoken(microseconds: countdown)]))
        }
        for row in PlanReport.rows(for: plan) { adw_preferences_group_add(items, Self.widget(for: row)) }
        let totals = AdwPreferencesGroup.checked(adw_preferences_group_new())
        adw_preferences_group_set_title(totals, tr("Totals"))
        for (name, value) in PlanReport.totalRows(PlanEstimate(plan)) {
            adw_preferences_group_add(totals, actionRow(title: name, subtitle: value).widget)
        }
        append(detailGroups, items)
        append(detailGroups, totals)
        gtk_widget_queue_draw(timeline.widget)
        scrollToTop(detailScroll)
        adw_leaflet_set_visible_child_name(leaflet.c, "detail")
    }

    /// The shown plan's copy, "NAME (copy)", becomes an own plan, and its page is shown.
    func duplicateShown() {
        guard let shown = detailPlan else { return }
        do throws(FileError) {
            let copy = try application.library.duplicate(text: shown.text, name: shown.plan.name)
            showSaved(text: shown.text, at: copy.path)
            toast(tr("Saved as “{name}”", ["name": copy.name]), nil)
        } catch {
            toast(error.description, nil)
        }
    }

    /// The shown plan on one line, as `intervalctl start -e` takes it, to the clipboard.
    func copyShown() {
        guard let shown = detailPlan else { return }
        gdk_clipboard_set_text(gtk_widget_get_clipboard(root), PlanWriter.text(for: shown.plan, layout: .oneLine))
        toast(tr("Copied “{name}” as one line", ["name": shown.plan.name]), nil)
    }

    /// A step as an action row (its label, its duration), a repeat as an expander row that folds out its items.
    static func widget(for row: PlanReport.Row) -> Widget {
        switch row {
        case .step(let title, let duration):
            return actionRow(title: title, subtitle: duration).widget
        case .repeats(let title, let subtitle, let rows):
            let expander = AdwExpanderRow.checked(adw_expander_row_new())
            expander.setUseMarkup(false)
            expander.setTitle(title)
            adw_expander_row_set_subtitle(expander, subtitle)
            // The title is its inner header row's: the row itself, the list item a screen reader reaches, has none.
            accessibleName(expander, title)
            for inner in rows { adw_expander_row_add_row(expander, widget(for: inner)) }
            return expander.widget
        }
    }

}

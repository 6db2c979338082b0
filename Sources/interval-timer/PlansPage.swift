import CGtk
import Dispatch
import IntervalCore
import IntervalRuntime

/// The plans (docs/reference.md §10), laid out in ui/plans-page.ui: the bundled and the user's plans, and a field for
/// a one-line plan, checked as it is typed; a plan's page, a leaflet's inner page (the window's header bar has its back
/// button), with its timeline as a bar of coloured segments, its items as rows (a repeat folds out) and its totals.
final class PlansPage {
    let root: Widget
    /// A plan to start: its text and origin.
    var start: (_ text: String, _ origin: String) -> Void = { _, _ in }
    /// The page went to a plan's page, or back.
    var innerPageChanged: () -> Void = {}
    /// A toast: what happened, and an Undo for it if there is one.
    var toast: (_ text: String, _ undo: (() -> Void)?) -> Void = { _, _ in }
    /// Asks for a plan's name (a heading, the name to start from, the button that confirms it), then runs `done`.
    var askName: (_ heading: String, _ initial: String, _ confirm: String, _ done: @escaping (String) -> Void) -> Void =
        { _, _, _, _ in }
    private unowned let application: TimerApplication
    private let layout: Builder
    private let leaflet: OpaquePointer
    private let list: Widget
    private let detailTitle: Widget
    private let timeline: Widget
    /// The plan's items and its totals: rows, replaced for each plan shown.
    private let detailGroups: Widget
    private var detailPlan: (plan: Plan, text: String, origin: String)?
    private let oneLine: Widget
    private let verdict: Widget
    private let startOneLine: Widget
    private let saveOneLine: Widget
    /// Rename and Delete: enabled on the user's own plans' pages only.
    private var ownPlanActions: [OpaquePointer] = []
    /// The own plans' folder, watched: a plan saved, changed or deleted by any program shows at once.
    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private var refillPending = false
    /// Bumped at each keystroke: only the newest text's verdict is shown.
    private var typed = 0

    /// Texts longer than this are parsed off the main thread, so that typing never waits for the parser.
    private static let parseInPlaceLimit = 256
    private static let parseQueue = DispatchQueue(label: "org.intervald.window.parse", qos: .userInitiated)

    init(application: TimerApplication) {
        self.application = application
        layout = Builder(PackageResources.plans_page_ui)
        leaflet = layout.object("leaflet")
        root = cast(leaflet)
        (list, oneLine, verdict, startOneLine) = (
            layout.widget("list"), layout.widget("one-line"), layout.widget("verdict"), layout.widget("start-one-line")
        )
        (detailTitle, timeline, detailGroups) = (
            layout.widget("detail-title"), layout.widget("timeline"), layout.widget("detail-groups")
        )
        let startPlan = layout.widget("start-plan")
        saveOneLine = layout.widget("save-one-line")

        on(UnsafeMutableRawPointer(leaflet), .notify("visible-child")) { [unowned self] _ in innerPageChanged() }
        on(startPlan, .clicked) { [unowned self] in
            if let detailPlan { start(detailPlan.text, detailPlan.origin) }
        }
        let group: UnsafeMutablePointer<GSimpleActionGroup> = g_simple_action_group_new()
        let actions: OpaquePointer = cast(group)
        addAction(to: actions, "duplicate") { [unowned self] _ in duplicateShown() }
        addAction(to: actions, "copy-one-line") { [unowned self] _ in copyShown() }
        ownPlanActions = [
            addAction(to: actions, "rename") { [unowned self] _ in renameShown() },
            addAction(to: actions, "delete") { [unowned self] _ in deleteShown() },
        ]
        gtk_widget_insert_action_group(root, "plan", actions)
        g_object_unref(UnsafeMutableRawPointer(actions))
        on(saveOneLine, .clicked) { [unowned self] in saveTyped() }
        on(startOneLine, .clicked) { [unowned self] in startTyped() }
        on(oneLine, .activate) { [unowned self] in startTyped() }
        on(oneLine, .changed) { [unowned self] in check() }
        setDrawing(timeline) { [unowned self] cairo, width, height in
            if let plan = detailPlan?.plan { drawTimeline(plan, cairo, width, height) }
        }
        fill()
        watchOwnPlans()
    }

    deinit {
        if let monitor {
            g_file_monitor_cancel(monitor)
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }

    /// Whether a plan's page is shown.
    var showsPlan: Bool {
        adw_leaflet_get_visible_child_name(leaflet).map { String(cString: $0) } == "detail"
    }

    /// Back to the list of plans.
    func goBack() {
        adw_leaflet_set_visible_child_name(leaflet, "list")
    }

    /// The timeline again, in the settings' colours.
    func redraw() {
        gtk_widget_queue_draw(timeline)
    }

    /// Lists the catalog's plans; an unreadable or invalid one says why. The plan's page shown follows its file: it
    /// shows the file's new text, or goes back to the list when the file is gone.
    private func fill() {
        removeChildren(list, from: true)
        var shownStill = false
        for item in application.catalog.items() {
            switch item.plan {
            case .success(let plan):
                let text = item.text ?? ""
                let row = actionRow(title: plan.name, subtitle: PlanReport.lengthText(plan)) { [unowned self] in
                    open(plan, text: text, origin: item.path)
                }
                gtk_list_box_append(cast(list), row)
                if let detailPlan, detailPlan.origin == item.path {
                    shownStill = true
                    if detailPlan.text != text, showsPlan { open(plan, text: text, origin: item.path) }
                }
            case .failure(let failure):
                gtk_list_box_append(cast(list), actionRow(title: item.name, subtitle: failure.description))
            }
        }
        if !shownStill, detailPlan?.origin.hasSuffix(".plan") == true {
            detailPlan = nil
            goBack()
        }
    }

    /// Lists the plans again when the own plans' folder changes, once a burst of changes is over (a save is often
    /// several events).
    private func watchOwnPlans() {
        let directory = application.library.directory
        // A folder that does not exist cannot be watched: it is made, as the first own plan would make it.
        try? FileBytes.makeDirectories(directory)
        guard let file = g_file_new_for_path(directory) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        monitor = g_file_monitor_directory(file, G_FILE_MONITOR_NONE, nil, nil)
        guard let monitor else { return }
        onFileChanged(monitor) { [unowned self] in
            guard !refillPending else { return }
            refillPending = true
            // Weak: the window may close within the wait.
            _ = after(milliseconds: 150) { [weak self] in
                self?.refillPending = false
                self?.fill()
            }
        }
    }

    private func open(_ plan: Plan, text: String, origin: String) {
        detailPlan = (plan, text, origin)
        setText(detailTitle, plan.name)
        for action in ownPlanActions { g_simple_action_set_enabled(action, application.library.owns(origin) ? 1 : 0) }
        removeChildren(detailGroups)
        let items: Widget = adw_preferences_group_new()
        adw_preferences_group_set_title(cast(items), tr("Steps"))
        if let countdown = plan.countdown {
            adw_preferences_group_set_description(
                cast(items),
                tr("Countdown {time} before each change", ["time": TimeText.spoken(microseconds: countdown)]))
        }
        for row in PlanReport.rows(for: plan) { adw_preferences_group_add(cast(items), Self.widget(for: row)) }
        let totals: Widget = adw_preferences_group_new()
        adw_preferences_group_set_title(cast(totals), tr("Totals"))
        for (name, value) in PlanReport.totalRows(PlanEstimate(plan)) {
            adw_preferences_group_add(cast(totals), actionRow(title: name, subtitle: value))
        }
        append(detailGroups, items)
        append(detailGroups, totals)
        gtk_widget_queue_draw(timeline)
        adw_leaflet_set_visible_child_name(leaflet, "detail")
    }

    /// The shown plan's copy, "NAME (copy)", becomes an own plan, and its page is shown.
    private func duplicateShown() {
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
    private func copyShown() {
        guard let shown = detailPlan else { return }
        gdk_clipboard_set_text(gtk_widget_get_clipboard(root), PlanWriter.text(for: shown.plan, layout: .oneLine))
        toast(tr("Copied “{name}” as one line", ["name": shown.plan.name]), nil)
    }

    /// Renames the shown own plan: its name, and its file after it.
    private func renameShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        askName(tr("Rename the Plan"), shown.plan.name, tr("Rename")) { [unowned self] name in
            guard let text = named(shown.text, name) else { return }
            do throws(FileError) {
                let path = try application.library.rename(shown.origin, text: shown.text, to: name)
                showSaved(text: text, at: path)
            } catch {
                toast(error.description, nil)
            }
        }
    }

    /// Saves the one-line plan, as typed, as an own plan under a name asked for.
    private func saveTyped() {
        let typed = String(cString: gtk_editable_get_text(cast(oneLine)))
        askName(tr("Save as Plan"), "", tr("Save")) { [unowned self] name in
            guard let text = named(typed, name) else { return }
            do throws(FileError) {
                showSaved(text: text, at: try application.library.add(text, named: name))
                toast(tr("Saved as “{name}”", ["name": name]), nil)
            } catch {
                toast(error.description, nil)
            }
        }
    }

    /// `text` with the plan's name `name`, when that is a plan: a name that is empty, or that the plan language
    /// refuses (a control character), is said and nothing is written.
    private func named(_ text: String, _ name: String) -> String? {
        guard !name.allSatisfy(\.isWhitespace) else {
            toast(tr("A plan needs a name."), nil)
            return nil
        }
        let renamed = PlanLibrary.renamed(text, to: name)
        do throws(PlanDiagnostic) {
            _ = try PlanParser.parse(renamed, origin: name, defaultName: name)
            return renamed
        } catch {
            toast(error.headline, nil)
            return nil
        }
    }

    /// The list again, and the page of the plan just written.
    private func showSaved(text: String, at path: String) {
        fill()
        let item = PlanCatalog.load(name: PlanLocator.planName(forPath: path), path: path)
        if case .success(let plan) = item.plan { open(plan, text: item.text ?? text, origin: path) }
    }

    /// Deletes the shown own plan's file, with Undo: the file put back byte for byte.
    private func deleteShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        let library = application.library
        do throws(FileError) {
            let bytes = try library.delete(shown.origin)
            detailPlan = nil
            goBack()
            fill()
            toast(tr("“{name}” deleted", ["name": shown.plan.name])) { [unowned self] in
                do throws(FileError) {
                    try library.restore(bytes, at: shown.origin)
                    fill()
                } catch {
                    toast(error.description, nil)
                }
            }
        } catch {
            toast(error.description, nil)
        }
    }

    /// A step as an action row (its label, its duration), a repeat as an expander row that folds out its items.
    private static func widget(for row: PlanReport.Row) -> Widget {
        switch row {
        case .step(let title, let duration):
            return actionRow(title: title, subtitle: duration)
        case .repeats(let title, let subtitle, let rows):
            let expander: Widget = adw_expander_row_new()
            adw_preferences_row_set_use_markup(cast(expander), 0)
            adw_preferences_row_set_title(cast(expander), title)
            adw_expander_row_set_subtitle(cast(expander), subtitle)
            for inner in rows { adw_expander_row_add_row(cast(expander), widget(for: inner)) }
            return expander
        }
    }

    // MARK: The one-line plan

    private func check() {
        typed += 1
        let attempt = typed
        let text = String(cString: gtk_editable_get_text(cast(oneLine)))
        guard !text.allSatisfy(\.isWhitespace) else {
            show(nil, for: attempt)
            return
        }
        if text.utf8.count <= Self.parseInPlaceLimit {
            show(Self.verdict(for: text), for: attempt)
            return
        }
        // Until this text's verdict is in.
        gtk_widget_set_sensitive(startOneLine, 0)
        gtk_widget_set_sensitive(saveOneLine, 0)
        let box = UncheckedBox(Unmanaged.passRetained(self))
        Self.parseQueue.async {
            let verdict = Self.verdict(for: text)
            onMainThread {
                let page = box.value.takeRetainedValue()
                page.show(verdict, for: attempt)
            }
        }
    }

    private static func verdict(for text: String) -> Result<String, PlanDiagnostic> {
        Result { () throws(PlanDiagnostic) in
            let plan = try PlanParser.parse(text, origin: "<inline>", defaultName: PlanLocator.inlineName(for: text))
            return PlanReport.lengthText(plan)
        }
    }

    private func show(_ verdict: Result<String, PlanDiagnostic>?, for attempt: Int) {
        guard attempt == typed else { return }
        switch verdict {
        case nil:
            setText(self.verdict, tr("Type a plan such as 8x(30s run, 30s walk)."))
        case .success(let estimate):
            setText(self.verdict, estimate)
        case .failure(let diagnostic):
            setText(self.verdict, diagnostic.description)
        }
        let valid: gboolean = verdict.map { (try? $0.get()) != nil } == true ? 1 : 0
        gtk_widget_set_sensitive(startOneLine, valid)
        gtk_widget_set_sensitive(saveOneLine, valid)
    }

    /// Start, or Enter in the field: only while Start is enabled, that is while the text as typed has parsed (its
    /// verdict is shown), so that it is not parsed again here.
    private func startTyped() {
        guard gtk_widget_get_sensitive(startOneLine) != 0 else { return }
        start(String(cString: gtk_editable_get_text(cast(oneLine))), "<inline>")
    }

    // MARK: Timeline

    /// The plan's segments side by side, as wide as their share of the plan, coloured by tone (``ToneColours``).
    /// Segments thinner than a pixel merge into their neighbours, so a plan of a million segments draws as fast as one
    /// of ten.
    private func drawTimeline(_ plan: Plan, _ cairo: OpaquePointer, _ width: Int32, _ height: Int32) {
        guard plan.duration > 0 else { return }
        let scale = Double(width) / Double(plan.duration)
        var drawnTo = 0.0
        for segment in plan.segments {
            let end = Double(segment.end) * scale
            guard end - drawnTo >= 1 || segment.end == plan.duration else { continue }
            let (red, green, blue) = ToneColours.components(
                ToneColours.tone(ofKind: segment.kind, restKinds: application.restKinds))
            cairo_set_source_rgb(cairo, red, green, blue)
            cairo_rectangle(cairo, drawnTo, 0, end - drawnTo, Double(height))
            cairo_fill(cairo)
            drawnTo = end
            if drawnTo >= Double(width) { break }
        }
    }
}

import CGtk
import CGtkShims
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
    /// The training programs: their rows above the plans, and a program's page.
    let programs: ProgramPages
    /// The page went to a plan's page, or back.
    var innerPageChanged: () -> Void = {}
    /// A toast: what happened, and an Undo for it if there is one.
    var toast: (_ text: String, _ undo: (() -> Void)?) -> Void = { _, _ in }
    /// Asks for a plan's name (a heading, the name to start from, the button that confirms it), then runs `done`.
    var askName: (_ heading: String, _ initial: String, _ confirm: String, _ done: @escaping (String) -> Void) -> Void =
        { _, _, _, _ in }
    private unowned let application: TimerApplication
    private let layout: Builder
    private let leaflet: UnsafeMutablePointer<Leaflet>
    private let list: UnsafeMutablePointer<ListBox>
    private let detailTitle: UnsafeMutablePointer<Label>
    private let timeline: UnsafeMutablePointer<GtkDrawingArea>
    /// The plan's items and its totals: rows, replaced for each plan shown.
    private let detailGroups: UnsafeMutablePointer<GtkBox>
    private let detailScroll: UnsafeMutablePointer<ScrolledWindow>
    private var detailPlan: (plan: Plan, text: String, origin: String)?
    private let oneLine: UnsafeMutablePointer<GtkEntry>
    private let verdict: UnsafeMutablePointer<Label>
    private let startOneLine: UnsafeMutablePointer<GtkButton>
    private let saveOneLine: UnsafeMutablePointer<GtkButton>
    /// Edit, Rename and Delete: enabled on the user's own plans' pages only.
    private var ownPlanActions: [OpaquePointer] = []
    /// The plan editor, while it is open.
    private var editor: PlanEditor?
    /// A file chooser (Import, Export), while it is open.
    private var chooser: OpaquePointer?
    /// The own plans' folder, watched: a plan saved, changed or deleted by any program shows at once.
    private var ownPlansWatch: FileWatch?
    /// Bumped at each keystroke: only the newest text's verdict is shown.
    private var typed = 0

    /// Texts longer than this are parsed off the main thread, so that typing never waits for the parser.
    private static let parseInPlaceLimit = 256
    private static let parseQueue = DispatchQueue(label: "org.intervald.window.parse", qos: .userInitiated)

    init(application: TimerApplication) {
        self.application = application
        layout = Builder(PackageResources.plans_page_ui)
        leaflet = layout.get("leaflet", Leaflet.self)
        root = cast(leaflet)
        programs = ProgramPages(
            layout: layout, leaflet: leaflet.c, ledger: application.programs, reminders: application.reminders,
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

        on(UnsafeMutableRawPointer(leaflet), .notify("visible-child")) { [unowned self] _ in innerPageChanged() }
        on(startPlan, .clicked) { [unowned self] in
            if let detailPlan { start(detailPlan.text, detailPlan.origin) }
        }
        insertActions(into: root, "plan") { actions in
            addAction(to: actions, "duplicate") { [unowned self] _ in duplicateShown() }
            addAction(to: actions, "copy-one-line") { [unowned self] _ in copyShown() }
            addAction(to: actions, "export") { [unowned self] _ in exportShown() }
            addAction(to: actions, "import") { [unowned self] _ in importPlan() }
            ownPlanActions = [
                addAction(to: actions, "edit") { [unowned self] _ in editShown() },
                addAction(to: actions, "rename") { [unowned self] _ in renameShown() },
                addAction(to: actions, "delete") { [unowned self] _ in deleteShown() },
            ]
        }
        on(saveOneLine, .clicked) { [unowned self] in saveTyped() }
        on(startOneLine, .clicked) { [unowned self] in startTyped() }
        on(oneLine, .activate) { [unowned self] in startTyped() }
        on(oneLine, .changed) { [unowned self] in check() }
        setDrawing(timeline.widget) { [unowned self] cairo, width, height in
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
    private func fill() {
        removeChildren(list.widget, from: true)
        var shownStill = false
        for item in application.catalog.items() {
            switch item.plan {
            case .success(let plan):
                let text = item.text ?? ""
                let row = actionRow(title: plan.name, subtitle: PlanReport.lengthText(plan)) { [unowned self] in
                    open(plan, text: text, origin: item.path)
                }
                adw_action_row_add_prefix(
                    cast(row), Timeline.small(plan) { [unowned self] in application.restKinds })
                gtk_list_box_append(list.c, row)
                if let detailPlan, detailPlan.origin == item.path {
                    shownStill = true
                    if detailPlan.text != text, showsPlan { open(plan, text: text, origin: item.path) }
                }
            case .failure(let failure):
                gtk_list_box_append(list.c, actionRow(title: item.name, subtitle: failure.description))
            }
        }
        if !shownStill, detailPlan?.origin.hasSuffix(".plan") == true {
            detailPlan = nil
            goBack()
        }
    }

    /// Lists the plans again when the own plans' folder changes.
    private func watchOwnPlans() {
        ownPlansWatch = FileWatch(.folder(application.library.directory), settle: 150) { [weak self] in self?.fill() }
    }

    private func open(_ plan: Plan, text: String, origin: String) {
        detailPlan = (plan, text, origin)
        setText(detailTitle.widget, plan.name)
        for action in ownPlanActions { g_simple_action_set_enabled(action, application.library.owns(origin) ? 1 : 0) }
        removeChildren(detailGroups.widget)
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
        append(detailGroups.widget, items)
        append(detailGroups.widget, totals)
        gtk_widget_queue_draw(timeline.widget)
        scrollToTop(detailScroll.widget)
        adw_leaflet_set_visible_child_name(leaflet.c, "detail")
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

    // MARK: Editing, importing, exporting

    /// The editor for a new plan.
    func newPlan() {
        let draft = PlanDraft(name: "")
        openEditor(.new, text: draft.text, draft: draft)
    }

    /// The editor for the shown own plan, from its file as it is now.
    private func editShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        let bytes: [UInt8]
        let draft: PlanDraft
        do throws(FileError) {
            bytes = try FileBytes.read(shown.origin, limit: WorkoutSession.maximumPlanTextBytes)
        } catch {
            toast(error.description, nil)
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(PlanDiagnostic) {
            draft = try PlanDraft(parsing: text)
        } catch {
            toast(error.headline, nil)
            return
        }
        openEditor(.file(path: shown.origin, bytes: bytes), text: text, draft: draft)
    }

    private func openEditor(_ target: PlanEditor.Target, text: String, draft: PlanDraft) {
        guard editor == nil, let parent = gtk_widget_get_root(root) else { return }
        let editor = PlanEditor(
            application: application, parent: cast(parent), target: target, text: text,
            draft: draft)
        editor.saved = { [unowned self] path, name in
            showSaved(text: text, at: path)
            toast(tr("Saved “{name}”", ["name": name]), nil)
        }
        editor.closed = { [unowned self] in self.editor = nil }
        self.editor = editor
    }

    /// Adds a `.plan` file chosen in a file chooser as an own plan, once it is checked: a plan that does not parse is
    /// shown with its diagnostic and nothing is added.
    private func importPlan() {
        choose(tr("Import a Plan"), action: GTK_FILE_CHOOSER_ACTION_OPEN, accept: tr("Import"), name: nil) {
            [unowned self] path in
            let origin = String(path.split(separator: "/").last ?? "")
            let bytes: [UInt8]
            let plan: Plan
            do throws(FileError) {
                bytes = try FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
            } catch {
                tell(tr("The file was not imported"), error.description)
                return
            }
            do throws(PlanDiagnostic) {
                plan = try PlanParser.parse(
                    bytes: bytes, origin: origin, defaultName: PlanLocator.planName(forPath: path))
            } catch {
                tell(tr("“{file}” is not a valid plan", ["file": origin]), error.description, monospace: true)
                return
            }
            guard !application.catalog.hasPlan(named: plan.name) else {
                tell(
                    tr("“{name}” was not imported", ["name": plan.name]),
                    tr("A plan of that name exists already. Rename one of them first."))
                return
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do throws(FileError) {
                let added = try application.library.add(text, named: plan.name)
                showSaved(text: text, at: added)
                toast(tr("Imported “{name}”", ["name": plan.name]), nil)
            } catch {
                tell(tr("The file was not imported"), error.description)
            }
        }
    }

    /// Writes the shown plan's text, as its file has it, to a file chosen in a file chooser.
    private func exportShown() {
        guard let shown = detailPlan else { return }
        let stem =
            shown.origin.hasSuffix(".plan")
            ? PlanLocator.planName(forPath: shown.origin) : PlanLibrary.fileStem(for: shown.plan.name)
        let text = shown.origin.hasSuffix(".plan") ? shown.text : PlanWriter.text(for: shown.plan)
        choose(tr("Export the Plan"), action: GTK_FILE_CHOOSER_ACTION_SAVE, accept: tr("Export"), name: stem + ".plan")
        {
            [unowned self] path in
            do throws(FileError) {
                try FileBytes.replace(path, with: Array(text.utf8))
                toast(tr("Exported “{name}”", ["name": shown.plan.name]), nil)
            } catch {
                tell(tr("The plan was not exported"), error.description)
            }
        }
    }

    /// A file chooser (the portal's when the app is sandboxed) for `.plan` files; `chosen` gets the path picked.
    private func choose(
        _ title: String, action: GtkFileChooserAction, accept: String, name: String?,
        _ chosen: @escaping (String) -> Void
    ) {
        guard chooser == nil, let parent = gtk_widget_get_root(root) else { return }
        let dialog = gtk_file_chooser_native_new(
            title, cast(parent), action, accept, tr("Cancel"))
        guard let dialog else { return }
        let filter = gtk_file_filter_new()
        gtk_file_filter_set_name(filter, tr("Plans"))
        gtk_file_filter_add_pattern(filter, "*.plan")
        gtk_file_chooser_add_filter(dialog, filter)
        let all = gtk_file_filter_new()
        gtk_file_filter_set_name(all, tr("All files"))
        gtk_file_filter_add_pattern(all, "*")
        gtk_file_chooser_add_filter(dialog, all)
        g_object_unref(UnsafeMutableRawPointer(filter))
        g_object_unref(UnsafeMutableRawPointer(all))
        if let name { gtk_file_chooser_set_current_name(dialog, name) }
        gtk_native_dialog_set_modal(cast(dialog), 1)
        chooser = dialog
        on(UnsafeMutableRawPointer(dialog), .nativeResponse) { [unowned self] response in
            defer {
                chooser = nil
                g_object_unref(UnsafeMutableRawPointer(dialog))
            }
            guard response == GTK_RESPONSE_ACCEPT.rawValue,
                let file = gtk_file_chooser_get_file(dialog)
            else { return }
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            guard let path = g_file_get_path(file) else { return }
            defer { g_free(path) }
            chosen(String(cString: path))
        }
        gtk_native_dialog_show(cast(dialog))
    }

    /// A message with an OK button: what went wrong, and why (a diagnostic in a monospace font).
    private func tell(_ heading: String, _ body: String, monospace: Bool = false) {
        guard let parent = gtk_widget_get_root(root) else { return }
        var problem: Widget?
        if monospace {
            let label: Widget = gtk_label_new(body)
            gtk_label_set_selectable(cast(label), 1)
            gtk_label_set_xalign(cast(label), 0)
            gtk_widget_add_css_class(label, "monospace")
            accessibleName(label, tr("Problem"))
            problem = label
        }
        ask(
            cast(parent), heading, monospace ? nil : body, answers: [Answer(id: "close", label: tr("OK"))],
            cancel: "close", extra: problem
        ) { _ in }
    }

    /// Renames the shown own plan: its name, and its file after it.
    private func renameShown() {
        guard let shown = detailPlan, application.library.owns(shown.origin) else { return }
        askName(tr("Rename the Plan"), shown.plan.name, tr("Rename")) { [unowned self] name in
            guard let text = named(shown.text, name, except: shown.origin) else { return }
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

    /// `text` with the plan's name `name`, when that is a plan: a name that is empty, that another plan than the file
    /// at `path` has, or that the plan language refuses (a control character), is said and nothing is written.
    private func named(_ text: String, _ name: String, except path: String? = nil) -> String? {
        guard !name.allSatisfy(\.isWhitespace) else {
            toast(tr("A plan needs a name."), nil)
            return nil
        }
        guard !application.catalog.hasPlan(named: name, except: path) else {
            toast(tr("A plan named “{name}” exists already: choose another name.", ["name": name]), nil)
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
        gtk_widget_set_sensitive(startOneLine.widget, 0)
        gtk_widget_set_sensitive(saveOneLine.widget, 0)
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
            setText(self.verdict.widget, tr("Type a plan such as 8x(30s run, 30s walk)."))
        case .success(let estimate):
            setText(self.verdict.widget, estimate)
        case .failure(let diagnostic):
            setText(self.verdict.widget, diagnostic.sentence)
        }
        markProblem(verdict.flatMap { if case .failure(let diagnostic) = $0 { diagnostic } else { nil } })
        let valid: gboolean = verdict.map { (try? $0.get()) != nil } == true ? 1 : 0
        gtk_widget_set_sensitive(startOneLine.widget, valid)
        gtk_widget_set_sensitive(saveOneLine.widget, valid)
    }

    /// Marks the field (its style, a screen reader's invalid state) and underlines the place `diagnostic` points at;
    /// nil clears the marks.
    private func markProblem(_ diagnostic: PlanDiagnostic?) {
        if let diagnostic {
            gtk_widget_add_css_class(oneLine.widget, "error")
            let text = String(cString: gtk_editable_get_text(cast(oneLine)))
            let marked = diagnostic.markedBytes(in: text)
            it_entry_mark_error(cast(oneLine), guint(marked.lowerBound), guint(marked.upperBound))
        } else {
            gtk_widget_remove_css_class(oneLine.widget, "error")
            it_entry_mark_error(cast(oneLine), 0, 0)
        }
        it_accessible_set_invalid(oneLine.widget, diagnostic == nil ? 0 : 1)
    }

    /// Start, or Enter in the field: only while Start is enabled, that is while the text as typed has parsed (its
    /// verdict is shown), so that it is not parsed again here.
    private func startTyped() {
        guard gtk_widget_get_sensitive(startOneLine.widget) != 0 else { return }
        start(String(cString: gtk_editable_get_text(cast(oneLine))), "<inline>")
    }
}

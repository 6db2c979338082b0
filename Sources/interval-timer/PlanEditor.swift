import CGtk
import IntervalCore
import IntervalGLib
import IntervalRuntime

/// The plan editor (docs/window.md, "Making a plan"), laid out in ui/plan-editor.ui: the plan in rows, a step's
/// duration, kind, label and target, a repeat's count or bound, its items indented under it, beside the same plan as
/// text. Both are views of one plan text: an edit in a row writes the text (``PlanDraft``), an edit of the text that
/// parses fills the rows again; a text that does not parse is kept, shown with its diagnostic, and cannot be saved.
final class PlanEditor {
    /// Where the plan goes: a new own plan, or the own plan file it was read from, with the bytes it had then (to see
    /// whether another program changed it meanwhile).
    enum Target {
        case new
        case file(path: String, bytes: [UInt8])
    }

    let window: UnsafeMutablePointer<AdwWindow>
    /// The plan was saved at this path; the editor has closed.
    var saved: (_ path: String, _ name: String) -> Void = { _, _ in }
    /// The editor has closed, saved or not.
    var closed: () -> Void = {}
    private unowned let application: TimerApplication
    private let layout: Builder
    private let target: Target
    private let items: UnsafeMutablePointer<ListBox>
    private let nameField, countdownField: UnsafeMutablePointer<AdwEntryRow>
    private let textView: UnsafeMutablePointer<GtkTextView>
    private let buffer: UnsafeMutablePointer<GtkTextBuffer>
    private let verdict, rowsHint: UnsafeMutablePointer<Label>
    private let totals: UnsafeMutablePointer<GtkBox>
    private let timeline: UnsafeMutablePointer<GtkDrawingArea>
    private var saveAction: OpaquePointer?
    private var draft: PlanDraft
    private var text: String
    /// The text as it was saved or opened: Cancel asks before it drops a text that differs.
    private var savedText: String
    private var plan: Result<Plan, PlanDiagnostic>?
    /// False while the text holds a problem typed into it: the rows then show the plan as it last parsed.
    private var rowsFollowText = true
    /// True while the editor itself sets a field or the text, whose change handlers then do nothing.
    private var updating = false
    /// The rows shown, each with its item's path and the field that takes the focus.
    private var rows: [(path: [Int], row: Widget, field: Widget)] = []
    /// Each step row's "until Done", shown while its fields make a step the person ends.
    private var untilDoneLabels: [[Int]: UnsafeMutablePointer<Label>] = [:]
    /// The rows beside the text, or above it in a narrow window.
    private let panes: UnsafeMutablePointer<Paned>
    /// The window is narrower than ``narrowWidth``: the text is under the rows, a step's label and target under its
    /// duration and kind.
    private var narrow = false
    /// Below this width (a phone's 360 pixels, a tiled half of a small screen) the rows and the text do not fit side
    /// by side.
    private static let narrowWidth: Int32 = 720

    init(
        application: TimerApplication, parent: UnsafeMutablePointer<GtkWindow>, target: Target, text: String,
        draft: PlanDraft
    ) {
        self.application = application
        self.target = target
        self.text = text
        self.draft = draft
        savedText = text
        layout = Builder(PackageResources.plan_editor_ui)
        window = layout.get("window", AdwWindow.self)
        (items, nameField, countdownField, textView) = (
            layout.get("items", ListBox.self), layout.get("name", AdwEntryRow.self),
            layout.get("countdown", AdwEntryRow.self), layout.get("text", GtkTextView.self)
        )
        (verdict, rowsHint, totals, timeline) = (
            layout.get("verdict", Label.self), layout.get("rows-hint", Label.self), layout.get("totals", GtkBox.self),
            layout.get("timeline", GtkDrawingArea.self)
        )
        panes = layout.get("panes", Paned.self)
        buffer = gtk_text_view_get_buffer(textView)
        window.setTransient(for: parent)
        let title = layout.get("title", WindowTitle.self)
        if case .new = target {
            adw_window_title_set_title(title.c, tr("New Plan"))
        } else {
            adw_window_title_set_title(title.c, tr("Edit Plan"))
        }
        window.setTitle(tr("Plan Editor"))
        addActions()
        connectFields()
        setDrawing(timeline) { [weak self] cairo, width, height in
            guard let self, case .success(let plan)? = self.plan else { return }
            Timeline.draw(plan, restKinds: self.application.restKinds, cairo, width, height)
        }
        showHeader()
        setBuffer(text)
        // GTK 4 keeps a toplevel's default size as its size: it follows every resize.
        on(window, .notify("default-width")) { [weak self] _ in self?.fitWidth() }
        fitWidth(refill: false)
        fillRows()
        evaluate()
        window.present()
        gtk_widget_grab_focus(nameField.widget)
    }

    // MARK: Actions and keys

    private func addActions() {
        guard let shortcuts = gtk_shortcut_controller_new() else { return }
        // Capture: the keys are the editor's wherever the focus is, the text view and the fields included.
        gtk_event_controller_set_propagation_phase(shortcuts, GTK_PHASE_CAPTURE)
        insertActions(into: window.widget, "editor") { actions in
            for editorAction in WindowKey.EditorAction.allCases {
                let key = editorAction.key
                let action = addAction(to: actions, key.name) { [unowned self] _ in perform(editorAction) }
                if editorAction == .save { saveAction = action }
                for accelerator in key.accelerators {
                    gtk_shortcut_controller_add_shortcut(
                        shortcuts,
                        gtk_shortcut_new(
                            gtk_shortcut_trigger_parse_string(accelerator), gtk_named_action_new(key.action)))
                }
            }
        }
        gtk_shortcut_controller_add_shortcut(
            shortcuts,
            gtk_shortcut_new(gtk_shortcut_trigger_parse_string("Escape"), gtk_named_action_new("window.close")))
        gtk_widget_add_controller(window.widget, shortcuts)
        on(window, .closeRequest) { [weak self] in self?.closeRequested() ?? false }
    }

    /// What the editor's key for `action` (``WindowKey/editor``) does; a row's keys act on the row at `path`, else on
    /// the one that has the focus.
    private func perform(_ action: WindowKey.EditorAction, at path: [Int]? = nil) {
        switch action {
        case .addStep: addItem(PlanDraft.Item.step(Self.newStep))
        case .addRepeat: addItem(Self.newRepeat)
        case .save: save()
        case .moveUp: if let path = path ?? focusedPath() { moveUp(path) }
        case .moveDown: if let path = path ?? focusedPath() { moveDown(path) }
        case .duplicate: if let path = path ?? focusedPath() { duplicate(path) }
        case .remove: if let path = path ?? focusedPath() { remove(path) }
        }
    }

    /// Closing keeps the window while there are changes, and asks whether to drop them.
    private func closeRequested() -> Bool {
        guard text == savedText else {
            confirm(
                window, tr("Discard the changes?"), tr("The plan has changes that are not saved."),
                cancel: tr("Keep Editing"), destructive: tr("Discard")
            ) { [weak self] in
                guard let self else { return }
                savedText = text
                closeLater()
            }
            return true
        }
        // After GTK has destroyed the window: the editor is dropped then.
        _ = after(milliseconds: 0) { [weak self] in self?.closed() }
        return false
    }

    /// Closes the editor once the handler running now has returned: a question's answer closes it from within the
    /// question's own signal, and destroying the question's parent there crashed GLib.
    private func closeLater() {
        _ = after(milliseconds: 0) { [weak self] in
            guard let self else { return }
            window.close()
        }
    }

    // MARK: Header fields and text

    private func connectFields() {
        on(nameField, .changed) { [weak self] in
            guard let self, !updating else { return }
            draft.name = nameField.text
            rowsChanged()
        }
        on(countdownField, .changed) { [weak self] in
            guard let self, !updating else { return }
            draft.countdown = countdownField.text
            rowsChanged()
        }
        on(UnsafeMutableRawPointer(buffer), .changed) { [weak self] in
            guard let self, !updating else { return }
            textChanged()
        }
    }

    private func showHeader() {
        updating = true
        nameField.text = draft.name
        countdownField.text = draft.countdown
        updating = false
    }

    private func setBuffer(_ text: String) {
        updating = true
        gtk_text_buffer_set_text(buffer, text, -1)
        updating = false
    }

    /// The rows changed the plan: the text follows.
    private func rowsChanged() {
        text = draft.text
        setBuffer(text)
        rowsFollowText = true
        evaluate()
    }

    /// The text was typed into: the rows follow when it parses.
    private func textChanged() {
        var start = GtkTextIter()
        var end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        guard let characters = gtk_text_buffer_get_text(buffer, &start, &end, 1) else { return }
        text = String(cString: characters)
        g_free(characters)
        do throws(PlanDiagnostic) {
            draft = try PlanDraft(parsing: text)
            rowsFollowText = true
            showHeader()
            fillRows()
        } catch {
            rowsFollowText = false
        }
        evaluate()
    }

    // MARK: Checking

    /// The name a plan without a `name` directive takes: its file's, or none for a new plan (which must be named).
    private var defaultName: String {
        if case .file(let path, _) = target { return PlanLocator.planName(forPath: path) }
        return ""
    }

    /// What a diagnostic names the text by: its file's name, or "Plan" for a new plan.
    private var origin: String {
        if case .file(let path, _) = target { return String(path.split(separator: "/").last ?? "") }
        return tr("Plan")
    }

    /// Parses the text and shows what it holds, or its problem: in the text's verdict, and on the row it is about.
    private func evaluate() {
        let plan = Result { () throws(PlanDiagnostic) in
            try PlanParser.parse(text, origin: origin, defaultName: defaultName)
        }
        self.plan = plan
        for (_, row, _) in rows {
            gtk_widget_remove_css_class(row, "error")
            gtk_widget_set_tooltip_text(row, nil)
        }
        gtk_widget_set_sensitive(items.widget, rowsFollowText ? 1 : 0)
        removeChildren(totals)
        switch plan {
        case .success(let plan):
            gtk_widget_remove_css_class(verdict.widget, "error")
            // A note ("400m is 400 minutes") is said beside the length, and on its row, but the plan stays valid.
            setText(
                verdict, ([PlanReport.lengthText(plan)] + plan.notes.map(\.description)).joined(separator: "\n"))
            if let note = plan.notes.first, let path = draft.path(forLine: note.line),
                let shown = rows.first(where: { $0.path == path })
            {
                gtk_widget_set_tooltip_text(shown.row, note.message)
                showHint(tr("{item}: {problem}", ["item": Self.rowName(draft, path), "problem": note.message]))
            } else {
                showHint(plan.notes.first?.sentence)
            }
            let group = AdwPreferencesGroup.checked(adw_preferences_group_new())
            adw_preferences_group_set_title(group, tr("Totals"))
            for (name, value) in PlanReport.totalRows(PlanEstimate(plan)) {
                adw_preferences_group_add(group, actionRow(title: name, subtitle: value).widget)
            }
            append(totals, group)
        case .failure(let diagnostic):
            gtk_widget_add_css_class(verdict.widget, "error")
            setText(verdict, diagnostic.description)
            if !rowsFollowText {
                showHint(tr("The text has a problem: the rows show the plan as it was before it."))
            } else if let path = draft.path(forLine: diagnostic.line),
                let shown = rows.first(where: { $0.path == path })
            {
                gtk_widget_add_css_class(shown.row, "error")
                gtk_widget_set_tooltip_text(shown.row, diagnostic.message)
                showHint(tr("{item}: {problem}", ["item": Self.rowName(draft, path), "problem": diagnostic.message]))
            } else {
                showHint(diagnostic.message)
            }
        }
        gtk_widget_queue_draw(timeline.widget)
        if let saveAction { g_simple_action_set_enabled(saveAction, (try? plan.get()) != nil ? 1 : 0) }
    }

    private func showHint(_ text: String?) {
        setText(rowsHint, text ?? "")
        gtk_widget_set_visible(rowsHint.widget, text == nil ? 0 : 1)
    }

    // MARK: Rows

    private static let newStep = PlanDraft.Step(duration: "30s", kind: "run")
    private static let newRepeat = PlanDraft.Item(
        .group(.init(repetition: "4x", items: [.step(newStep), .step(.init(duration: "30s", kind: "walk"))])))
    /// The kinds the Kind field offers; any other lowercase word may be typed.
    private static let usualKinds = ["run", "walk", "jog", "sprint", "rest", "work", "warmup", "cooldown"]

    /// "Step 2.1", "Repeat 2": a row's name, by its place in the plan.
    private static func rowName(_ draft: PlanDraft, _ path: [Int]) -> String {
        let number = path.map { String($0 + 1) }.joined(separator: ".")
        if case .group? = draft.item(at: path)?.content { return tr("Repeat {number}", ["number": number]) }
        return tr("Step {number}", ["number": number])
    }

    /// Lays the editor out for the window's width: side by side when wide; stacked when narrow, where the text keeps
    /// its least height (a few lines, ui/plan-editor.ui) and the rows take the rest as the window grows.
    private func fitWidth(refill: Bool = true) {
        let width = window.defaultSize.width
        let isNarrow = width > 0 && width < Self.narrowWidth
        guard isNarrow != narrow || !refill else { return }
        narrow = isNarrow
        panes.setOrientation(narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL)
        gtk_paned_set_resize_end_child(panes.c, narrow ? 0 : 1)
        // Narrow: as far down as the text's least height lets it.
        gtk_paned_set_position(panes.c, narrow ? Int32.max : width * 5 / 8)
        if refill { fillRows(focus: focusedPath()) }
    }

    /// Every item as a row, a group's items under it and indented; the focus goes to the row at `focus`.
    private func fillRows(focus: [Int]? = nil) {
        removeChildren(items)
        rows = []
        untilDoneLabels = [:]
        addRows(draft.items, under: [])
        if let focus, let shown = rows.first(where: { $0.path == focus }) { gtk_widget_grab_focus(shown.field) }
    }

    private func addRows(_ children: [PlanDraft.Item], under parent: [Int]) {
        for (index, item) in children.enumerated() {
            let path = parent + [index]
            let (row, field) = makeRow(item, path)
            gtk_list_box_append(items.c, row)
            rows.append((path, row, field))
            if case .group(let group) = item.content { addRows(group.items, under: path) }
        }
    }

    private func makeRow(_ item: PlanDraft.Item, _ path: [Int]) -> (row: Widget, field: Widget) {
        let row = GtkListBoxRow.checked(gtk_list_box_row_new())
        gtk_list_box_row_set_activatable(row, 0)
        let name = Self.rowName(draft, path)
        accessibleName(row, name)
        let box = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6))
        let first: Widget
        // Narrow, a step's label and target are a second line under its duration and kind.
        var child = box
        switch item.content {
        case .step(let step):
            first = field(
                step.duration, tr("Duration"), width: 5, placeholder: "30s", in: box,
                tooltip: tr("A time (30s, 1:30), a distance (0.4km, 1mi), or open (until you press Done)")
            ) { [unowned self] in
                updateStep(path) { $0.duration = $1 }($0)
            }
            kindField(step.kind, in: box, path: path)
            var rest = box
            if narrow {
                let spacer: Widget = gtk_label_new(nil)
                gtk_widget_set_hexpand(spacer, 1)
                append(box, spacer)
                rest = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6))
                child = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_VERTICAL, 6))
                append(child, box)
                append(child, rest)
            }
            field(step.label, tr("Label"), width: 0, placeholder: tr("Label (optional)"), in: rest) {
                [unowned self] in updateStep(path) { $0.label = $1 }($0)
            }
            field(
                step.target, tr("Target"), width: 7, placeholder: tr("Target"), in: rest,
                tooltip: tr("A pace (5:00/km), a power (200W) or a heart-rate range (130-150bpm); empty for none")
            ) { [unowned self] in
                updateStep(path) { $0.target = $1 }($0)
            }
            let untilDone = Label.checked(gtk_label_new(nil))
            gtk_widget_add_css_class(untilDone.widget, "dim-label")
            // On two lines rather than past the edge of a phone's width ("0,4 km, bis Fertig").
            gtk_label_set_wrap(untilDone.c, 1)
            append(rest, untilDone)
            untilDoneLabels[path] = untilDone
            showUntilDone(step, at: path)
        case .group(let group):
            let label: Widget = gtk_label_new(tr("Repeat"))
            gtk_widget_add_css_class(label, "heading")
            append(box, label)
            first = field(group.repetition, tr("Repeat"), width: 12, placeholder: tr("6, 45m or 5km"), in: box) {
                [unowned self] typed in
                guard let item = draft.item(at: path), case .group(var group) = item.content else { return }
                group.repetition = typed
                var changed = item
                changed.content = .group(group)
                draft.replace(at: path, with: changed)
                rowsChanged()
            }
            let spacer: Widget = gtk_label_new(nil)
            gtk_widget_set_hexpand(spacer, 1)
            append(box, spacer)
        }
        append(box, rowMenu(for: path, named: name))
        gtk_widget_set_margin_start(child.widget, Int32(12 + 28 * (path.count - 1)))
        gtk_widget_set_margin_end(child.widget, 6)
        gtk_widget_set_margin_top(child.widget, 6)
        gtk_widget_set_margin_bottom(child.widget, 6)
        gtk_list_box_row_set_child(row, child.widget)
        return (row.widget, first)
    }

    /// An entry in a row: its accessible name, width in characters (0 for at least 10 and the room left), and what a
    /// change does.
    @discardableResult
    private func field(
        _ value: String, _ name: String, width: Int32, placeholder: String, in box: UnsafeMutablePointer<GtkBox>,
        tooltip: String? = nil,
        _ changed: @escaping (String) -> Void
    ) -> Widget {
        let entry = GtkEntry.checked(gtk_entry_new())
        entry.text = value
        gtk_entry_set_placeholder_text(entry, placeholder)
        if width > 0 {
            entry.setWidthChars(width)
        } else {
            entry.setWidthChars(10)
            gtk_widget_set_hexpand(entry.widget, 1)
        }
        accessibleName(entry, name)
        gtk_widget_set_tooltip_text(entry.widget, tooltip ?? name)
        on(entry, .changed) { [weak self] in
            guard let self, !updating else { return }
            changed(entry.text)
        }
        append(box, entry)
        return entry.widget
    }

    /// The kind: a combo of the usual kinds that takes any other typed.
    private func kindField(_ kind: String, in box: UnsafeMutablePointer<GtkBox>, path: [Int]) {
        let combo = ComboBoxText.checked(gtk_combo_box_text_new_with_entry())
        for usual in Self.usualKinds { gtk_combo_box_text_append_text(combo.c, usual) }
        guard let entry = combo.entry else { return }
        entry.text = kind
        entry.setWidthChars(6)
        accessibleName(combo, tr("Kind"))
        accessibleName(entry, tr("Kind"))
        // The arrow that lists the usual kinds: GTK 4.8 names it after its class ("GtkToggleButton").
        for arrow in descendants(of: combo, GtkToggleButton.self) {
            accessibleName(arrow, tr("Choose a Kind"))
        }
        gtk_widget_set_tooltip_text(combo.widget, tr("Kind"))
        on(entry, .changed) { [weak self] in
            guard let self, !updating else { return }
            updateStep(path) { $0.kind = $1 }(entry.text)
        }
        append(box, combo)
    }

    /// A change to one field of the step at `path`.
    private func updateStep(_ path: [Int], _ set: @escaping (inout PlanDraft.Step, String) -> Void) -> (String) -> Void
    {
        { [unowned self] value in
            guard var item = draft.item(at: path), case .step(var step) = item.content else { return }
            set(&step, value)
            item.content = .step(step)
            draft.replace(at: path, with: item)
            showUntilDone(step, at: path)
            rowsChanged()
        }
    }

    /// The step row at `path` says "until Done" (and its distance) while its fields make a step the person ends.
    private func showUntilDone(_ step: PlanDraft.Step, at path: [Int]) {
        guard let label = untilDoneLabels[path] else { return }
        let text = step.untilDone
        setText(label, text ?? "")
        gtk_widget_set_visible(label.widget, text == nil ? 0 : 1)
    }

    /// A row's menu: move, duplicate, remove; each also a key (shown in the menu) on the row that has the focus.
    private func rowMenu(for path: [Int], named name: String) -> Widget {
        let button = MenuButton.checked(gtk_menu_button_new())
        let menu: OpaquePointer = g_menu_new()
        insertActions(into: button.widget, "row") { actions in
            for action in WindowKey.EditorAction.allCases {
                let key = action.key
                guard let label = key.menuLabel else { continue }
                let item = g_menu_item_new(tr(label), "row.\(key.name)")
                if let accelerator = key.accelerators.first {
                    g_menu_item_set_attribute_value(item, "accel", g_variant_new_string(accelerator))
                }
                g_menu_append_item(menu, item)
                g_object_unref(UnsafeMutableRawPointer(item))
                addAction(to: actions, key.name) { [unowned self] _ in perform(action, at: path) }
            }
        }
        gtk_menu_button_set_icon_name(button.c, "view-more-symbolic")
        button.setMenu(menu)
        g_object_unref(UnsafeMutableRawPointer(menu))
        gtk_widget_add_css_class(button.widget, "flat")
        gtk_widget_set_valign(button.widget, GTK_ALIGN_CENTER)
        accessibleName(button, tr("Actions for {item}", ["item": name]))
        nameMenu(of: button, tr("Actions for {item}", ["item": name]))
        gtk_widget_set_tooltip_text(button.widget, tr("Move, duplicate or remove"))
        return button.widget
    }

    /// The path of the row that holds the focus, if one does.
    private func focusedPath() -> [Int]? {
        var widget = gtk_root_get_focus(OpaquePointer(window))
        while let current = widget {
            if let shown = rows.first(where: { $0.row == current }) { return shown.path }
            widget = gtk_widget_get_parent(current)
        }
        return nil
    }

    /// Adds `item` after the row with the focus, or at the end.
    private func addItem(_ item: PlanDraft.Item) {
        guard rowsFollowText else { return }
        changeStructure { $0.add(item, at: focusedPath()) }
    }

    private func moveUp(_ path: [Int]) { changeStructure { $0.moveUp(at: path) } }
    private func moveDown(_ path: [Int]) { changeStructure { $0.moveDown(at: path) } }
    private func duplicate(_ path: [Int]) { changeStructure { $0.duplicate(at: path) } }

    /// Removes an item; the focus goes to the row that took its place, or the one above.
    private func remove(_ path: [Int]) {
        guard draft.items.count > 1 || path.count > 1 else {
            showHint(tr("A plan needs at least one step."))
            return
        }
        changeStructure { draft in
            draft.remove(at: path)
            if draft.item(at: path) != nil { return path }
            guard let last = path.last, last > 0 else { return path.count > 1 ? Array(path.dropLast()) : [0] }
            return Array(path.dropLast()) + [last - 1]
        }
    }

    /// Applies an edit that adds, removes or moves rows; the focus follows the item to the path it returns.
    private func changeStructure(_ edit: (inout PlanDraft) -> [Int]?) {
        guard let focus = edit(&draft) else { return }
        fillRows(focus: focus)
        rowsChanged()
    }

    // MARK: Saving

    /// Saves a valid plan: a new one as a new own plan, named; an own one in its file, after asking when another
    /// program changed the file since it was opened.
    private func save() {
        guard case .success(let plan)? = plan else { return }
        let name = plan.name.trimmingSpaces
        guard !name.isEmpty else {
            showHint(tr("A plan needs a name."))
            gtk_widget_grab_focus(nameField.widget)
            return
        }
        let ownPath: String? = if case .file(let path, _) = target { path } else { nil }
        guard application.catalog.namesake(of: name, except: ownPath) == nil else {
            showHint(tr("A plan named “{name}” exists already: choose another name.", ["name": name]))
            gtk_widget_grab_focus(nameField.widget)
            return
        }
        switch target {
        case .new:
            write { library throws(FileError) in try library.add(text, named: name) }
        case .file(let path, let bytes):
            let onDisk = try? FileBytes.read(path, limit: WorkoutSession.maximumPlanTextBytes)
            guard onDisk == nil || onDisk == bytes else {
                ask(
                    window, tr("The plan was changed by another program"),
                    tr("Its file changed after it was opened here. Which version should be kept?"),
                    answers: [
                        Answer(id: "cancel", label: tr("Cancel")),
                        Answer(id: "theirs", label: tr("Keep the Other")),
                        Answer(id: "mine", label: tr("Keep Mine"), appearance: ADW_RESPONSE_DESTRUCTIVE),
                    ], cancel: "cancel"
                ) { [weak self] answer in
                    guard let self else { return }
                    if answer == "mine" { write(over: path, onDisk: onDisk != nil, name: name) }
                    if answer == "theirs" {
                        savedText = text
                        closeLater()
                    }
                }
                return
            }
            write(over: path, onDisk: onDisk != nil, name: name)
        }
    }

    /// Writes an own plan's file: in place, or under a new file name when the plan's name changed (as Rename does);
    /// as a new own plan when the file is gone.
    private func write(over path: String, onDisk: Bool, name: String) {
        write { library throws(FileError) in
            guard onDisk else { return try library.add(text, named: name) }
            // Still named after its file: written as it is, with no `name` added.
            guard name != defaultName else {
                try FileBytes.replace(path, with: Array(text.utf8))
                return path
            }
            return try library.rename(path, text: text, to: name)
        }
    }

    private func write(_ body: (PlanLibrary) throws(FileError) -> String) {
        do throws(FileError) {
            let path = try body(application.library)
            let name = (try? plan?.get())?.name ?? ""
            savedText = text
            closeLater()
            saved(path, name)
        } catch {
            showHint(error.description)
        }
    }
}

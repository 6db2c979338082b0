import CGtk
import Dispatch
import IntervalBus
import IntervalCore
import IntervalGLib
import IntervalRuntime
import IntervalWatch

/// The training programs on the Plans page (docs/window.md): a row per program with its next day and Continue, and a
/// program's page (a leaflet page of ui/plans-page.ui) with its weeks of days, what is done and next, and the
/// corrections (mark the next day done, repeat the last, go to a day, start over). The progress files are watched:
/// a day the daemon marks done as its workout finishes shows at once.
final class ProgramPages {
    /// Start day `day` of program `name` (the name its file has).
    var startDay: (_ name: String, _ day: ProgramDay) -> Void = { _, _ in }
    /// A toast: what happened.
    var toast: (_ text: String) -> Void = { _ in }
    /// Send to Watch on a day or a week: its workouts, each with the stem of its file's name, to a watch.
    var sendToWatch: (_ days: [(plan: Plan, fileStem: String)], _ watch: Watch) -> Void = { _, _ in }
    /// The connected watches: each day and week offers Send to Watch only while there is one.
    var watches: [Watch] = [] {
        didSet { if watches != oldValue { showSendControls() } }
    }
    /// ``inProgress`` changed.
    var inProgressChanged: () -> Void = {}
    /// The programs or their progress changed (``continueLabel(of:)`` may say otherwise now).
    var progressChanged: () -> Void = {}
    /// The program the person is following: of those with a day done and a day to do, the one whose day was done
    /// last; its name and "Continue Couch to 5K: Week 1, Day 2". What the idle workout page offers.
    private(set) var inProgress: (name: String, label: String)?
    /// Each program's Continue label, while it has a day to do.
    private var continueLabels: [String: String] = [:]
    private let ledger: ProgramLedger
    private let reminders: ProgramReminders
    private let restKinds: () -> Set<String>
    private let leaflet: UnsafeMutablePointer<Leaflet>
    private let heading, title, next: UnsafeMutablePointer<Label>
    private let list: UnsafeMutablePointer<ListBox>
    /// The program's page, named for the program (a screen reader says where it is), and its weeks.
    private let page, weeks: UnsafeMutablePointer<GtkBox>
    private let programScroll: UnsafeMutablePointer<ScrolledWindow>
    private let continueButton: UnsafeMutablePointer<GtkButton>
    private let reminderRow: UnsafeMutablePointer<AdwEntryRow>
    /// The program whose page is shown, by name.
    private var shown: String?
    private var progressWatch: FileWatch?
    /// The programs the list has rows for (path and name), and each one's row and Continue button.
    private var listedPrograms: [String]?
    private var listRows: [String: (row: UnsafeMutablePointer<AdwActionRow>, continueButton: Widget)] = [:]
    /// Each program's file and progress as the rows show them.
    private var shownState: [String] = []
    /// The shown program's days as its rows were made, and each day's row and Make Next button.
    private var shownLayout = ""
    private var dayRows: [ProgramDay: (row: UnsafeMutablePointer<AdwActionRow>, makeNext: Widget)] = [:]
    /// Where each day's and each week's Send to Watch goes, with its name, what it does and the days it sends.
    private var sendSlots:
        [(
            slot: UnsafeMutablePointer<GtkBox>, name: String, description: String,
            days: [(plan: Plan, fileStem: String)]
        )] =
            []

    init(
        layout: Builder, leaflet: UnsafeMutablePointer<Leaflet>, ledger: ProgramLedger, reminders: ProgramReminders,
        restKinds: @escaping () -> Set<String>
    ) {
        self.ledger = ledger
        self.reminders = reminders
        self.restKinds = restKinds
        self.leaflet = leaflet
        (heading, list, page) = (
            layout.get("programs-heading", Label.self), layout.get("programs", ListBox.self),
            layout.get("program-page", GtkBox.self)
        )
        (title, next, continueButton, weeks) = (
            layout.get("program-title", Label.self), layout.get("program-next", Label.self),
            layout.get("continue-program", GtkButton.self),
            layout.get("program-weeks", GtkBox.self)
        )
        reminderRow = layout.get("program-reminder", AdwEntryRow.self)
        programScroll = layout.get("program-scroll", ScrolledWindow.self)
        on(continueButton, .clicked) { [unowned self] in
            if let shown { continueProgram(shown) }
        }
        // A button of its own rather than the row's Apply, which shows only after typing and has no name to say.
        let setButton: Widget = gtk_button_new_with_label(tr("Set"))
        gtk_widget_set_valign(setButton, GTK_ALIGN_CENTER)
        accessibleDescription(setButton, tr("Set the reminder, or remove it when the field is empty"))
        adw_entry_row_add_suffix(reminderRow, setButton)
        let applyReminder = { [unowned self] in
            if let shown { setReminder(shown, reminderRow.text) }
        }
        on(setButton, .clicked, applyReminder)
        on(reminderRow, .entryActivated, applyReminder)
        insertActions(into: leaflet.widget, "program") { actions in
            addAction(to: actions, "mark-done") { [unowned self] _ in
                change { program, progress throws(ProgramProgressError) in
                    try progress.markNextDone(in: program, wall: WallClock.microseconds())
                }
            }
            addAction(to: actions, "repeat") { [unowned self] _ in
                change { program, progress throws(ProgramProgressError) in try progress.repeatLastDone(in: program) }
            }
            addAction(to: actions, "reset") { [unowned self] _ in askToStartOver() }
        }
        fill()
        watchProgress()
    }

    /// Lists the programs, each with its next day and a Continue button; the page shown follows its progress. Rows
    /// are made anew only when the programs themselves change: a change of progress updates them in place, so that
    /// the focus stays where it is and no button goes away under a click.
    func fill() {
        let items = ledger.catalog.items()
        let progress = items.map { item in (try? item.program.get()).map { ledger.store.load(item.name, of: $0) } }
        // The echo of a change made here (the file monitor) finds what is shown already: nothing is touched.
        let state = zip(items, progress).map { item, progress in "\(item.path) \(progress.map { "\($0)" } ?? "")" }
        guard state != shownState else { return }
        shownState = state
        let programs = items.map { item in "\(item.path) \((try? item.program.get())?.name ?? "")" }
        if programs != listedPrograms {
            listedPrograms = programs
            removeChildren(list)
            listRows = [:]
            gtk_widget_set_visible(heading.widget, items.isEmpty ? 0 : 1)
            gtk_widget_set_visible(list.widget, items.isEmpty ? 0 : 1)
            for item in items {
                switch item.program {
                case .success(let program):
                    let row = actionRow(title: program.name, subtitle: "") { [unowned self] in open(item.name) }
                    let button: Widget = gtk_button_new_with_label(tr("Continue"))
                    gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
                    accessibleDescription(button, tr("Start the next day of {program}", ["program": program.name]))
                    on(button, .clicked) { [unowned self] in continueProgram(item.name) }
                    row.addSuffix(button)
                    gtk_list_box_append(list.c, row.widget)
                    listRows[item.name] = (row, button)
                case .failure(let failure):
                    gtk_list_box_append(list.c, actionRow(title: item.name, subtitle: failure.description).widget)
                }
            }
        }
        var loaded: [(name: String, program: Program, progress: ProgramProgress)] = []
        for (item, progress) in zip(items, progress) {
            guard let program = try? item.program.get(), let progress = progress?.progress else { continue }
            loaded.append((item.name, program, progress))
            guard let (row, button) = listRows[item.name] else { continue }
            row.setSubtitle(Self.summary(program, progress))
            gtk_widget_set_visible(button, progress.nextDay(in: program) == nil ? 0 : 1)
        }
        if let shown { open(shown, show: false) }
        continueLabels = Dictionary(
            uniqueKeysWithValues: loaded.compactMap { entry in
                entry.progress.nextDay(in: entry.program).map { (entry.name, Self.continueLabel(entry.program, $0)) }
            })
        let following = Self.following(loaded)
        if following?.name != inProgress?.name || following?.label != inProgress?.label {
            inProgress = following
            inProgressChanged()
        }
        progressChanged()
    }

    /// "Continue Couch to 5K: Week 1, Day 2" for program `name`, nil when it has no day to do.
    func continueLabel(of name: String) -> String? { continueLabels[name] }

    private static func continueLabel(_ program: Program, _ next: ProgramDay) -> String {
        tr("Continue {program}: {day}", ["program": program.name, "day": next.title])
    }

    /// Of `programs`, the one with a day done and a day to do whose day was done last, and its Continue label.
    static func following(_ programs: [(name: String, program: Program, progress: ProgramProgress)]) -> (
        name: String, label: String
    )? {
        let candidates = programs.compactMap { entry -> (String, Program, ProgramDay, Int64)? in
            guard let last = entry.progress.done.map(\.wall).max(), let next = entry.progress.nextDay(in: entry.program)
            else { return nil }
            return (entry.name, entry.program, next, last)
        }
        guard let (name, program, next, _) = candidates.max(by: { $0.3 < $1.3 }) else { return nil }
        return (name, continueLabel(program, next))
    }

    /// "Next: Week 1, Day 2 (30:00) · 1 of 27 days done", or that it is complete.
    static func summary(_ program: Program, _ progress: ProgramProgress) -> String {
        let done = Set(progress.done.map(\.day)).count
        let count = trn(
            "{count} day done of {days}", "{count} days done of {days}", done, ["days": "\(program.days.count)"])
        guard let day = progress.nextDay(in: program).flatMap({ program.day($0) }) else {
            return tr("complete") + " · " + count
        }
        let length = PlanReport.timeText(day.plan)
        return tr("Next: {day} ({length})", ["day": day.id.title, "length": length]) + " · " + count
    }

    /// Starts the next day of program `name`.
    func continueProgram(_ name: String) {
        guard let program = try? ledger.program(named: name),
            let day = ledger.store.load(name, of: program).progress.nextDay(in: program)
        else { return }
        startDay(name, day)
    }

    /// Shows program `name`'s page (or, with `show` false, brings it up to date where it is). Its day rows are made
    /// when another program (or another version of it) is shown, and otherwise updated in place.
    private func open(_ name: String, show: Bool = true) {
        guard let program = try? ledger.program(named: name) else {
            shown = nil
            if Self.visiblePage(leaflet.c) == "program" { adw_leaflet_set_visible_child_name(leaflet.c, "list") }
            return
        }
        // The rows hold the program's title (Send to Watch names its files by it) and its days.
        let layout =
            "\(name) \(program.name)\n"
            + program.days.map { "\($0.id) \(PlanWriter.oneLineItems(of: $0.plan))" }
            .joined(separator: "\n")
        if shown != name || layout != shownLayout {
            if shown != name { showReminder(name) }
            shown = name
            shownLayout = layout
            removeChildren(weeks)
            dayRows = [:]
            sendSlots = []
            for week in 1...max(program.weekCount, 1) {
                let days = program.days(ofWeek: week)
                guard !days.isEmpty else { continue }
                let group = AdwPreferencesGroup.checked(adw_preferences_group_new())
                adw_preferences_group_set_title(group, tr("Week {week}", ["week": "\(week)"]))
                let weekSlot = Self.slot()
                adw_preferences_group_set_header_suffix(group, weekSlot.widget)
                sendSlots.append(
                    (
                        weekSlot, tr("Send Week {week} to Watch", ["week": "\(week)"]),
                        tr("Send every day of week {week} to the watch as workouts", ["week": "\(week)"]),
                        days.map { ($0.plan, Program.fileStem(program: program.name, day: $0.id)) }
                    ))
                for day in days {
                    let made = dayRow(name, day)
                    dayRows[day.id] = (made.row, made.makeNext)
                    sendSlots.append(
                        (
                            made.send, tr("Send to Watch"),
                            tr("Send {day} to the watch as a workout", ["day": day.id.title]),
                            [(day.plan, Program.fileStem(program: program.name, day: day.id))]
                        ))
                    adw_preferences_group_add(group, made.row.widget)
                }
                append(weeks, group)
            }
            showSendControls()
        }
        let progress = ledger.store.load(name, of: program).progress
        let nextDay = progress.nextDay(in: program)
        setText(title, program.name)
        accessibleName(page, program.name)
        setText(next, Self.summary(program, progress))
        gtk_widget_set_sensitive(continueButton.widget, nextDay == nil ? 0 : 1)
        for day in program.days {
            guard let (row, makeNext) = dayRows[day.id] else { continue }
            var state = PlanReport.timeText(day.plan)
            if day.id == nextDay {
                state += " · " + tr("next")
            } else if progress.isDone(day.id) {
                state += " · " + tr("done")
            }
            row.setSubtitle("\(state) · \(PlanReport.description(of: day.plan))")
            gtk_widget_set_visible(makeNext, day.id == nextDay ? 0 : 1)
        }
        if show {
            scrollToTop(programScroll)
            adw_leaflet_set_visible_child_name(leaflet.c, "program")
        }
    }

    /// A day: its timeline, Make Next and Send to Watch (while a watch is connected) as icons, and Start; its subtitle
    /// (length, done or next, workout) is set by ``open(_:show:)``. Make Next and Send to Watch are icons named in
    /// words (their tooltips say them too): three worded buttons left a 360-pixel window no room for the title, which
    /// broke letter by letter ("D-a-y 2"), and with a watch mounted the window could not be narrower than 520.
    private func dayRow(_ name: String, _ day: Program.Day) -> (
        row: UnsafeMutablePointer<AdwActionRow>, makeNext: Widget, send: UnsafeMutablePointer<GtkBox>
    ) {
        let row = actionRow(title: tr("Day {day}", ["day": "\(day.id.number)"]), subtitle: "")
        // One line, ellipsized if ever short of room, never broken between its letters.
        row.setTitleLines(1)
        row.addPrefix(Timeline.small(day.plan, restKinds: restKinds))
        let makeNext = iconButton(
            "go-jump-symbolic", tr("Make Next"), tr("{day} comes next", ["day": day.id.title]))
        on(makeNext, .clicked) { [unowned self] in
            change { program, progress throws(ProgramProgressError) in try progress.go(to: day.id, in: program) }
        }
        row.addSuffix(makeNext)
        let send = Self.slot()
        row.addSuffix(send)
        let start: Widget = gtk_button_new_with_label(tr("Start"))
        gtk_widget_set_valign(start, GTK_ALIGN_CENTER)
        accessibleDescription(start, tr("Start {day}", ["day": day.id.title]))
        on(start, .clicked) { [unowned self] in startDay(name, day.id) }
        row.addSuffix(start)
        return (row, makeNext, send)
    }

    /// A place for a Send to Watch control, filled by ``showSendControls()``.
    private static func slot() -> UnsafeMutablePointer<GtkBox> {
        let slot = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0))
        gtk_widget_set_valign(slot.widget, GTK_ALIGN_CENTER)
        return slot
    }

    /// Each day's and week's Send to Watch for the watches connected now: none without a watch; a button for one; for
    /// several, a menu button whose popover has a button per watch ("Send to fenix 6").
    private func showSendControls() {
        for (slot, name, description, days) in sendSlots {
            removeChildren(slot)
            gtk_widget_set_visible(slot.widget, watches.isEmpty ? 0 : 1)
            if watches.count == 1, let only = watches.first {
                let button = iconButton("send-to-symbolic", name, description)
                on(button, .clicked) { [unowned self] in sendToWatch(days, only) }
                append(slot, button)
            } else if watches.count > 1 {
                append(slot, sendMenu(name, description, days))
            }
        }
    }

    /// A menu button named `name` whose popover offers each connected watch.
    private func sendMenu(_ name: String, _ description: String, _ days: [(plan: Plan, fileStem: String)]) -> Widget {
        let button = MenuButton.checked(gtk_menu_button_new())
        gtk_menu_button_set_icon_name(button.c, "send-to-symbolic")
        gtk_widget_add_css_class(button.widget, "flat")
        gtk_widget_set_tooltip_text(button.widget, name)
        accessibleName(button, name)
        accessibleDescription(button, description)
        let popover = GtkPopover.checked(gtk_popover_new())
        let choices = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
        for watch in watches {
            let choice: Widget = gtk_button_new_with_label(tr("Send to {watch}", ["watch": watch.name]))
            gtk_widget_add_css_class(choice, "flat")
            on(choice, .clicked) { [unowned self] in
                gtk_popover_popdown(popover)
                sendToWatch(days, watch)
            }
            append(choices, choice)
        }
        gtk_popover_set_child(popover, choices.widget)
        gtk_menu_button_set_popover(button.c, popover.widget)
        return button.widget
    }

    /// A flat icon button named `name` (a screen reader says it, the tooltip shows it) that does `description`.
    private func iconButton(_ icon: String, _ name: String, _ description: String) -> Widget {
        let button: Widget = gtk_button_new_from_icon_name(icon)
        gtk_widget_add_css_class(button, "flat")
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
        gtk_widget_set_tooltip_text(button, name)
        accessibleName(button, name)
        accessibleDescription(button, description)
        return button
    }

    /// Changes the shown program's progress, which the page and the list then show; a refusal ("nothing done yet")
    /// is a toast.
    private func change(_ body: (Program, inout ProgramProgress) throws(ProgramProgressError) -> Void) {
        guard let shown, let program = try? ledger.program(named: shown) else { return }
        do {
            _ = try ledger.store.update(shown, of: program) { progress throws(ProgramProgressError) in
                try body(program, &progress)
            }
        } catch {
            toast("\(error)")
        }
        fill()
    }

    /// Sets program `name`'s reminder to `calendar`, or removes it when `calendar` is empty, off the main thread
    /// (systemd's reload takes a moment); a toast says what was done, or what systemd said.
    private func setReminder(_ name: String, _ calendar: String) {
        let reminders = self.reminders
        let box = UncheckedBox(Unmanaged.passRetained(self))
        DispatchQueue.global(qos: .userInitiated).async {
            let said: String
            do throws(ProgramReminders.Failure) {
                if calendar.allSatisfy(\.isWhitespace) {
                    try reminders.remove(program: name)
                    said = tr("No more reminders.")
                } else {
                    let reminder: ProgramReminder
                    do throws(ProgramReminder.Refusal) {
                        reminder = try ProgramReminder(program: name, calendar: calendar)
                    } catch {
                        throw ProgramReminders.Failure(description: error.description)
                    }
                    let next = try reminders.install(reminder, intervalctl: InstallPrefix.sibling("intervalctl"))
                    said = ProgramReminders.setText(reminder.calendar, next: next)
                }
            } catch {
                said = error.description
            }
            onMainThread {
                let pages = box.value.takeRetainedValue()
                pages.toast(said)
                if pages.shown == name { pages.showReminder(name) }
            }
        }
    }

    /// The reminder row shows what program `name`'s reminder is now.
    private func showReminder(_ name: String) {
        reminderRow.text = reminders.calendar(of: name) ?? ""
    }

    private func askToStartOver() {
        guard let shown, let program = try? ledger.program(named: shown),
            let window = rootWindow(of: leaflet.widget)
        else { return }
        confirm(
            window, tr("Start {program} over?", ["program": program.name]),
            tr("Week 1, Day 1 comes next and no day counts as done. The history keeps every workout."),
            cancel: tr("Cancel"), destructive: tr("Start Over")
        ) { [unowned self] in
            change { program, progress in progress.reset(to: program) }
        }
    }

    /// Lists the programs again when a progress file changes (a day finished, `intervalctl program` used).
    private func watchProgress() {
        progressWatch = FileWatch(.folder(ledger.store.directory), settle: 150) { [weak self] in self?.fill() }
    }

    static func visiblePage(_ leaflet: OpaquePointer) -> String? {
        adw_leaflet_get_visible_child_name(leaflet).map { String(cString: $0) }
    }
}

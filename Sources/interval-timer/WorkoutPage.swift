import CGtk
import IntervalCore

/// The workout view (docs/reference.md §10): the segment's label and its time left in digits at least a third of the
/// page's height, coloured by kind, what comes next, where the workout is, and its controls.
final class WorkoutPage {
    let root: Widget
    private let pages: OpaquePointer
    private let running: Widget
    private let title: Widget
    private let countdown: Widget
    private let next: Widget
    private let position: Widget
    private let segmentBar: Widget
    private let planBar: Widget
    private let times: Widget
    private let pauseButton: Widget
    /// What the kind's colour is the background of.
    private let coloured: Widget
    private var shownTone: WorkoutDisplay.Tone?
    private var shownPaused = false
    /// The finish page's parts: its status page (title, what was done), the time per kind, and Start Again.
    private let finished: Widget
    private let finishedKinds: Widget
    private let startAgain: Widget
    private var startAgainText: (text: String, origin: String)?
    private let trace: FrameTrace?

    init(application: TimerApplication, trace: FrameTrace?) {
        self.trace = trace
        let idle = statusPage(
            icon: "org.intervald.Timer1", title: tr("No Workout Running"),
            description: tr("Choose a plan, or type one, to start a workout."))
        let choose = button(tr("Choose a Plan"), classes: ["pill", "suggested-action"]) { [unowned application] in
            application.show("plans")
        }
        gtk_widget_set_halign(choose, GTK_ALIGN_CENTER)
        adw_status_page_set_child(cast(idle), choose)

        title = label("", classes: ["title-1"])
        countdown = label("", classes: ["countdown"])
        gtk_label_set_wrap(cast(countdown), 0)
        gtk_widget_set_vexpand(countdown, 1)
        next = label("", classes: ["title-3"])
        position = label("")
        segmentBar = gtk_progress_bar_new()
        accessibleName(segmentBar, tr("Segment progress"))
        planBar = gtk_progress_bar_new()
        accessibleName(planBar, tr("Workout progress"))
        times = label("", classes: ["numeric"])
        let progress: Widget = gtk_grid_new()
        gtk_grid_set_column_spacing(cast(progress), 12)
        gtk_grid_set_row_spacing(cast(progress), 6)
        for (row, (caption, bar)) in [(tr("Interval"), segmentBar), (tr("Workout"), planBar)].enumerated() {
            let name = label(caption, classes: ["caption"], xalign: 0)
            gtk_grid_attach(cast(progress), name, 0, Int32(row), 1, 1)
            gtk_widget_set_hexpand(bar, 1)
            gtk_widget_set_valign(bar, GTK_ALIGN_CENTER)
            gtk_grid_attach(cast(progress), bar, 1, Int32(row), 1, 1)
        }

        // Icons over short words, so that the four fit a phone's width (360 px) in every language.
        let restart = Self.control(
            "media-skip-backward-symbolic", tr("Restart"), name: tr("Restart Interval"),
            tip: tr("Start this interval again (Left)")
        ) { [unowned application] in application.restart() }
        pauseButton = Self.control(
            "media-playback-pause-symbolic", tr("Pause"), name: tr("Pause"), tip: tr("Pause or resume (Space)")
        ) { [unowned application] in application.togglePause() }
        let skip = Self.control(
            "media-skip-forward-symbolic", tr("Skip"), name: tr("Skip"), tip: tr("Go to the next interval (Right)")
        ) { [unowned application] in application.skip() }
        let stop = Self.control(
            "media-playback-stop-symbolic", tr("Stop"), name: tr("Stop"), tip: tr("Stop the workout")
        ) { [unowned application] in application.askToStop() }
        let controls = box(GTK_ORIENTATION_HORIZONTAL, [restart, pauseButton, skip, stop])
        gtk_box_set_homogeneous(cast(controls), 1)
        gtk_widget_set_halign(controls, GTK_ALIGN_CENTER)

        running = box(
            GTK_ORIENTATION_VERTICAL, [title, countdown, next, position, progress, times, controls])
        setMargins(running, 18)
        // The digits are sized from the page's height (they must read across a room): the area under them reports
        // every new size, full screen included, without being part of the layout they change.
        let probe: Widget = gtk_drawing_area_new()
        let overlay: Widget = gtk_overlay_new()
        gtk_overlay_set_child(cast(overlay), probe)
        gtk_overlay_add_overlay(cast(overlay), running)
        gtk_widget_add_css_class(overlay, "workout")
        coloured = overlay

        // The end of a workout: how it ended, the time per kind, Done and Start Again.
        finished = statusPage(icon: "emblem-ok-symbolic", title: "")
        finishedKinds = boxedList()
        accessibleName(finishedKinds, tr("Time per kind"))
        // Their handlers are connected once the page is whole (below).
        let done: Widget = gtk_button_new_with_label(tr("Done"))
        gtk_widget_add_css_class(done, "pill")
        startAgain = gtk_button_new_with_label(tr("Start Again"))
        for name in ["pill", "suggested-action"] { gtk_widget_add_css_class(startAgain, name) }
        let actions = box(GTK_ORIENTATION_HORIZONTAL, [done, startAgain])
        gtk_widget_set_halign(actions, GTK_ALIGN_CENTER)
        let finishContent = box(GTK_ORIENTATION_VERTICAL, spacing: 24, [finishedKinds, actions])
        let clamp: Widget = adw_clamp_new()
        adw_clamp_set_maximum_size(cast(clamp), 420)
        adw_clamp_set_child(cast(clamp), finishContent)
        adw_status_page_set_child(cast(finished), clamp)

        pages = namedStack([("idle", idle), ("running", overlay), ("finished", finished)])
        root = cast(pages)
        let countdown = self.countdown
        onResize(probe) { width, height in
            Self.sizeDigits(countdown, width: width, height: height)
        }
        let pages = self.pages
        on(done, .clicked) { gtk_stack_set_visible_child_name(pages, "idle") }
        on(startAgain, .clicked) { [unowned self, unowned application] in
            guard let again = startAgainText else { return }
            application.start(text: again.text, origin: again.origin)
        }
    }

    /// The finish page for the workout that just ended, until Done, or until a workout runs again. `again` is the
    /// plan's text and origin when it can be started again.
    func showFinished(_ record: HistoryRecord, again: (text: String, origin: String)?) {
        let title =
            switch record.result {
            case .finished: tr("Workout Finished")
            case .stopped: tr("Workout Stopped")
            case .interrupted: tr("Workout Interrupted")
            }
        adw_status_page_set_title(cast(finished), title)
        adw_status_page_set_icon_name(
            cast(finished), record.result == .finished ? "emblem-ok-symbolic" : "media-playback-stop-symbolic")
        adw_status_page_set_description(
            cast(finished),
            tr(
                "{plan}: {done} of {planned}, {result}.",
                [
                    "plan": record.plan, "done": TimeText.clockToTheSecond(microseconds: record.doneDuration),
                    "planned": TimeText.clockToTheSecond(microseconds: record.plannedDuration),
                    "result": record.resultText,
                ]))
        removeChildren(finishedKinds, from: true)
        for (kind, duration) in record.timePerKind.sorted(by: { $0.value > $1.value }) {
            gtk_list_box_append(
                cast(finishedKinds),
                actionRow(title: Localization.label(kind), subtitle: TimeText.clockToTheSecond(microseconds: duration)))
        }
        startAgainText = again
        gtk_widget_set_visible(startAgain, again == nil ? 0 : 1)
        gtk_stack_set_visible_child_name(pages, "finished")
    }

    /// Shows `display`, or when it is nil the idle page (or the finish page, while it is shown).
    func show(_ display: WorkoutDisplay?, planName: String) {
        guard let display else {
            if String(cString: gtk_stack_get_visible_child_name(pages)) != "finished" {
                gtk_stack_set_visible_child_name(pages, "idle")
            }
            return
        }
        gtk_stack_set_visible_child_name(pages, "running")
        setText(title, display.title)
        if let trace, String(cString: gtk_label_get_text(cast(countdown))) != display.countdown {
            trace.digitsChanged(to: display.countdown)
        }
        setText(countdown, display.countdown)
        setText(next, display.next)
        setText(position, "\(planName) · \(display.position)")
        gtk_progress_bar_set_fraction(cast(segmentBar), display.segmentProgress)
        gtk_progress_bar_set_fraction(cast(planBar), display.planProgress)
        setText(times, display.times)
        if display.paused != shownPaused {
            Self.relabel(
                pauseButton, display.paused ? "media-playback-start-symbolic" : "media-playback-pause-symbolic",
                display.paused ? tr("Resume") : tr("Pause"))
            shownPaused = display.paused
        }
        if display.tone != shownTone {
            for tone in WorkoutDisplay.Tone.allCases { gtk_widget_remove_css_class(coloured, tone.rawValue) }
            gtk_widget_add_css_class(coloured, display.tone.rawValue)
            shownTone = display.tone
        }
    }

    /// A workout control: its icon over its word; `name` is what assistive technologies call it.
    private static func control(
        _ icon: String, _ word: String, name: String, tip: String, _ clicked: @escaping () -> Void
    ) -> Widget {
        let image: Widget = gtk_image_new_from_icon_name(icon)
        gtk_image_set_icon_size(cast(image), GTK_ICON_SIZE_LARGE)
        let caption = label(word, classes: ["caption"])
        gtk_label_set_wrap(cast(caption), 0)
        let button: Widget = gtk_button_new()
        gtk_button_set_child(cast(button), box(GTK_ORIENTATION_VERTICAL, spacing: 4, [image, caption]))
        gtk_widget_add_css_class(button, "control")
        // A click leaves the focus where it was: Space and the arrows keep acting on the workout after it.
        gtk_widget_set_focus_on_click(button, 0)
        gtk_widget_set_tooltip_text(button, tip)
        accessibleName(button, name)
        on(button, .clicked, clicked)
        return button
    }

    /// Gives the keyboard focus to Pause, as a media player's to its play button: Space presses it, and the arrows
    /// (kept by no control of this page) skip and restart.
    func focusPause() {
        gtk_widget_grab_focus(pauseButton)
    }

    /// Whether `widget` is one of this page's.
    func contains(_ widget: Widget) -> Bool {
        gtk_widget_is_ancestor(widget, root) != 0
    }

    /// Changes a control's icon and word (Pause and Resume).
    private static func relabel(_ button: Widget, _ icon: String, _ word: String) {
        guard let content = gtk_button_get_child(cast(button)), let image = gtk_widget_get_first_child(content),
            let caption = gtk_widget_get_next_sibling(image)
        else { return }
        gtk_image_set_from_icon_name(cast(image), icon)
        setText(caption, word)
        accessibleName(button, word)
    }

    /// Digits 42 % of the page's height (less when the page is too narrow for "00:00" at that size).
    private static func sizeDigits(_ countdown: Widget, width: Int32, height: Int32) {
        let points = max(12, min(Double(height) * 0.42, Double(width) / 3.4))
        let attributes = pango_attr_list_new()
        pango_attr_list_insert(attributes, pango_attr_size_new_absolute(Int32(points * Double(PANGO_SCALE))))
        gtk_label_set_attributes(cast(countdown), attributes)
        pango_attr_list_unref(attributes)
    }
}

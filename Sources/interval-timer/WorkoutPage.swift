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
    private let trace: FrameTrace?

    init(application: TimerApplication, trace: FrameTrace?) {
        self.trace = trace
        let idle: Widget = adw_status_page_new()
        adw_status_page_set_icon_name(cast(idle), "org.intervald.Timer1")
        adw_status_page_set_title(cast(idle), tr("No workout running"))
        adw_status_page_set_description(
            cast(idle), tr("Choose a plan to start one, or run 'intervalctl start' in a terminal."))
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

        let previous = button(tr("Previous")) { [unowned application] in application.restart() }
        gtk_widget_set_tooltip_text(previous, tr("Start this interval again (Left)"))
        pauseButton = button(tr("Pause"), classes: ["suggested-action"]) { [unowned application] in
            application.togglePause()
        }
        gtk_widget_set_tooltip_text(pauseButton, tr("Pause or resume (Space)"))
        let skip = button(tr("Skip")) { [unowned application] in application.skip() }
        gtk_widget_set_tooltip_text(skip, tr("Go to the next interval (Right)"))
        let stop = button(tr("Stop"), classes: ["destructive-action"]) { [unowned application] in application.stop() }
        let controls = box(GTK_ORIENTATION_HORIZONTAL, [previous, pauseButton, skip, stop])
        gtk_widget_set_halign(controls, GTK_ALIGN_CENTER)
        for control in [previous, pauseButton, skip, stop] { gtk_widget_add_css_class(control, "pill") }

        running = box(
            GTK_ORIENTATION_VERTICAL, [title, countdown, next, position, segmentBar, planBar, times, controls])
        setMargins(running, 24)
        // The digits are sized from the page's height (they must read across a room): the area under them reports
        // every new size, full screen included, without being part of the layout they change.
        let probe: Widget = gtk_drawing_area_new()
        let overlay: Widget = gtk_overlay_new()
        gtk_overlay_set_child(cast(overlay), probe)
        gtk_overlay_add_overlay(cast(overlay), running)
        gtk_widget_add_css_class(overlay, "workout")
        coloured = overlay

        let stack: Widget = gtk_stack_new()
        pages = cast(stack)
        gtk_stack_add_named(pages, idle, "idle")
        gtk_stack_add_named(pages, overlay, "running")
        root = stack
        let countdown = self.countdown
        onResize(probe) { width, height in
            Self.sizeDigits(countdown, width: width, height: height)
        }
    }

    /// Shows `display`, or the idle page when it is nil.
    func show(_ display: WorkoutDisplay?, planName: String) {
        guard let display else {
            gtk_stack_set_visible_child_name(pages, "idle")
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
        gtk_button_set_label(cast(pauseButton), display.paused ? tr("Resume") : tr("Pause"))
        if display.tone != shownTone {
            for tone in WorkoutDisplay.Tone.allCases { gtk_widget_remove_css_class(coloured, tone.rawValue) }
            gtk_widget_add_css_class(coloured, display.tone.rawValue)
            shownTone = display.tone
        }
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

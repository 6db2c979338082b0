import CGtk
import IntervalCore
import IntervalGLib

/// The workout view (docs/reference.md §10), laid out in ui/workout-page.ui: the segment's label and its time left in
/// digits at least a third of the page's height, coloured by kind, what comes next, where the workout is, and its
/// controls (the window's actions); no workout; the finish page.
final class WorkoutPage {
    let root: Widget
    /// Start Again on the finish page: the plan's text and origin.
    var startAgain: (_ text: String, _ origin: String) -> Void = { _, _ in }
    /// The idle page's Continue: the next day of the training program in progress.
    var continueTraining: () -> Void = {}
    /// The finish page's Continue after a program's day: the label for program `name`'s next day (nil: it has none),
    /// and starting that day.
    var continueLabel: (_ name: String) -> String? = { _ in nil }
    var continueProgram: (_ name: String) -> Void = { _ in }
    private let continueTrainingButton, choosePlanButton: UnsafeMutablePointer<GtkButton>
    private let layout: Builder
    private let pages: UnsafeMutablePointer<Stack>
    private let title, countdown, next, position, times, heartRate, machine: UnsafeMutablePointer<Label>
    private let segmentBar, planBar: UnsafeMutablePointer<ProgressBar>
    private let segmentCaption: UnsafeMutablePointer<Label>
    private let pauseButton, skipButton: UnsafeMutablePointer<GtkButton>
    /// Skip's word and tooltip as the layout gives them, for a timed step.
    private let skipWord, skipTooltip: String
    /// What the kind's colour is the background of.
    private let coloured: UnsafeMutablePointer<Overlay>
    private var shownTone: WorkoutDisplay.Tone?
    private var shownPaused = false
    private var shownOpen = false
    /// The finish page's parts: its status page (title, what was done), the time per kind, and Start Again.
    private let finished: UnsafeMutablePointer<StatusPage>
    private let finishedKinds: UnsafeMutablePointer<ListBox>
    /// Start Again, or after a program's day, Continue with the program's next day.
    private let startAgainButton: UnsafeMutablePointer<GtkButton>
    private let startAgainLabel: String
    private enum FinishOffer {
        case again(text: String, origin: String)
        /// The program's name.
        case continueProgram(String)
    }
    private var finishOffer: FinishOffer?
    private let trace: FrameTrace?

    init(trace: FrameTrace?) {
        self.trace = trace
        layout = Builder(PackageResources.workout_page_ui)
        pages = layout.get("pages", Stack.self)
        root = pages.widget
        (title, countdown, next, position, times, heartRate, machine) = (
            layout.get("title", Label.self), layout.get("countdown", Label.self), layout.get("next", Label.self),
            layout.get("position", Label.self), layout.get("times", Label.self), layout.get("heart-rate", Label.self),
            layout.get("machine", Label.self)
        )
        (segmentBar, planBar) = (layout.get("segment-bar", ProgressBar.self), layout.get("plan-bar", ProgressBar.self))
        (continueTrainingButton, choosePlanButton) = (
            layout.get("continue-training", GtkButton.self), layout.get("choose-plan", GtkButton.self)
        )
        segmentCaption = layout.get("segment-caption", Label.self)
        (pauseButton, skipButton) = (layout.get("pause", GtkButton.self), layout.get("skip", GtkButton.self))
        skipWord = String(cString: gtk_label_get_text(layout.get("skip-word", Label.self).c))
        skipTooltip = gtk_widget_get_tooltip_text(skipButton.widget).map { String(cString: $0) } ?? ""
        coloured = layout.get("coloured", Overlay.self)
        (finished, finishedKinds, startAgainButton) = (
            layout.get("finished", StatusPage.self), layout.get("finished-kinds", ListBox.self),
            layout.get("start-again", GtkButton.self)
        )
        startAgainLabel = String(cString: gtk_button_get_label(startAgainButton))
        let countdown = self.countdown
        let words = ["restart-word", "pause-word", "skip-word", "stop-word"].map { layout.get($0, Label.self) }
        // Every word a button may show: Pause reads Resume while paused, Skip reads Done in a step the person ends.
        let wordTexts = words.map { String(cString: gtk_label_get_text($0.c)) } + [tr("Resume"), tr("Done")]
        on(layout.get("probe", GtkDrawingArea.self), .resize) { width, height in
            Self.sizeDigits(countdown, width: width, height: height)
            Self.showWords(words, saying: wordTexts, ifTheyFit: width)
        }
        let pages = self.pages
        on(layout.get("done", GtkButton.self), .clicked) { gtk_stack_set_visible_child_name(pages.c, "idle") }
        on(continueTrainingButton, .clicked) { [unowned self] in continueTraining() }
        on(startAgainButton, .clicked) { [unowned self] in
            switch finishOffer {
            case .again(let text, let origin): startAgain(text, origin)
            case .continueProgram(let name): continueProgram(name)
            case nil: break
            }
        }
    }

    /// Offers the next day of the training program in progress on the idle page ("Continue Couch to 5K: Week 1, Day
    /// 2"), as the suggested button; nil offers none, and Choose a Plan is the suggestion again.
    func offerContinue(_ label: String?) {
        if let label { gtk_button_set_label(continueTrainingButton, label) }
        gtk_widget_set_visible(continueTrainingButton.widget, label == nil ? 0 : 1)
        if label == nil {
            gtk_widget_add_css_class(choosePlanButton.widget, "suggested-action")
        } else {
            gtk_widget_remove_css_class(choosePlanButton.widget, "suggested-action")
        }
    }

    /// The finish page for the workout that just ended, until Done, or until a workout runs again. `again` is the
    /// plan's text and origin when it can be started again; a program's day offers the program's next day instead
    /// (its progress may be written a moment after the record: ``refreshFinishOffer()`` follows it). `distance`, in
    /// metres, when its steps have paces. `plan`, when it is known, says what was planned ("6:00 + 2 open steps").
    func showFinished(
        _ record: HistoryRecord, again: (text: String, origin: String)?, plan: Plan?, distance: Double?
    ) {
        let title =
            switch record.result {
            case .finished: tr("Workout Finished")
            case .stopped: tr("Workout Stopped")
            case .interrupted: tr("Workout Interrupted")
            }
        adw_status_page_set_title(finished.c, title)
        adw_status_page_set_icon_name(
            finished.c, record.result == .finished ? "emblem-ok-symbolic" : "media-playback-stop-symbolic")
        adw_status_page_set_description(
            finished.c,
            tr(
                "{plan}: {done}, {result}.",
                ["plan": record.displayName, "done": record.doneText, "result": record.resultText]))
        removeChildren(finishedKinds)
        for (kind, duration) in record.timePerKind.sorted(by: { $0.value > $1.value }) {
            gtk_list_box_append(
                finishedKinds.c,
                actionRow(
                    title: Localization.kindName(kind), subtitle: TimeText.clockToTheSecond(microseconds: duration)
                ).widget)
        }
        if let distance {
            gtk_list_box_append(
                finishedKinds.c, actionRow(title: tr("Distance"), subtitle: PlanReport.distanceText(distance)).widget)
        }
        finishOffer =
            record.program.map { .continueProgram($0) } ?? again.map { .again(text: $0.text, origin: $0.origin) }
        refreshFinishOffer()
        gtk_stack_set_visible_child_name(pages.c, "finished")
    }

    /// Shows the finish page's offer as it stands: Start Again, or the program's next day.
    func refreshFinishOffer() {
        switch finishOffer {
        case .again:
            gtk_button_set_label(startAgainButton, startAgainLabel)
            gtk_widget_set_visible(startAgainButton.widget, 1)
        case .continueProgram(let name):
            let label = continueLabel(name)
            if let label { gtk_button_set_label(startAgainButton, label) }
            gtk_widget_set_visible(startAgainButton.widget, label == nil ? 0 : 1)
        case nil:
            gtk_widget_set_visible(startAgainButton.widget, 0)
        }
    }

    /// Shows `display`, or when it is nil the idle page (or the finish page, while it is shown).
    func show(_ display: WorkoutDisplay?, planName: String) {
        guard let display else {
            if String(cString: gtk_stack_get_visible_child_name(pages.c)) != "finished" {
                gtk_stack_set_visible_child_name(pages.c, "idle")
            }
            return
        }
        gtk_stack_set_visible_child_name(pages.c, "running")
        setText(title, display.title)
        if let trace, String(cString: gtk_label_get_text(countdown.c)) != display.countdown {
            trace.digitsChanged(to: display.countdown)
        }
        setText(countdown, display.countdown)
        show(display.heartRate, in: heartRate)
        show(display.machine, in: machine)
        setText(next, display.next)
        setText(position, "\(PlanReport.readableName(planName)) · \(display.position)")
        gtk_progress_bar_set_fraction(segmentBar.c, display.segmentProgress)
        if display.open != shownOpen {
            relabelSkip(open: display.open)
            shownOpen = display.open
        }
        gtk_progress_bar_set_fraction(planBar.c, display.planProgress)
        setText(times, display.times)
        if display.paused != shownPaused {
            relabelPause(paused: display.paused)
            shownPaused = display.paused
        }
        if display.tone != shownTone {
            for tone in WorkoutDisplay.Tone.allCases { gtk_widget_remove_css_class(coloured.widget, tone.rawValue) }
            gtk_widget_add_css_class(coloured.widget, display.tone.rawValue)
            shownTone = display.tone
        }
    }

    /// `reading` in `label`, named by what a screen reader says; the label hidden while there is none.
    private func show(_ reading: WorkoutDisplay.Reading?, in label: UnsafeMutablePointer<Label>) {
        gtk_widget_set_visible(label.widget, reading == nil ? 0 : 1)
        if let reading {
            setText(label, reading.shown)
            accessibleName(label, reading.spoken)
        }
    }

    /// Gives the keyboard focus to Pause, as a media player's to its play button: Space presses it, and the arrows
    /// (kept by no control of this page) skip and restart.
    func focusPause() {
        gtk_widget_grab_focus(pauseButton.widget)
    }

    /// Pause becomes Resume, and back: its icon, word and name.
    private func relabelPause(paused: Bool) {
        gtk_image_set_from_icon_name(
            layout.get("pause-icon", Image.self).c,
            paused ? "media-playback-start-symbolic" : "media-playback-pause-symbolic")
        let word = paused ? tr("Resume") : tr("Pause")
        setText(layout.get("pause-word", Label.self), word)
        accessibleName(pauseButton.widget, word)
    }

    /// Skip becomes Done in a step the person ends, and back: its icon, word, name and tooltip; the segment's progress,
    /// which has no end to go to, is hidden meanwhile.
    private func relabelSkip(open: Bool) {
        gtk_image_set_from_icon_name(
            layout.get("skip-icon", Image.self).c, open ? "object-select-symbolic" : "media-skip-forward-symbolic")
        let word = open ? tr("Done") : skipWord
        setText(layout.get("skip-word", Label.self), word)
        accessibleName(skipButton.widget, word)
        gtk_widget_set_tooltip_text(skipButton.widget, open ? tr("End this step (Right)") : skipTooltip)
        for part in [segmentCaption.widget, segmentBar.widget] { gtk_widget_set_visible(part, open ? 0 : 1) }
    }

    /// The controls' words under their icons where four buttons as wide as the longest of `texts` fit the page's
    /// `width`; icons alone where they do not ("Überspringen" made the four 460 px wide, and a 360 px window cut
    /// Beenden off). The buttons keep their accessible names and tooltips.
    private static func showWords(
        _ words: [UnsafeMutablePointer<Label>], saying texts: [String], ifTheyFit width: Int32
    ) {
        guard let word = words.first else { return }
        let widths: [Int32] = texts.map { text in
            let measure = gtk_widget_create_pango_layout(word.widget, text)
            defer { g_object_unref(UnsafeMutableRawPointer(measure)) }
            var (wordWidth, wordHeight): (Int32, Int32) = (0, 0)
            pango_layout_get_pixel_size(measure, &wordWidth, &wordHeight)
            return wordWidth
        }
        let widest = widths.max() ?? 0
        // A button's padding and border (Adwaita's 10 px a side, and the control's), the box's 12 px between
        // buttons, and the page's 18 px margins.
        let needed = 4 * (widest + buttonPadding) + 3 * 12 + 2 * 18
        for word in words { gtk_widget_set_visible(word.widget, width >= needed ? 1 : 0) }
    }

    private static let buttonPadding: Int32 = 28

    /// Digits 42 % of the page's height (less when the page is too narrow for "00:00" at that size).
    private static func sizeDigits(_ countdown: UnsafeMutablePointer<Label>, width: Int32, height: Int32) {
        let points = max(12, min(Double(height) * 0.42, Double(width) / 3.4))
        let attributes = pango_attr_list_new()
        pango_attr_list_insert(attributes, pango_attr_size_new_absolute(Int32(points * Double(PANGO_SCALE))))
        gtk_label_set_attributes(countdown.c, attributes)
        pango_attr_list_unref(attributes)
    }
}

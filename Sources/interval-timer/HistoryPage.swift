import CGtk
import Dispatch
import Glibc
import IntervalCore
import IntervalRuntime

/// The history (docs/reference.md §10), laid out in ui/history-page.ui: a chart of minutes per week, work and rest in
/// their colours, drawn with cairo in the theme's text colour, and the workouts, newest first; dates and times in the
/// person's locale and time zone. No workouts yet, and a history that cannot be read, are status pages.
final class HistoryPage {
    let root: Widget
    private unowned let application: TimerApplication
    private let layout: Builder
    private let pages: UnsafeMutablePointer<Stack>
    private let unreadablePage: UnsafeMutablePointer<StatusPage>
    private let chartArea: UnsafeMutablePointer<GtkDrawingArea>
    private let legend, summary: UnsafeMutablePointer<Label>
    private let list: UnsafeMutablePointer<ListBox>
    private var chart: HistoryChart?
    /// A file chooser of Export, while it is open.
    private var chooser: OpaquePointer?
    /// A toast: what an export did.
    var toast: (_ text: String) -> Void = { _ in }

    private static let weeks = 8

    init(application: TimerApplication) {
        self.application = application
        layout = Builder(PackageResources.history_page_ui)
        pages = layout.get("pages", Stack.self)
        root = pages.widget
        (chartArea, legend, summary, list) = (
            layout.get("chart", GtkDrawingArea.self), layout.get("legend", Label.self),
            layout.get("summary", Label.self), layout.get("list", ListBox.self)
        )
        unreadablePage = layout.get("unreadable", StatusPage.self)
        insertActions(into: root, "history") { actions in
            addAction(to: actions, "export-fit") { [unowned self] _ in exportActivities() }
            addAction(to: actions, "export-csv") { [unowned self] _ in exportCSV() }
        }
        setDrawing(chartArea) { [unowned self] cairo, width, height in
            if let chart { draw(chart, cairo, Double(width), Double(height)) }
        }
        reload()
    }

    /// Reads the history file again (it grows when a workout ends).
    func reload() {
        let read: [HistoryRecord]
        let unreadable: Int
        do throws(FileError) {
            (read, unreadable) = try application.store.history()
        } catch {
            adw_status_page_set_description(unreadablePage.c, error.description)
            gtk_stack_set_visible_child_name(pages.c, "unreadable")
            return
        }
        guard !read.isEmpty else {
            gtk_stack_set_visible_child_name(pages.c, "empty")
            return
        }
        gtk_stack_set_visible_child_name(pages.c, "records")
        let chart = HistoryChart(
            read, now: WallClock.microseconds(), utcOffset: LocalTime.utcOffset, restKinds: application.restKinds,
            count: Self.weeks)
        self.chart = chart
        if chart.tones.isEmpty {
            setText(legend, tr("No workouts in the last {count} weeks.", ["count": "\(Self.weeks)"]))
        } else {
            let entries = chart.tones.map { tone in
                let kinds = (chart.kinds[tone] ?? []).map { Localization.kindName($0) }.joined(separator: ", ")
                return "<span foreground=\"\(ToneColours.hex(tone))\">■</span> " + markupEscaped(kinds)
            }
            gtk_label_set_markup(legend.c, entries.joined(separator: "   "))
        }
        gtk_widget_queue_draw(chartArea.widget)
        // The chart's figures in words, for a screen reader.
        let thisWeek = Int((chart.weeks.last?.total ?? 0).rounded())
        accessibleDescription(chartArea.widget, tr("{minutes} minutes this week", ["minutes": "\(thisWeek)"]))

        let totals = HistoryTotals(read)
        var summaryText =
            trn("{count} workout", "{count} workouts", totals.count) + ", "
            + TimeText.clockToTheSecond(microseconds: totals.doneDuration)
        if unreadable > 0 {
            summaryText +=
                "\n"
                + trn(
                    "{count} line of the history cannot be read.", "{count} lines of the history cannot be read.",
                    unreadable)
        }
        setText(summary, summaryText)
        removeChildren(list)
        let when = LocaleDateFormats.hoursAndMinutes(from: LocalTime.format(T_FMT))
        for record in read.reversed().prefix(200) {
            let started = LocalTime.text(record.startWall, "%x " + when)
            gtk_list_box_append(
                list.c,
                actionRow(
                    title: "\(record.displayName) — \(record.resultText)",
                    subtitle: ([started, HistoryTotals.text(ofTimePerKind: record.timePerKind)]
                        + [record.heartRateText, record.machineText].compactMap { $0 }).joined(separator: " · ")
                ).widget)
        }
    }

    /// Every workout as a row of a CSV file chosen in a file chooser (docs/fit.md).
    private func exportCSV() {
        guard chooser == nil, let parent = rootWindow(of: root), let records = readForExport() else { return }
        chooser = chooseFile(
            parent: parent, tr("Export the History as CSV"), action: GTK_FILE_CHOOSER_ACTION_SAVE, accept: tr("Export"),
            name: "intervald-history.csv", filter: (tr("CSV files"), ["*.csv"]),
            { [unowned self] path in
                export { () throws(FileError) in
                    try FileBytes.replace(path, with: Array(HistoryExport.csv(records).utf8))
                    return records.count
                }
            }
        ) { [unowned self] in chooser = nil }
    }

    /// Every workout as a FIT activity file in a folder chosen in a folder chooser (docs/fit.md).
    private func exportActivities() {
        guard chooser == nil, let parent = rootWindow(of: root), let records = readForExport() else { return }
        chooser = chooseFile(
            parent: parent, tr("Export for a Training Log"), action: GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
            accept: tr("Export"), name: nil, filter: nil,
            { [unowned self] folder in
                let paths = application.paths
                export { () throws(FileError) in
                    try ActivityFiles.write(records, into: folder, paths: paths).count
                }
            }
        ) { [unowned self] in chooser = nil }
    }

    /// Runs an export's `write` (which answers how many workouts went) on the export queue: a long history is hundreds
    /// of files, each fsync'd, which froze the window when written on the GTK thread. The toast saying how it went
    /// comes back to the GTK thread.
    private func export(_ write: @escaping @Sendable () throws(FileError) -> Int) {
        let box = UncheckedBox(Unmanaged.passRetained(self))
        Self.exports.async {
            let said: String
            do throws(FileError) {
                let count = try write()
                said = trn("Exported {count} workout", "Exported {count} workouts", count)
            } catch {
                said = error.description
            }
            onMainThread { box.value.takeRetainedValue().toast(said) }
        }
    }

    /// One export at a time, in the order they were asked for (two into one folder do not interleave).
    private static let exports = DispatchQueue(label: "interval-timer.export", qos: .userInitiated)

    /// The history, or nil once a toast says why it cannot be read.
    private func readForExport() -> [HistoryRecord]? {
        do throws(FileError) {
            return try application.store.history().records
        } catch {
            toast(error.description)
            return nil
        }
    }

    /// Stacked bars, one per week, work under rest; the axis and labels in the theme's text colour, so the chart
    /// reads in light and dark.
    private func draw(_ chart: HistoryChart, _ cairo: OpaquePointer, _ width: Double, _ height: Double) {
        var text = GdkRGBA()
        gtk_style_context_get_color(gtk_widget_get_style_context(chartArea.widget), &text)
        let labelHeight = 18.0
        let plotHeight = height - labelHeight
        let top = max(chart.weeks.map(\.total).max() ?? 0, 1)
        let slot = width / Double(max(chart.weeks.count, 1))
        let barWidth = slot * 0.6
        let dayAndMonth = LocaleDateFormats.dayAndMonth(from: LocalTime.format(D_FMT))
        cairo_select_font_face(cairo, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cairo, 11)
        for (index, week) in chart.weeks.enumerated() {
            let x = Double(index) * slot + (slot - barWidth) / 2
            var y = plotHeight
            for (tone, minutes) in zip(chart.tones, week.minutes) where minutes > 0 {
                let barHeight = minutes / top * (plotHeight - 16)
                let (red, green, blue) = ToneColours.components(tone)
                cairo_set_source_rgb(cairo, red, green, blue)
                cairo_rectangle(cairo, x, y - barHeight, barWidth, barHeight)
                cairo_fill(cairo)
                y -= barHeight
            }
            cairo_set_source_rgba(cairo, Double(text.red), Double(text.green), Double(text.blue), Double(text.alpha))
            if let label = week.label {
                cairo_move_to(cairo, x, y - 4)
                cairo_show_text(cairo, label)
            }
            cairo_move_to(cairo, x, height - 4)
            cairo_show_text(cairo, LocalTime.text(week.start, dayAndMonth))
        }
        cairo_set_source_rgba(cairo, Double(text.red), Double(text.green), Double(text.blue), 0.5)
        cairo_rectangle(cairo, 0, plotHeight, width, 1)
        cairo_fill(cairo)
    }
}

/// The C library's local time (the TZ and LC_TIME in effect), for the history's dates.
enum LocalTime {
    /// The offset from UTC at the instant `microseconds` (µs since the epoch), daylight saving included.
    static func utcOffset(_ microseconds: Int64) -> Int64 {
        var seconds = time_t(microseconds.quotientAndRemainder(dividingBy: 1_000_000).quotient)
        var local = tm()
        localtime_r(&seconds, &local)
        return Int64(local.tm_gmtoff) * 1_000_000
    }

    /// The instant formatted with strftime's `format` in local time.
    static func text(_ microseconds: Int64, _ format: String) -> String {
        var seconds = time_t(microseconds.quotientAndRemainder(dividingBy: 1_000_000).quotient)
        var local = tm()
        localtime_r(&seconds, &local)
        var buffer = [CChar](repeating: 0, count: 256)
        let count = strftime(&buffer, buffer.count, format, &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The locale's strftime format of `item` (D_FMT, T_FMT).
    static func format(_ item: Int) -> String {
        nl_langinfo(nl_item(item)).map { String(cString: $0) } ?? "%x"
    }
}

import CGtk
import IntervalCore
import IntervalRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The history (docs/reference.md §10): a chart of minutes per week by kind, drawn with cairo in the theme's text
/// colour, and the workouts, newest first.
final class HistoryPage {
    let root: Widget
    private unowned let application: TimerApplication
    private let chartArea: Widget
    private let legend: Widget
    private let list: Widget
    private let summary: Widget
    private var chart: HistoryChart?

    private static let weeks = 8

    init(application: TimerApplication) {
        self.application = application
        chartArea = gtk_drawing_area_new()
        gtk_drawing_area_set_content_height(cast(chartArea), 220)
        accessibleName(chartArea, tr("Minutes per week"))
        legend = label("", xalign: 0)
        summary = label("", xalign: 0)
        list = boxedList()
        accessibleName(list, tr("Workouts"))
        root = scrolledPage(
            box(
                GTK_ORIENTATION_VERTICAL,
                [
                    label(tr("Minutes per week"), classes: ["heading"], xalign: 0), chartArea, legend, summary,
                    label(tr("Workouts"), classes: ["heading"], xalign: 0), list,
                ]))
        setDrawing(chartArea) { [unowned self] cairo, width, height in
            if let chart { draw(chart, cairo, Double(width), Double(height)) }
        }
        reload()
    }

    /// Reads the history file again (it grows when a workout ends).
    func reload() {
        let read = (try? application.store.history())?.records ?? []
        let now = WallClock.microseconds()
        var seconds = time_t(now / 1_000_000)
        var local = tm()
        localtime_r(&seconds, &local)
        let chart = HistoryChart(read, now: now, utcOffset: Int64(local.tm_gmtoff) * 1_000_000, count: Self.weeks)
        self.chart = chart
        if chart.kinds.isEmpty {
            setText(legend, tr("No workouts in the last {count} weeks.", ["count": "\(Self.weeks)"]))
        } else {
            let entries = chart.kinds.enumerated().map { index, kind in
                let markup = g_markup_escape_text(Localization.label(kind), -1).map { text in
                    defer { g_free(text) }
                    return String(cString: text)
                }
                return
                    "<span foreground=\"\(Colours.hex(kind, restKinds: application.restKinds, shade: index))\">■</span> "
                    + (markup ?? "")
            }
            gtk_label_set_markup(cast(legend), entries.joined(separator: "   "))
        }
        gtk_widget_queue_draw(chartArea)
        // The chart's figures in words, for a screen reader.
        let thisWeek = Int((chart.weeks.last?.total ?? 0).rounded())
        accessibleDescription(chartArea, tr("{minutes} minutes this week", ["minutes": "\(thisWeek)"]))

        let totals = HistoryTotals(read)
        setText(
            summary,
            trn("{count} workout", "{count} workouts", totals.count) + ", "
                + TimeText.clockToTheSecond(microseconds: totals.doneDuration))
        removeChildren(list, from: true)
        for record in read.reversed().prefix(200) {
            let kinds = record.timePerKind.sorted { $0.value > $1.value }
                .map { "\(Localization.label($0.key)) \(TimeText.clockToTheSecond(microseconds: $0.value))" }
            gtk_list_box_append(
                cast(list),
                actionRow(
                    title: "\(record.plan) — \(record.resultText)",
                    subtitle: "\(record.startText) · " + kinds.joined(separator: ", ")))
        }
        if read.isEmpty {
            gtk_list_box_append(cast(list), actionRow(title: tr("No workouts recorded yet."), subtitle: ""))
        }
    }

    /// Stacked bars, one per week, a kind per colour; the axis and labels in the theme's text colour, so the chart
    /// reads in light and dark.
    private func draw(_ chart: HistoryChart, _ cairo: OpaquePointer, _ width: Double, _ height: Double) {
        var text = GdkRGBA()
        gtk_style_context_get_color(gtk_widget_get_style_context(chartArea), &text)
        let labelHeight = 18.0
        let plotHeight = height - labelHeight
        let top = max(chart.weeks.map(\.total).max() ?? 0, 1)
        let slot = width / Double(max(chart.weeks.count, 1))
        let barWidth = slot * 0.6
        cairo_select_font_face(cairo, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cairo, 11)
        for (index, week) in chart.weeks.enumerated() {
            let x = Double(index) * slot + (slot - barWidth) / 2
            var y = plotHeight
            for (shade, (kind, minutes)) in zip(chart.kinds, week.minutes).enumerated() where minutes > 0 {
                let barHeight = minutes / top * (plotHeight - 16)
                let (red, green, blue) = Colours.kind(kind, restKinds: application.restKinds, shade: shade)
                cairo_set_source_rgb(cairo, red, green, blue)
                cairo_rectangle(cairo, x, y - barHeight, barWidth, barHeight)
                cairo_fill(cairo)
                y -= barHeight
            }
            cairo_set_source_rgba(cairo, Double(text.red), Double(text.green), Double(text.blue), Double(text.alpha))
            if week.total > 0 {
                cairo_move_to(cairo, x, y - 4)
                cairo_show_text(cairo, "\(Int(week.total.rounded()))")
            }
            var seconds = time_t(week.start / 1_000_000)
            var local = tm()
            localtime_r(&seconds, &local)
            cairo_move_to(cairo, x, height - 4)
            cairo_show_text(cairo, "\(local.tm_mday)/\(local.tm_mon + 1)")
        }
        cairo_set_source_rgba(cairo, Double(text.red), Double(text.green), Double(text.blue), 0.5)
        cairo_rectangle(cairo, 0, plotHeight, width, 1)
        cairo_fill(cairo)
    }
}

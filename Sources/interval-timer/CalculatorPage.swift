import CGtk
import IntervalCore
import IntervalGLib

/// The run calculator (docs/reference.md §10), Interval RunCalc's heart: lock the one of time, distance and pace to
/// solve, enter the other two. The fields are put together as `intervalctl calc` reads its terms and solved by the same
/// core (`PlanParser.parseRun`, ``RunCalculation``), at every keystroke. Numbers are shown with the user's decimal
/// separator, and read with it or with the dot.
final class CalculatorPage {
    let root: Widget
    private let layout: Builder
    private var solving = RunCalculation.Quantity.time
    /// The solved value is being written into its field: its `changed` must not solve again.
    private var filling = false
    private let time: UnsafeMutablePointer<GtkEntry>
    private let distance: UnsafeMutablePointer<GtkEntry>
    private let distanceUnit: UnsafeMutablePointer<DropDown>
    private let pace: UnsafeMutablePointer<GtkEntry>
    private let paceUnit: UnsafeMutablePointer<DropDown>
    private let splitsUnit: UnsafeMutablePointer<DropDown>
    private let answer: UnsafeMutablePointer<Label>
    private let splits: UnsafeMutablePointer<ListBox>

    /// The distance units, as the plan language writes them, and their length.
    private static let distanceUnits: [(name: String, metres: Double)] = [("km", 1000), ("mi", Pace.metresPerMile)]
    /// The pace units: as shown, what the plan language appends to the number, and how a pace reads in them.
    private static let paceUnits: [(shown: String, written: String, reading: @Sendable (Pace) -> String)] = [
        ("min/km", "/km", { TimeText.clock(seconds: $0.secondsPerKilometre) }),
        ("min/mi", "/mi", { TimeText.clock(seconds: $0.secondsPerMile) }),
        ("km/h", " km/h", { PlanReport.format1($0.kilometresPerHour) }),
        ("mph", " mph", { PlanReport.format1($0.milesPerHour) }),
    ]

    init() {
        layout = Builder(PackageResources.calculator_page_ui)
        root = layout.get("page", ScrolledWindow.self).widget
        (time, distance, pace) = (
            layout.get("time", GtkEntry.self), layout.get("distance", GtkEntry.self), layout.get("pace", GtkEntry.self)
        )
        (distanceUnit, paceUnit, splitsUnit) = (
            layout.get("distance-unit", DropDown.self), layout.get("pace-unit", DropDown.self),
            layout.get("splits-unit", DropDown.self)
        )
        (answer, splits) = (layout.get("answer", Label.self), layout.get("splits", ListBox.self))
        for (unit, name) in [
            (distanceUnit, tr("Distance unit")), (paceUnit, tr("Pace unit")), (splitsUnit, tr("Splits")),
        ] {
            accessibleName(dropDown: unit.widget, name)
        }
        Self.setItems(distanceUnit, Self.distanceUnits.map(\.name))
        Self.setItems(paceUnit, Self.paceUnits.map(\.shown))
        let (solveTime, solveDistance, solvePace) = (
            layout.get("solve-time", GtkToggleButton.self), layout.get("solve-distance", GtkToggleButton.self),
            layout.get("solve-pace", GtkToggleButton.self)
        )

        for (button, quantity) in [
            (solveTime, RunCalculation.Quantity.time), (solveDistance, .distance), (solvePace, .pace),
        ] {
            on(button, .toggled) { [unowned self] in
                if gtk_toggle_button_get_active(button) != 0 {
                    solving = quantity
                    solve()
                }
            }
        }
        for field in [time, distance, pace] { on(field, .changed) { [unowned self] in solve() } }
        for unit in [distanceUnit, paceUnit, splitsUnit] {
            on(unit, .notify("selected")) { [unowned self] _ in solve() }
        }
        solve()
    }

    /// Solves what is locked from the other two fields and shows the answer and the splits, or what is wrong; the
    /// locked field shows the solved value in its own unit.
    private func solve() {
        guard !filling else { return }
        gtk_widget_set_sensitive(time.widget, solving == .time ? 0 : 1)
        gtk_widget_set_sensitive(distance.widget, solving == .distance ? 0 : 1)
        gtk_widget_set_sensitive(pace.widget, solving == .pace ? 0 : 1)
        var terms: [String] = []
        if solving != .time, let text = Self.text(time) { terms.append("in \(text)") }
        if solving != .distance, let text = Self.text(distance) {
            terms.append(text + selectedDistanceUnit.name)
        }
        if solving != .pace, let text = Self.text(pace) {
            terms.append("@ " + text + selectedPaceUnit.written)
        }
        guard terms.count == 2 else {
            fillSolved(nil)
            show(tr("Enter the other two."), splits: [])
            return
        }
        let given: RunCalculation.Given
        do throws(PlanDiagnostic) {
            given = try PlanParser.parseRun(terms.joined(separator: " "), origin: "<calc>")
        } catch {
            fillSolved(nil)
            show(error.message, splits: [])
            return
        }
        guard let calculation = RunCalculation(given) else {
            fillSolved(nil)
            show(tr("That run cannot be solved."), splits: [])
            return
        }
        fillSolved(calculation)
        var perUnit = calculation
        perUnit.miles = Self.selected(splitsUnit, of: 2) == 1  // "Splits per mile"
        show(calculation.answer, splits: perUnit.splitRows)
    }

    /// Writes the solved value into the locked field (or empties it), without solving again.
    private func fillSolved(_ calculation: RunCalculation?) {
        filling = true
        defer { filling = false }
        let field: UnsafeMutablePointer<GtkEntry>
        var text = ""
        switch solving {
        case .time:
            field = time
            if let calculation { text = TimeText.clock(microseconds: calculation.time) }
        case .distance:
            field = distance
            if let calculation { text = PlanReport.format2(calculation.metres / selectedDistanceUnit.metres) }
        case .pace:
            field = pace
            if let pace = calculation?.pace { text = selectedPaceUnit.reading(pace) }
        }
        field.text = text
    }

    /// The answer, and a row per split (the distance, the time at it); a list of thousands (an ultramarathon in
    /// kilometres) shows its first ones and the finish.
    private func show(_ text: String, splits rows: [(distance: String, time: String)]) {
        setText(answer, text)
        removeChildren(splits)
        let shown =
            rows.count > Self.splitRowsShown
            ? Array(rows.prefix(Self.splitRowsShown - 1)) + [rows[rows.count - 1]] : rows
        for (distance, time) in shown {
            gtk_list_box_append(splits.c, actionRow(title: distance, subtitle: time).widget)
        }
        gtk_widget_set_visible(splits.widget, rows.isEmpty ? 0 : 1)
    }

    private static let splitRowsShown = 200

    /// The field's text as the plan language reads it (the user's decimal separator, or the dot), nil when empty.
    private static func text(_ entry: UnsafeMutablePointer<GtkEntry>) -> String? {
        let text = entry.text
        return text.allSatisfy(\.isWhitespace) ? nil : Localization.decimalInput(text)
    }

    private var selectedDistanceUnit: (name: String, metres: Double) {
        Self.distanceUnits[Self.selected(distanceUnit, of: Self.distanceUnits.count)]
    }

    private var selectedPaceUnit: (shown: String, written: String, reading: @Sendable (Pace) -> String) {
        Self.paceUnits[Self.selected(paceUnit, of: Self.paceUnits.count)]
    }

    private static func selected(_ dropDown: UnsafeMutablePointer<DropDown>, of count: Int) -> Int {
        min(Int(gtk_drop_down_get_selected(dropDown.c)), count - 1)
    }

    /// Gives a unit list its items, from the tables above.
    private static func setItems(_ dropDown: UnsafeMutablePointer<DropDown>, _ items: [String]) {
        let strings = items.map { UnsafePointer(strdup($0)) } + [nil]
        defer { strings.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        let model = gtk_string_list_new(strings)
        gtk_drop_down_set_model(dropDown.c, model)
        g_object_unref(UnsafeMutableRawPointer(model))
    }
}

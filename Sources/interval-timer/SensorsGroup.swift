import CGtk
import Dispatch
import IntervalBus
import IntervalCore
import IntervalGLib
import IntervalRuntime
import IntervalSettings

/// Preferences' Sensors group (docs/sensors.md): a row for each heart-rate strap, treadmill and bike BlueZ knows, its
/// kind, connection and battery under its name; the chosen strap and the chosen machine checked. Checking a row
/// chooses it for its kind, as `intervalctl sensors use` does; its Forget button takes the choice out. Scan looks for
/// sensors for 10 s, as `intervalctl sensors scan` does, then lists them again. Without Bluetooth the group says why
/// in BlueZClient's sentence.
///
/// BlueZ is asked on ``bluetooth``, never on the GTK thread: a scan takes its 10 s, and a BlueZ that does not answer
/// takes 5 s a call. The answer is shown back on the GTK thread. Its widgets' signal handlers hold it.
final class SensorsGroup {
    let group: UnsafeMutablePointer<AdwPreferencesGroup>
    private let scanButton: Widget
    private let spinner: UnsafeMutablePointer<Spinner>
    /// The chosen strap and machine, as the settings hold them now.
    private let chosen: () -> Settings.Sensors
    /// Writes the choice for a kind (nil: forgotten).
    private let choose: (SensorKind, String?) -> Void
    /// The rows shown, each with its sensor, its check and its Forget button.
    private var rows:
        [(sensor: SensorDevice, row: Widget, check: UnsafeMutablePointer<GtkCheckButton>, forget: Widget)] =
            []
    /// False once the window is destroyed: an answer that comes after that changes nothing.
    private var isOpen = true
    /// While a scan looks: a list answered meanwhile (the one asked when the window opened) leaves its progress shown.
    private var isScanning = false

    /// How long Scan looks, as `intervalctl sensors scan` does by default.
    static let scanSeconds = 10

    init(chosen: @escaping () -> Settings.Sensors, choose: @escaping (SensorKind, String?) -> Void) {
        self.chosen = chosen
        self.choose = choose
        group = AdwPreferencesGroup.checked(adw_preferences_group_new())
        adw_preferences_group_set_title(group, tr("Sensors"))
        spinner = Spinner.checked(gtk_spinner_new())
        accessibleName(spinner, tr("Scanning"))
        gtk_widget_set_visible(spinner.widget, 0)
        scanButton = gtk_button_new_with_label(tr("Scan"))
        gtk_widget_set_valign(scanButton, GTK_ALIGN_CENTER)
        let suffix = GtkBox.checked(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6))
        gtk_box_append(suffix, spinner.widget)
        gtk_box_append(suffix, scanButton)
        adw_preferences_group_set_header_suffix(group, suffix.widget)
        on(group, .destroy) { [self] in isOpen = false }
        on(scanButton, .clicked) { [self] in scan() }
        ask(scanning: false) { client throws(SensorError) in try client.sensors() }
    }

    /// Looks for sensors for ``scanSeconds``, the button off and the spinner turning meanwhile.
    private func scan() {
        isScanning = true
        gtk_widget_set_sensitive(scanButton, 0)
        gtk_widget_set_visible(spinner.widget, 1)
        gtk_spinner_start(spinner.c)
        describe(Self.scanningSentence)
        let seconds = Self.scanSeconds
        ask(scanning: true) { client throws(SensorError) in try client.scan(seconds: seconds) }
    }

    private static var scanningSentence: String {
        tr("Looking for sensors for {seconds} s…", ["seconds": "\(scanSeconds)"])
    }

    /// Runs `question` on the Bluetooth queue with a client of its own, then shows its answer; `scanning`: the answer
    /// ends a scan.
    private func ask(
        scanning: Bool, _ question: @escaping @Sendable (BlueZClient) throws(SensorError) -> [SensorDevice]
    ) {
        let box = UncheckedBox(Unmanaged.passRetained(self))
        Self.bluetooth.async {
            let answer: Result<[SensorDevice], SensorError>
            do throws(SensorError) {
                answer = .success(try question(try BlueZClient(description: "interval-timer-bluetooth")))
            } catch {
                answer = .failure(error)
            }
            onMainThread { box.value.takeRetainedValue().show(answer, endingScan: scanning) }
        }
    }

    /// One question to BlueZ at a time: a list asked for during a scan comes after it.
    private static let bluetooth = DispatchQueue(label: "org.intervald.window.bluetooth", qos: .userInitiated)

    /// The rows of `answer`'s sensors, or the sentence that says why there are none.
    private func show(_ answer: Result<[SensorDevice], SensorError>, endingScan: Bool) {
        guard isOpen else { return }
        if endingScan {
            isScanning = false
            gtk_spinner_stop(spinner.c)
            gtk_widget_set_visible(spinner.widget, 0)
            gtk_widget_set_sensitive(scanButton, 1)
        }
        for shown in rows { adw_preferences_group_remove(group, shown.row) }
        rows = []
        let sensors: [SensorDevice]
        switch answer {
        case .success(let found): sensors = found
        case .failure(let error): return describe(isScanning ? Self.scanningSentence : error.description)
        }
        describe(
            isScanning
                ? Self.scanningSentence
                : sensors.isEmpty ? tr("No heart-rate strap, treadmill or bike is known; Scan looks for them.") : "")
        // A strap's checks are a group of their own, and the machines' (a treadmill or a bike) another.
        var firstOfKind: [String: UnsafeMutablePointer<GtkCheckButton>] = [:]
        for sensor in sensors {
            let check = GtkCheckButton.checked(gtk_check_button_new())
            let setting = Setting.chosenSensor(sensor.kind).key
            if let first = firstOfKind[setting] { gtk_check_button_set_group(check, first) }
            firstOfKind[setting] = firstOfKind[setting] ?? check
            let forget: Widget = gtk_button_new_with_label(tr("Forget"))
            gtk_widget_add_css_class(forget, "flat")
            gtk_widget_set_valign(forget, GTK_ALIGN_CENTER)
            accessibleName(forget, tr("Forget {name}", ["name": sensor.name]))
            let row = actionRow(title: sensor.name, subtitle: Self.details(of: sensor))
            row.addPrefix(check)
            row.addSuffix(forget)
            row.setActivatableWidget(check)
            adw_preferences_group_add(group, row.widget)
            rows.append((sensor, row.widget, check, forget))
        }
        markChosen()
        for shown in rows {
            let (sensor, check) = (shown.sensor, shown.check)
            on(check, .toggled) { [self] in
                guard gtk_check_button_get_active(check) != 0,
                    chosen().address(for: sensor.kind) != sensor.address
                else { return }
                choose(sensor.kind, sensor.address)
                markChosen()
            }
            on(shown.forget, .clicked) { [self] in
                choose(sensor.kind, nil)
                markChosen()
            }
        }
    }

    /// Checks the chosen rows, and shows Forget on them only (a choice the file refused is unchecked again).
    private func markChosen() {
        let chosen = chosen()
        for shown in rows {
            let isChosen = chosen.address(for: shown.sensor.kind) == shown.sensor.address
            gtk_check_button_set_active(shown.check, isChosen ? 1 : 0)
            gtk_widget_set_visible(shown.forget, isChosen ? 1 : 0)
        }
    }

    /// Kind, address, connection and battery, as `intervalctl sensors` lists them.
    private static func details(of sensor: SensorDevice) -> String {
        [
            sensor.kind.words, sensor.address, sensor.connected ? tr("connected") : tr("not connected"),
            sensor.battery.map { tr("battery {percent} %", ["percent": "\($0)"]) },
        ].compactMap { $0 }.joined(separator: " · ")
    }

    private func describe(_ sentence: String) {
        adw_preferences_group_set_description(group, sentence.isEmpty ? nil : sentence)
    }
}

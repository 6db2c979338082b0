import CGtk
import Dispatch
import Glibc
import IntervalCore
import IntervalGLib
import IntervalRuntime
import IntervalSettings
import IntervalSound
import Logging

/// Preferences (docs/reference.md §14): libadwaita's preferences window, built from the settings table (every setting
/// of ``Setting/all`` that has a ``Preference``). Each change is written into `intervald.toml` at once with
/// ``SettingsText`` (only that value's text changes, atomically), and the running daemon, which watches the file,
/// applies it from its next cue. Problems in the file are listed at the top, each with its line.
///
/// Its widgets' signal handlers hold it: it lives until the window is closed and destroyed.
final class PreferencesWindow {
    let window: UnsafeMutablePointer<AdwPreferencesWindow>
    private let path: String
    private let logger: Logger
    /// The settings as read when the window opened, with each change made since.
    private var settings: Settings
    /// Hears the settings after each change written.
    private let changed: (Settings) -> Void
    /// False once the window is destroyed: a sample that ends after that says nothing.
    private var isOpen = true

    init(
        parent: UnsafeMutablePointer<AdwApplicationWindow>?, path: String, logger: Logger,
        changed: @escaping (Settings) -> Void
    ) {
        self.path = path
        self.logger = logger
        self.changed = changed
        let reading = SettingsFile.read(path: path)
        settings = reading.settings
        window = AdwPreferencesWindow.checked(adw_preferences_window_new())
        window.setTitle(tr("Preferences"))
        if let parent { window.setTransient(for: parent) }
        window.setModal(true)
        let page = AdwPreferencesPage.checked(adw_preferences_page_new())
        // The title names the page's tab, which a screen reader reaches even when the one page shows no switcher.
        adw_preferences_page_set_title(page, tr("General"))
        if !reading.problems.isEmpty { adw_preferences_page_add(page, problemsGroup(reading.problems)) }
        for group in Preference.Group.allCases {
            let rows = Setting.all.compactMap { setting in setting.preference.map { (setting, $0) } }
                .filter { $0.1.group == group }
            let box = AdwPreferencesGroup.checked(adw_preferences_group_new())
            adw_preferences_group_set_title(box, tr(group.title))
            for (setting, preference) in rows {
                adw_preferences_group_add(box, row(setting, preference))
            }
            if group == .voice { adw_preferences_group_add(box, speakSampleRow().widget) }
            // The machine is chosen among the sensors, above the ceilings it is given.
            if group == .machine { adw_preferences_page_add(page, sensorsGroup().group) }
            adw_preferences_page_add(page, box)
        }
        adw_preferences_window_add(window, page)
        on(window, .destroy) { [self] in isOpen = false }
        // libadwaita 1.2 leaves its search button and field unnamed, and its page switchers named by their class.
        for button in descendants(of: window, GtkButton.self)
        where gtk_button_get_icon_name(button).map({ String(cString: $0) }) == "edit-find-symbolic" {
            accessibleName(button, tr("Search"))
        }
        for entry in descendants(of: window, SearchEntry.self) {
            accessibleName(entry, tr("Search Preferences"))
        }
        namePageSwitchers(in: window.widget)
    }

    func present() {
        window.present()
    }

    /// What is wrong in the file, as the daemon logs it: shown, so that nothing is overwritten unseen.
    private func problemsGroup(_ problems: [String]) -> UnsafeMutablePointer<AdwPreferencesGroup> {
        let group = AdwPreferencesGroup.checked(adw_preferences_group_new())
        adw_preferences_group_set_title(group, tr("Problems in the settings file"))
        adw_preferences_group_set_description(
            group, tr("These lines are not used; a change made here replaces the value it names."))
        for problem in problems {
            let row = actionRow(title: problem, subtitle: "")
            gtk_widget_add_css_class(row.widget, "error")
            adw_preferences_group_add(group, row.widget)
        }
        return group
    }

    // MARK: Rows, one per control

    private func row(_ setting: Setting, _ preference: Preference) -> Widget {
        let title = tr(preference.title)
        let current = preference.current(settings)
        switch preference.control {
        case .toggle:
            let toggle = Switch.checked(gtk_switch_new())
            gtk_switch_set_active(toggle.c, current == .bool(true) ? 1 : 0)
            on(toggle, .notify("active")) { [self] _ in
                write(setting, .bool(gtk_switch_get_active(toggle.c) != 0))
            }
            return suffixed(title, toggle.widget).widget
        case .number(let range, let words):
            return spinRow(
                setting, title, Double(range.lowerBound)...Double(range.upperBound), step: 1, digits: 0, words, current
            ) { .integer(Int(gtk_spin_button_get_value_as_int($0))) }.widget
        case .decimal(let range, let step, let words):
            return spinRow(setting, title, range, step: step, digits: 1, words, current) {
                .decimal(gtk_spin_button_get_value($0))
            }.widget
        case .choice(let values):
            return choiceRow(setting, title, values, current, named: Preference.choiceTitle).widget
        case .flags(let values, let always):
            return flagsRow(setting, title, values, always, current)
        case .sound(let cue):
            var sounds = Preference.namedSounds.map(\.id)
            if case .string(let sound) = current, !sounds.contains(sound) { sounds.append(sound) }
            let row = choiceRow(setting, title, sounds, current, named: Preference.soundTitle)
            let play: Widget = gtk_button_new_from_icon_name("media-playback-start-symbolic")
            gtk_widget_add_css_class(play, "flat")
            gtk_widget_set_valign(play, GTK_ALIGN_CENTER)
            accessibleName(play, tr("Play {sound}", ["sound": tr(cue.title)]))
            on(play, .clicked) { [self] in
                let index = Int(adw_combo_row_get_selected(row))
                if sounds.indices.contains(index) { playSample(sounds[index]) }
            }
            row.addSuffix(play)
            return row.widget
        case .text:
            return entryRow(setting, title, current) { text in Edit(preference.value(ofText: text)) }.widget
        case .words:
            return entryRow(setting, title, current) { text in
                .set(
                    .strings(
                        text.split(separator: ",").map { word in
                            String(word.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                        }.filter { !$0.isEmpty }))
            }.widget
        }
    }

    /// An action row ending in `control`, which the row's title names (libadwaita labels the activatable widget).
    private func suffixed(_ title: String, _ control: Widget) -> UnsafeMutablePointer<AdwActionRow> {
        let row = AdwActionRow.checked(adw_action_row_new())
        row.setTitle(title)
        gtk_widget_set_valign(control, GTK_ALIGN_CENTER)
        row.addSuffix(control)
        row.setActivatableWidget(control)
        return row
    }

    /// A row ending in a spin button of `range`, `words` saying the range under the title, that writes what `value`
    /// reads from the button.
    private func spinRow(
        _ setting: Setting, _ title: String, _ range: ClosedRange<Double>, step: Double, digits: UInt32,
        _ words: String, _ current: SettingValue, value: @escaping (OpaquePointer) -> SettingValue
    ) -> UnsafeMutablePointer<AdwActionRow> {
        // Committed as GTK commits a spin button's text: Enter, the focus leaving, the arrows; never a keystroke.
        let spin = SpinButton.checked(gtk_spin_button_new_with_range(range.lowerBound, range.upperBound, step))
        gtk_spin_button_set_digits(spin.c, digits)
        gtk_spin_button_set_numeric(spin.c, 1)
        switch current {
        case .integer(let number): gtk_spin_button_set_value(spin.c, Double(number))
        case .decimal(let number): gtk_spin_button_set_value(spin.c, number)
        default: break
        }
        accessibleDescription(spin, tr(words))
        on(spin, .valueChanged) { [self] in write(setting, value(spin.c)) }
        let row = suffixed(title, spin.widget)
        row.setSubtitle(tr(words))
        return row
    }

    /// The Sensors group, whose choices are written as `intervalctl sensors use` and `forget` write them.
    private func sensorsGroup() -> SensorsGroup {
        SensorsGroup(chosen: { [self] in settings.sensors }) { [self] kind, address in
            write(Setting.chosenSensor(kind), address.map(SettingValue.string))
        }
    }

    /// A combo row of `values`, each shown by its `name`, that writes the one chosen.
    private func choiceRow(
        _ setting: Setting, _ title: String, _ values: [String], _ current: SettingValue,
        named name: (String) -> String
    ) -> UnsafeMutablePointer<AdwComboRow> {
        let row = AdwComboRow.checked(adw_combo_row_new())
        row.setTitle(title)
        let model = gtk_string_list_new(nil)
        for value in values { gtk_string_list_append(model, name(value)) }
        adw_combo_row_set_model(row, model)
        g_object_unref(UnsafeMutableRawPointer(model))
        if case .string(let value) = current, let index = values.firstIndex(of: value) {
            adw_combo_row_set_selected(row, guint(index))
        }
        on(row, .notify("selected")) { [self] _ in
            let index = Int(adw_combo_row_get_selected(row))
            if values.indices.contains(index) { write(setting, .string(values[index])) }
        }
        return row
    }

    private func flagsRow(
        _ setting: Setting, _ title: String, _ values: [String], _ always: [String], _ current: SettingValue
    ) -> Widget {
        let row = AdwActionRow.checked(adw_action_row_new())
        row.setTitle(title)
        let chosen: [String] = if case .strings(let list) = current { list } else { [] }
        var checks: [(String, UnsafeMutablePointer<GtkCheckButton>)] = []
        for value in values {
            let check = GtkCheckButton.checked(gtk_check_button_new_with_label(Preference.choiceTitle(value)))
            gtk_check_button_set_active(check, chosen.contains(value) ? 1 : 0)
            gtk_widget_set_valign(check.widget, GTK_ALIGN_CENTER)
            row.addSuffix(check)
            checks.append((value, check))
        }
        for (_, check) in checks {
            on(check, .toggled) { [self] in
                let checked = checks.filter { gtk_check_button_get_active($0.1) != 0 }.map(\.0)
                write(setting, .strings(always + checked))
            }
        }
        return row.widget
    }

    /// What an entry's text asks for.
    private enum Edit {
        case set(SettingValue)
        /// Taken out of the file: back to its default.
        case remove

        init(_ value: SettingValue?) {
            self = value.map(Edit.set) ?? .remove
        }
    }

    /// An entry row showing `current`; its apply button writes what `edit` makes of the text.
    private func entryRow(
        _ setting: Setting, _ title: String, _ current: SettingValue, edit: @escaping (String) -> Edit
    ) -> UnsafeMutablePointer<AdwEntryRow> {
        let row = AdwEntryRow.checked(adw_entry_row_new())
        row.setTitle(title)
        let text: String =
            switch current {
            case .string(let text): text
            case .strings(let list): list.joined(separator: ", ")
            case .integer, .decimal, .bool: current.toml
            }
        row.text = text
        adw_entry_row_set_show_apply_button(row, 1)
        on(row, .apply) { [self] in
            switch edit(row.text) {
            case .set(let value): write(setting, value)
            case .remove: write(setting, nil)
            }
        }
        return row
    }

    /// A row whose button speaks a phrase as the next cue would.
    private func speakSampleRow() -> UnsafeMutablePointer<AdwActionRow> {
        let speak: Widget = gtk_button_new_with_label(tr("Speak"))
        gtk_widget_set_valign(speak, GTK_ALIGN_CENTER)
        let row = suffixed(tr("Speak a sample"), speak)
        sayNameOnce(speak)
        row.setSubtitle(tr("With the language and rate above"))
        on(speak, .clicked) { [self] in
            let sound = settings.sound
            let phrase = { SpokenCues.phrase(label: "Run", microseconds: 30_000_000) }
            let (text, english) = (phrase(), Localization.inEnglish(phrase))
            let logger = logger
            let box = UncheckedBox(Unmanaged.passRetained(self))
            DispatchQueue.global().async {
                let voice = SpeechVoice(language: sound.voiceLanguage, rate: sound.voiceRate, logger: logger)
                let failure = voice.sayToEnd(text, orInEnglish: english)
                onMainThread {
                    let preferences = box.value.takeRetainedValue()
                    guard let failure else { return }
                    preferences.toast(
                        tr("The sample could not be spoken: {reason}", ["reason": failure.description]))
                }
            }
        }
        return row
    }

    /// Plays `sound` as the daemon would, at the volume set here, off the main thread; says so if it cannot.
    private func playSample(_ sound: String) {
        let volume = settings.sound.volume
        let logger = logger
        let box = UncheckedBox(Unmanaged.passRetained(self))
        DispatchQueue.global().async {
            let failure = CanberraPlayer(volume: volume, preload: [], logger: logger).playToEnd(sound)
            onMainThread {
                let preferences = box.value.takeRetainedValue()
                guard let failure else { return }
                preferences.toast(
                    tr(
                        "{sound} could not be played: {reason}",
                        ["sound": Preference.soundTitle(sound), "reason": failure.description]))
            }
        }
    }

    // MARK: Writing

    /// Writes `value` (nil: the setting taken out) into the file; a refusal is shown as a toast.
    private func write(_ setting: Setting, _ value: SettingValue?) {
        let written: String?
        do throws(SettingsWriteError) {
            written = try SettingsFile.write(setting, value, at: path)
        } catch {
            return refused(error.description)
        }
        guard let edited = written else { return }
        settings = SettingsFile.read(edited, path: path).settings
        logger.info("Wrote a setting.", metadata: ["setting": "\(setting.name)"])
        changed(settings)
    }

    /// A setting that could not be written: said in a toast.
    private func refused(_ text: String) {
        logger.notice("Preferences: could not write a setting.", metadata: ["reason": "\(text)"])
        toast(text)
    }

    private func toast(_ text: String) {
        guard isOpen else { return }
        adw_preferences_window_add_toast(window, adw_toast_new(text))
    }
}

import CGtk
import Dispatch
import Glibc
import IntervalCore
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
    let window: Widget
    private let path: String
    private let logger: Logger
    /// The settings as read when the window opened, with each change made since.
    private var settings: Settings
    /// Hears the settings after each change written.
    private let changed: (Settings) -> Void
    /// False once the window is destroyed: a sample that ends after that says nothing.
    private var isOpen = true

    init(parent: Widget?, path: String, logger: Logger, changed: @escaping (Settings) -> Void) {
        self.path = path
        self.logger = logger
        self.changed = changed
        let reading = SettingsFile.read(path: path)
        settings = reading.settings
        window = adw_preferences_window_new()
        gtk_window_set_title(cast(window), tr("Preferences"))
        if let parent { gtk_window_set_transient_for(cast(window), cast(parent)) }
        gtk_window_set_modal(cast(window), 1)
        let page: Widget = adw_preferences_page_new()
        // The title names the page's tab, which a screen reader reaches even when the one page shows no switcher.
        adw_preferences_page_set_title(cast(page), tr("General"))
        if !reading.problems.isEmpty { adw_preferences_page_add(cast(page), cast(problemsGroup(reading.problems))) }
        for group in Preference.Group.allCases {
            let rows = Setting.all.compactMap { setting in setting.preference.map { (setting, $0) } }
                .filter { $0.1.group == group }
            let box: Widget = adw_preferences_group_new()
            adw_preferences_group_set_title(cast(box), tr(group.title))
            for (setting, preference) in rows {
                adw_preferences_group_add(cast(box), row(setting, preference))
            }
            if group == .voice { adw_preferences_group_add(cast(box), speakSampleRow()) }
            adw_preferences_page_add(cast(page), cast(box))
        }
        adw_preferences_window_add(cast(window), cast(page))
        on(window, .destroy) { [self] in isOpen = false }
        // libadwaita 1.2 leaves its search button and field unnamed, and its page switchers named by their class.
        for button in descendants(of: window, ofType: gtk_button_get_type())
        where gtk_button_get_icon_name(cast(button)).map({ String(cString: $0) }) == "edit-find-symbolic" {
            accessibleName(button, tr("Search"))
        }
        for entry in descendants(of: window, ofType: gtk_search_entry_get_type()) {
            accessibleName(entry, tr("Search Preferences"))
        }
        namePageSwitchers(in: window)
    }

    func present() {
        gtk_window_present(cast(window))
    }

    /// What is wrong in the file, as the daemon logs it: shown, so that nothing is overwritten unseen.
    private func problemsGroup(_ problems: [String]) -> Widget {
        let group: Widget = adw_preferences_group_new()
        adw_preferences_group_set_title(cast(group), tr("Problems in the settings file"))
        adw_preferences_group_set_description(
            cast(group), tr("These lines are not used; a change made here replaces the value it names."))
        for problem in problems {
            let row = actionRow(title: problem, subtitle: "")
            gtk_widget_add_css_class(row, "error")
            adw_preferences_group_add(cast(group), row)
        }
        return group
    }

    // MARK: Rows, one per control

    private func row(_ setting: Setting, _ preference: Preference) -> Widget {
        let title = tr(preference.title)
        let current = preference.current(settings)
        switch preference.control {
        case .toggle:
            let toggle: Widget = gtk_switch_new()
            gtk_switch_set_active(cast(toggle), current == .bool(true) ? 1 : 0)
            on(toggle, .notify("active")) { [self] _ in
                write(setting, .bool(gtk_switch_get_active(cast(toggle)) != 0))
            }
            return suffixed(title, toggle)
        case .number(let range, let words):
            // Committed as GTK commits a spin button's text: Enter, the focus leaving, the arrows; never a keystroke.
            let spin: Widget = gtk_spin_button_new_with_range(Double(range.lowerBound), Double(range.upperBound), 1)
            gtk_spin_button_set_numeric(cast(spin), 1)
            if case .integer(let number) = current { gtk_spin_button_set_value(cast(spin), Double(number)) }
            accessibleDescription(spin, tr(words))
            on(spin, .valueChanged) { [self] in
                write(setting, .integer(Int(gtk_spin_button_get_value_as_int(cast(spin)))))
            }
            let row = suffixed(title, spin)
            adw_action_row_set_subtitle(cast(row), tr(words))
            return row
        case .choice(let values):
            return choiceRow(setting, title, values, current, named: Preference.choiceTitle)
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
                let index = Int(adw_combo_row_get_selected(cast(row)))
                if sounds.indices.contains(index) { playSample(sounds[index]) }
            }
            adw_action_row_add_suffix(cast(row), play)
            return row
        case .text:
            return entryRow(setting, title, current) { text in Edit(preference.value(ofText: text)) }
        case .words:
            return entryRow(setting, title, current) { text in
                .set(
                    .strings(
                        text.split(separator: ",").map { word in
                            String(word.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                        }.filter { !$0.isEmpty }))
            }
        }
    }

    /// An action row ending in `control`, which the row's title names (libadwaita labels the activatable widget).
    private func suffixed(_ title: String, _ control: Widget) -> Widget {
        let row: Widget = adw_action_row_new()
        adw_preferences_row_set_title(cast(row), title)
        gtk_widget_set_valign(control, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(row), control)
        adw_action_row_set_activatable_widget(cast(row), control)
        return row
    }

    /// A combo row of `values`, each shown by its `name`, that writes the one chosen.
    private func choiceRow(
        _ setting: Setting, _ title: String, _ values: [String], _ current: SettingValue,
        named name: (String) -> String
    ) -> Widget {
        let row: Widget = adw_combo_row_new()
        adw_preferences_row_set_title(cast(row), title)
        let model = gtk_string_list_new(nil)
        for value in values { gtk_string_list_append(model, name(value)) }
        adw_combo_row_set_model(cast(row), model)
        g_object_unref(UnsafeMutableRawPointer(model))
        if case .string(let value) = current, let index = values.firstIndex(of: value) {
            adw_combo_row_set_selected(cast(row), guint(index))
        }
        on(row, .notify("selected")) { [self] _ in
            let index = Int(adw_combo_row_get_selected(cast(row)))
            if values.indices.contains(index) { write(setting, .string(values[index])) }
        }
        return row
    }

    private func flagsRow(
        _ setting: Setting, _ title: String, _ values: [String], _ always: [String], _ current: SettingValue
    ) -> Widget {
        let row: Widget = adw_action_row_new()
        adw_preferences_row_set_title(cast(row), title)
        let chosen: [String] = if case .strings(let list) = current { list } else { [] }
        var checks: [(String, Widget)] = []
        for value in values {
            let check: Widget = gtk_check_button_new_with_label(Preference.choiceTitle(value))
            gtk_check_button_set_active(cast(check), chosen.contains(value) ? 1 : 0)
            gtk_widget_set_valign(check, GTK_ALIGN_CENTER)
            adw_action_row_add_suffix(cast(row), check)
            checks.append((value, check))
        }
        for (_, check) in checks {
            on(check, .toggled) { [self] in
                let checked = checks.filter { gtk_check_button_get_active(cast($0.1)) != 0 }.map(\.0)
                write(setting, .strings(always + checked))
            }
        }
        return row
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
    ) -> Widget {
        let row: Widget = adw_entry_row_new()
        adw_preferences_row_set_title(cast(row), title)
        let text: String =
            switch current {
            case .string(let text): text
            case .strings(let list): list.joined(separator: ", ")
            case .integer(let number): "\(number)"
            case .bool(let flag): "\(flag)"
            }
        gtk_editable_set_text(cast(row), text)
        adw_entry_row_set_show_apply_button(cast(row), 1)
        on(row, .apply) { [self] in
            switch edit(String(cString: gtk_editable_get_text(cast(row)))) {
            case .set(let value): write(setting, value)
            case .remove: write(setting, nil)
            }
        }
        return row
    }

    /// A row whose button speaks a phrase as the next cue would.
    private func speakSampleRow() -> Widget {
        let speak: Widget = gtk_button_new_with_label(tr("Speak"))
        gtk_widget_set_valign(speak, GTK_ALIGN_CENTER)
        let row = suffixed(tr("Speak a sample"), speak)
        sayNameOnce(speak)
        adw_action_row_set_subtitle(cast(row), tr("With the language and rate above"))
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
        let text: String
        do throws(FileError) {
            text = String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self)
        } catch {
            guard error.errno == ENOENT else { return refused(error.description) }
            text = ""
        }
        let edited: String
        do throws(SettingsTextError) {
            edited = try SettingsText.setting(setting, to: value, in: text)
        } catch {
            return refused(error.description)
        }
        guard edited != text else { return }
        do throws(FileError) {
            if let slash = path.lastIndex(of: "/") { try FileBytes.makeDirectories(String(path[..<slash])) }
            try FileBytes.replace(path, with: Array(edited.utf8))
        } catch {
            return refused(error.description)
        }
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
        adw_preferences_window_add_toast(cast(window), adw_toast_new(text))
    }
}

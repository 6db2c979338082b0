import CGtk
import IntervalCore
import IntervalGLib

/// One answer to a question: its id, its button's label, and how the button looks.
struct Answer {
    let id: String
    let label: String
    var appearance = ADW_RESPONSE_DEFAULT
}

/// Asks a question over `parent` (a message dialog, the one way the window asks); `answered` gets the id of the
/// answer chosen, `cancel`'s for Escape. `preferred` (else the first answer) is the default, for Enter; `extra` (a
/// field, a text to select) stands under the body.
func ask(
    _ parent: UnsafeMutablePointer<some WindowClass>, _ heading: String, _ body: String?, answers: [Answer],
    cancel: String,
    preferred: String? = nil, extra: Widget? = nil, _ answered: @escaping (String) -> Void
) {
    let dialog = AdwMessageDialog.checked(adw_message_dialog_new(parent.gtkWindow, heading, body))
    if let extra { adw_message_dialog_set_extra_child(dialog, extra) }
    for answer in answers {
        adw_message_dialog_add_response(dialog, answer.id, answer.label)
        adw_message_dialog_set_response_appearance(dialog, answer.id, answer.appearance)
    }
    for button in descendants(of: dialog, GtkButton.self) { sayNameOnce(button.widget) }
    if let preferred = preferred ?? answers.first?.id {
        adw_message_dialog_set_default_response(dialog, preferred)
    }
    adw_message_dialog_set_close_response(dialog, cancel)
    on(dialog, .response, answered)
    dialog.present()
}

/// Asks a question whose answer is Cancel (the default, and Escape) or a destructive action: that runs `confirmed`.
func confirm(
    _ parent: UnsafeMutablePointer<some WindowClass>, _ heading: String, _ body: String, cancel: String,
    destructive: String,
    _ confirmed: @escaping () -> Void
) {
    ask(
        parent, heading, body,
        answers: [
            Answer(id: "cancel", label: cancel),
            Answer(id: "confirm", label: destructive, appearance: ADW_RESPONSE_DESTRUCTIVE),
        ],
        cancel: "cancel"
    ) { answer in
        if answer == "confirm" { confirmed() }
    }
}

/// A file chooser over `parent` (the portal's when the app is sandboxed), showing `filter`'s files (a name and its
/// patterns; nil: every file) or All files; a folder chooser with `GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER`. `chosen`
/// gets the path picked, then `closed` runs however it ended. The dialog, held until it answers.
func chooseFile(
    parent: UnsafeMutablePointer<GtkWindow>, _ title: String, action: GtkFileChooserAction, accept: String,
    name: String?,
    filter: (name: String, patterns: [String])?, _ chosen: @escaping (String) -> Void, closed: @escaping () -> Void
) -> OpaquePointer? {
    guard let dialog = gtk_file_chooser_native_new(title, parent, action, accept, tr("Cancel")) else {
        return nil
    }
    var filters: [(String, [String])] = filter.map { [($0.name, $0.patterns)] } ?? []
    if action != GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER { filters.append((tr("All files"), ["*"])) }
    for (filterName, patterns) in filters {
        let made = gtk_file_filter_new()
        gtk_file_filter_set_name(made, filterName)
        for pattern in patterns { gtk_file_filter_add_pattern(made, pattern) }
        gtk_file_chooser_add_filter(dialog, made)
        g_object_unref(UnsafeMutableRawPointer(made))
    }
    if let name { gtk_file_chooser_set_current_name(dialog, name) }
    // GtkNativeDialog's functions: a GtkFileChooserNative is one.
    let native: UnsafeMutablePointer<GtkNativeDialog> = cast(dialog)
    gtk_native_dialog_set_modal(native, 1)
    on(UnsafeMutableRawPointer(dialog), .nativeResponse) { response in
        defer {
            closed()
            g_object_unref(UnsafeMutableRawPointer(dialog))
        }
        guard response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(dialog) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let path = g_file_get_path(file) else { return }
        defer { g_free(path) }
        chosen(String(cString: path))
    }
    gtk_native_dialog_show(native)
    return dialog
}

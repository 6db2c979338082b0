import CGtk

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
    _ parent: Widget, _ heading: String, _ body: String?, answers: [Answer], cancel: String,
    preferred: String? = nil, extra: Widget? = nil, _ answered: @escaping (String) -> Void
) {
    let dialog: Widget = adw_message_dialog_new(cast(parent), heading, body)
    if let extra { adw_message_dialog_set_extra_child(cast(dialog), extra) }
    for answer in answers {
        adw_message_dialog_add_response(cast(dialog), answer.id, answer.label)
        adw_message_dialog_set_response_appearance(cast(dialog), answer.id, answer.appearance)
    }
    if let preferred = preferred ?? answers.first?.id {
        adw_message_dialog_set_default_response(cast(dialog), preferred)
    }
    adw_message_dialog_set_close_response(cast(dialog), cancel)
    on(dialog, .response, answered)
    gtk_window_present(cast(dialog))
}

/// Asks a question whose answer is Cancel (the default, and Escape) or a destructive action: that runs `confirmed`.
func confirm(
    _ parent: Widget, _ heading: String, _ body: String, cancel: String, destructive: String,
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

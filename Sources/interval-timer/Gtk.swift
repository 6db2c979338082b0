import CGtk
import CGtkShims
import IntervalRuntime

/// Every GTK widget, as the toolkit's constructors return it.
typealias Widget = UnsafeMutablePointer<GtkWidget>

// GTK's C types are a hierarchy that Swift sees as unrelated pointers (its cast macros do not import): a widget is
// handed to a function of its class through these, as C code would through GTK_BOX() and the like.

/// A GObject pointer as a pointer to another class in its hierarchy, typed (GtkBox, AdwApplication…) or opaque
/// (GtkLabel, GtkWindow…, whose structs GTK keeps private), as the expected argument says.
func cast<T, U>(_ pointer: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(OpaquePointer(pointer))
}

func cast<U>(_ pointer: UnsafeMutablePointer<U>) -> OpaquePointer {
    OpaquePointer(pointer)
}

func cast<T>(_ pointer: OpaquePointer) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(pointer)
}

// MARK: Signals

/// A Swift closure kept alive as a signal handler's or a source's data, released when GLib drops it.
private final class Handler {
    let callback: Any
    init(_ callback: Any) { self.callback = callback }

    /// The closure of `data`, if it has the type the thunk expects.
    static func from<Callback>(_ data: UnsafeMutableRawPointer?, as _: Callback.Type = Callback.self) -> Callback? {
        data.flatMap { Unmanaged<Handler>.fromOpaque($0).takeUnretainedValue().callback as? Callback }
    }

    static func retained(_ callback: Any) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(Handler(callback)).toOpaque()
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        data.map { Unmanaged<Handler>.fromOpaque($0).release() }
    }
}

private func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ thunk: GCallback, _ callback: Any) {
    g_signal_connect_data(
        instance, signal, thunk, Handler.retained(callback), { data, _ in Handler.release(data) }, GConnectFlags(0))
}

/// A GObject signal and the Swift type of its handler, which follows the signal's C arguments: `on(button, .clicked)`
/// takes a `() -> Void`, `on(dialog, .response)` a `(String) -> Void`. A handler of another type does not compile, so
/// none can be connected that GLib would call with arguments it does not take.
struct Signal<Handler> {
    let name: String
}

extension Signal where Handler == () -> Void {
    // Their C handlers take the instance only.
    static let clicked = Self(name: "clicked")
    static let toggled = Self(name: "toggled")
    static let changed = Self(name: "changed")
    /// GtkEntry's (Enter), GApplication's (the app is opened).
    static let activate = Self(name: "activate")
    static let startup = Self(name: "startup")
    static let realize = Self(name: "realize")
    /// GtkWidget's, as it is destroyed (a window closed).
    static let destroy = Self(name: "destroy")
    /// GdkFrameClock's.
    static let afterPaint = Self(name: "after-paint")
    /// AdwEntryRow's (its Apply button, or Enter).
    static let apply = Self(name: "apply")
    /// AdwEntryRow's, Enter pressed in it.
    static let entryActivated = Self(name: "entry-activated")
    /// AdwToast's.
    static let dismissed = Self(name: "dismissed")
    /// AdwToast's, when its button is pressed.
    static let buttonClicked = Self(name: "button-clicked")
    /// GtkSpinButton's, when a value is committed (Enter, the focus leaving, an arrow).
    static let valueChanged = Self(name: "value-changed")
}

extension Signal where Handler == (OpaquePointer?) -> Void {
    /// `notify::PROPERTY`, with the property's GParamSpec.
    static func notify(_ property: String) -> Self { Self(name: "notify::\(property)") }
    /// GSimpleAction's `activate`, with the action's parameter (a GVariant, or nil).
    static let actionActivated = Self(name: "activate")
}

extension Signal where Handler == (String) -> Void {
    /// AdwMessageDialog's, with the response's id.
    static let response = Self(name: "response")
}

extension Signal where Handler == (Int32) -> Void {
    /// GtkNativeDialog's (a file chooser's), with the response (GTK_RESPONSE_ACCEPT when a file was chosen).
    static let nativeResponse = Self(name: "response")
}

extension Signal where Handler == () -> Bool {
    /// GtkWindow's: the handler's true keeps the window open.
    static let closeRequest = Self(name: "close-request")
}

func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Void>, _ callback: @escaping () -> Void) {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        Handler.from(data, as: (() -> Void).self)?()
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(OpaquePointer?) -> Void>,
    _ callback: @escaping (OpaquePointer?) -> Void
) {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        Handler.from(data, as: ((OpaquePointer?) -> Void).self)?(argument)
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<(String) -> Void>, _ callback: @escaping (String) -> Void)
{
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        Handler.from(data, as: ((String) -> Void).self)?(argument.map { String(cString: $0) } ?? "")
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32) -> Void>, _ callback: @escaping (Int32) -> Void) {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        Handler.from(data, as: ((Int32) -> Void).self)?(argument)
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Bool>, _ callback: @escaping () -> Bool) {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        (Handler.from(data, as: (() -> Bool).self)?() ?? false) ? 1 : 0
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

extension Signal where Handler == (UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32 {
    /// GApplication's, with the invocation: the handler's value is its exit status.
    static let commandLine = Self(name: "command-line")
}

extension Signal where Handler == (Int32, Int32) -> Void {
    /// GtkDrawingArea's, with the new width and height.
    static let resize = Self(name: "resize")
}

extension Signal where Handler == (GFileMonitorEvent) -> Void {
    /// GFileMonitor's `changed(file, other_file, event_type)`, with the event.
    static let fileChanged = Self(name: "changed")
}

func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32>,
    _ callback: @escaping (UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32
) {
    let thunk:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<GApplicationCommandLine>?, UnsafeMutableRawPointer?
        )
            -> Int32 = { _, line, data in
                Handler.from(data, as: ((UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32).self)?(line) ?? 1
            }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32, Int32) -> Void>,
    _ callback: @escaping (Int32, Int32) -> Void
) {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, width, height, data in
        Handler.from(data, as: ((Int32, Int32) -> Void).self)?(width, height)
    }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(GFileMonitorEvent) -> Void>,
    _ callback: @escaping (GFileMonitorEvent) -> Void
) {
    let thunk:
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, GFileMonitorEvent, UnsafeMutableRawPointer?
        ) -> Void = { _, _, _, event, data in
            Handler.from(data, as: ((GFileMonitorEvent) -> Void).self)?(event)
        }
    connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

/// A file, or a folder's files, watched for changes by any program (a GFileMonitor): `changed` runs once a change is
/// done, or with `settle`, once a burst of them is over (a save is often several events). A folder is made if it does
/// not exist: one that does not cannot be watched.
final class FileWatch {
    enum Target {
        case file(String)
        case folder(String)
    }

    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private var pending = false

    init(_ target: Target, settle milliseconds: UInt32? = nil, _ changed: @escaping () -> Void) {
        let path: String
        switch target {
        case .file(let file): path = file
        case .folder(let folder):
            try? FileBytes.makeDirectories(folder)
            path = folder
        }
        guard let file = g_file_new_for_path(path) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        monitor =
            if case .folder = target {
                g_file_monitor_directory(file, G_FILE_MONITOR_NONE, nil, nil)
            } else {
                g_file_monitor_file(file, G_FILE_MONITOR_NONE, nil, nil)
            }
        guard let monitor else { return }
        on(UnsafeMutableRawPointer(monitor), .fileChanged) { [unowned self] event in
            // Once a change is done, not at each write.
            let done = [
                G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT, G_FILE_MONITOR_EVENT_CREATED, G_FILE_MONITOR_EVENT_DELETED,
            ]
            guard done.contains(event) else { return }
            guard let milliseconds else { return changed() }
            guard !pending else { return }
            pending = true
            // Weak: the watch may end within the wait (the window closed).
            _ = after(milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                pending = false
                changed()
            }
        }
    }

    deinit {
        if let monitor {
            g_file_monitor_cancel(monitor)
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }
}

/// Adds the action `name` to an action map (the application's `app.`, a window's `win.`), with a parameter of the
/// GVariant type `parameter` if given; `activated` gets the parameter. The action, to enable and disable.
@discardableResult
func addAction(
    to map: OpaquePointer, _ name: String, parameter: String? = nil, _ activated: @escaping (OpaquePointer?) -> Void
) -> OpaquePointer {
    let type = parameter.map { g_variant_type_new($0) }
    defer { type.map { g_variant_type_free($0) } }
    let action: OpaquePointer = g_simple_action_new(name, type ?? nil)
    on(UnsafeMutableRawPointer(action), .actionActivated, activated)
    g_action_map_add_action(map, action)
    g_object_unref(UnsafeMutableRawPointer(action))
    return action
}

/// Draws `area` with `draw(cairo, width, height)` whenever GTK asks.
func setDrawing(_ area: Widget, _ draw: @escaping (OpaquePointer, Int32, Int32) -> Void) {
    gtk_drawing_area_set_draw_func(
        cast(area),
        { _, cairo, width, height, data in
            guard let cairo else { return }
            Handler.from(data, as: ((OpaquePointer, Int32, Int32) -> Void).self)?(cairo, width, height)
        }, Handler.retained(draw), Handler.release)
}

// MARK: Threads

/// Runs `body` on the GLib main thread (the one that runs GTK), from any thread.
func onMainThread(_ body: @escaping @Sendable () -> Void) {
    it_post_main(
        { data in Handler.from(data, as: (@Sendable () -> Void).self)?() }, Handler.retained(body), Handler.release)
}

/// Runs `body` once on the main thread after `milliseconds`; returns the source's id for `g_source_remove`.
@discardableResult
func after(milliseconds: UInt32, _ body: @escaping () -> Void) -> UInt32 {
    return g_timeout_add_full(
        G_PRIORITY_HIGH, guint(milliseconds),
        { data in
            Handler.from(data, as: (() -> Void).self)?()
            return 0  // G_SOURCE_REMOVE
        }, Handler.retained(body), Handler.release)
}

// MARK: Building widgets

/// A layout of `ui/` (GtkBuilder XML, embedded by Package.swift), built with its texts translated (each file names
/// the `intervald` domain). It holds the objects it built: keep it as long as they are used, or until they have a
/// parent. The files are part of the program and are tested: an object missing from one is a programming error.
final class Builder {
    private let builder: OpaquePointer

    init(_ layout: [UInt8]) {
        builder = gtk_builder_new()
        var error: UnsafeMutablePointer<GError>?
        let built = layout.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                gtk_builder_add_from_string(builder, $0.baseAddress, $0.count, &error)
            }
        }
        if built == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "?"
            preconditionFailure("A layout of ui/ does not build: \(message)")
        }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(builder)) }

    func widget(_ id: String) -> Widget {
        cast(object(id))
    }

    func object(_ id: String) -> OpaquePointer {
        guard let object = gtk_builder_get_object(builder, id) else {
            preconditionFailure("No object '\(id)' in a layout of ui/")
        }
        return OpaquePointer(object)
    }
}

/// `text` with Pango markup's special characters escaped, for a label or a toast that reads markup.
func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return "" }
    defer { g_free(escaped) }
    return String(cString: escaped)
}

func setText(_ label: Widget, _ text: String) {
    gtk_label_set_text(cast(label), text)
}

/// Scrolls `scrolled` (a GtkScrolledWindow) back to its top: an inner page opened from a scrolled list starts at
/// its title, whatever the page showed last.
func scrollToTop(_ scrolled: Widget) {
    gtk_adjustment_set_value(gtk_scrolled_window_get_vadjustment(cast(scrolled)), 0)
}

func append(_ box: Widget, _ child: Widget) {
    gtk_box_append(cast(box), child)
}

func accessibleName(_ widget: Widget, _ name: String) {
    it_accessible_set_label(widget, name)
}

/// Names a GtkDropDown and its button, the control a screen reader reaches: GTK 4.8 names that button after its class
/// ("GtkToggleButton"), whatever the drop-down is called.
func accessibleName(dropDown: Widget, _ name: String) {
    accessibleName(dropDown, name)
    if let button = gtk_widget_get_first_child(dropDown) { accessibleName(button, name) }
}

/// The widgets below `widget`, depth first, that are of `type` (`gtk_button_get_type()`): to name those that
/// libadwaita 1.2 leaves unnamed (the preferences window's search button reads "GtkImage").
func descendants(of widget: Widget, ofType type: GType) -> [Widget] {
    var found: [Widget] = []
    var child = gtk_widget_get_first_child(widget)
    while let current = child {
        if g_type_check_instance_is_a(UnsafeMutablePointer(OpaquePointer(current)), type) != 0 { found.append(current) }
        found += descendants(of: current, ofType: type)
        child = gtk_widget_get_next_sibling(current)
    }
    return found
}

func accessibleDescription(_ widget: Widget, _ description: String) {
    it_accessible_set_description(widget, description)
}

/// Removes every child of a GtkBox or GtkListBox.
func removeChildren(_ container: Widget, from list: Bool = false) {
    while let child = gtk_widget_get_first_child(container) {
        if list {
            gtk_list_box_remove(cast(container), child)
        } else {
            gtk_box_remove(cast(container), child)
        }
    }
}

/// An AdwActionRow with a title and a subtitle. With `activated`, the row ends in an arrow button, which a click
/// anywhere on the row presses too: assistive technologies press buttons, not rows, and the row names it by its title.
func actionRow(title: String, subtitle: String, activated: (() -> Void)? = nil) -> Widget {
    let row: Widget = adw_action_row_new()
    // Plan names and labels are the user's text, not markup ("Push & Pull").
    adw_preferences_row_set_use_markup(cast(row), 0)
    adw_preferences_row_set_title(cast(row), title)
    adw_action_row_set_subtitle(cast(row), subtitle)
    if let activated {
        let open: Widget = gtk_button_new_from_icon_name("go-next-symbolic")
        gtk_widget_add_css_class(open, "flat")
        gtk_widget_set_valign(open, GTK_ALIGN_CENTER)
        on(open, .clicked, activated)
        adw_action_row_add_suffix(cast(row), open)
        adw_action_row_set_activatable_widget(cast(row), open)
    }
    return row
}

// MARK: Questions

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

import CGtk

/// Connects `callback` (held until the handler is disconnected or the instance finalised); the handler's id, for
/// `g_signal_handler_disconnect` where the instance outlives what the handler serves.
private func connect(
    _ instance: UnsafeMutableRawPointer, _ signal: String, _ thunk: GCallback, _ callback: Any
) -> gulong {
    g_signal_connect_data(
        instance, signal, thunk, ClosureBox.retained(callback), { data, _ in ClosureBox.release(data) },
        GConnectFlags(0))
}

/// A GObject signal and the Swift type of its handler, which follows the signal's C arguments: `on(button, .clicked)`
/// takes a `() -> Void`, `on(dialog, .response)` a `(String) -> Void`. A handler of another type does not compile, so
/// none can be connected that GLib would call with arguments it does not take.
struct Signal<Handler> {
    let name: String
}

extension Signal where Handler == () -> Void {
    // Their C handlers take the instance only.
    /// GtkButton's; GtkToggleButton's and GtkCheckButton's; GtkEditable's.
    static let clicked = Self(name: "clicked"), toggled = Self(name: "toggled"), changed = Self(name: "changed")
    /// GApplication's: the app is opened (GtkEntry's too: Enter), and its first start-up.
    static let activate = Self(name: "activate"), startup = Self(name: "startup")
    /// GtkWidget's: realized, and destroyed (a window closed).
    static let realize = Self(name: "realize"), destroy = Self(name: "destroy")
    /// GdkFrameClock's.
    static let afterPaint = Self(name: "after-paint")
    /// AdwEntryRow's: its Apply button (or Enter), and Enter pressed in it.
    static let apply = Self(name: "apply"), entryActivated = Self(name: "entry-activated")
    /// AdwToast's: gone, and its button pressed.
    static let dismissed = Self(name: "dismissed"), buttonClicked = Self(name: "button-clicked")
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

@discardableResult
func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Void>, _ callback: @escaping () -> Void) -> gulong {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        ClosureBox.from(data, as: (() -> Void).self)?()
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(OpaquePointer?) -> Void>,
    _ callback: @escaping (OpaquePointer?) -> Void
) -> gulong {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((OpaquePointer?) -> Void).self)?(argument)
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<(String) -> Void>, _ callback: @escaping (String) -> Void)
    -> gulong
{
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((String) -> Void).self)?(argument.map { String(cString: $0) } ?? "")
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32) -> Void>, _ callback: @escaping (Int32) -> Void)
    -> gulong
{
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, argument, data in
        ClosureBox.from(data, as: ((Int32) -> Void).self)?(argument)
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(_ instance: UnsafeMutableRawPointer, _ signal: Signal<() -> Bool>, _ callback: @escaping () -> Bool) -> gulong {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        (ClosureBox.from(data, as: (() -> Bool).self)?() ?? false) ? 1 : 0
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
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

@discardableResult
func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32>,
    _ callback: @escaping (UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32
) -> gulong {
    let thunk:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<GApplicationCommandLine>?, UnsafeMutableRawPointer?
        )
            -> Int32 = { _, line, data in
                ClosureBox.from(data, as: ((UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32).self)?(line) ?? 1
            }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(Int32, Int32) -> Void>,
    _ callback: @escaping (Int32, Int32) -> Void
) -> gulong {
    let thunk: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Void = {
        _, width, height, data in
        ClosureBox.from(data, as: ((Int32, Int32) -> Void).self)?(width, height)
    }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

@discardableResult
func on(
    _ instance: UnsafeMutableRawPointer, _ signal: Signal<(GFileMonitorEvent) -> Void>,
    _ callback: @escaping (GFileMonitorEvent) -> Void
) -> gulong {
    let thunk:
        @convention(c) (
            UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, GFileMonitorEvent, UnsafeMutableRawPointer?
        ) -> Void = { _, _, _, event, data in
            ClosureBox.from(data, as: ((GFileMonitorEvent) -> Void).self)?(event)
        }
    return connect(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

import CGtk
import IntervalGLib

// The signals the window connects, by the Swift type of their handlers (IntervalGLib's `Signal`, `on`).

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

extension Signal where Handler == (Int32, Int32) -> Void {
    /// GtkDrawingArea's, with the new width and height.
    static let resize = Self(name: "resize")
}

extension Signal where Handler == (UnsafeMutablePointer<GApplicationCommandLine>?) -> Int32 {
    /// GApplication's, with the invocation: the handler's value is its exit status.
    static let commandLine = Self(name: "command-line")
}

// A handler with a GIO type stays here: IntervalGLib's API has Swift types only.
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
    return connectSignal(instance, signal.name, unsafeBitCast(thunk, to: GCallback.self), callback)
}

import CGtk

// GTK's classes form a hierarchy that Swift sees as unrelated pointers: a function of a class (`gtk_window_present`)
// takes its own struct, which an AdwMessageDialog or an AdwPreferencesWindow is only as C sees it. The window's widgets
// are typed pointers, checked once when they are made (``LayoutClass/checked(_:)``) or built (``Builder/get(_:_:)``);
// a class's own functions take them as they are (`adw_combo_row_get_selected(row)`, `gtk_label_set_xalign(label.c,
// 0)`), and the operations of a class above them are these wrappers, the one place their C casts live. Each protocol
// is a class that others derive from, and the classes conforming to it are those the window uses it through.

/// GtkWindow and the windows derived from it.
protocol WindowClass: LayoutClass {}
extension GtkWindow: WindowClass {}
extension AdwWindow: WindowClass {}
extension AdwApplicationWindow: WindowClass {}
extension AdwPreferencesWindow: WindowClass {}
extension AdwMessageDialog: WindowClass {}
extension AboutWindow: WindowClass {}

extension UnsafeMutablePointer where Pointee: WindowClass {
    /// The window as GtkWindow's functions, and those that take a window (a parent, an inhibitor), take it.
    var gtkWindow: UnsafeMutablePointer<GtkWindow> { cast(self) }

    func present() { gtk_window_present(gtkWindow) }

    func close() { gtk_window_close(gtkWindow) }

    func setTitle(_ title: String) { gtk_window_set_title(gtkWindow, title) }

    func setModal(_ modal: Bool) { gtk_window_set_modal(gtkWindow, modal ? 1 : 0) }

    func setTransient(for parent: UnsafeMutablePointer<some WindowClass>) {
        gtk_window_set_transient_for(gtkWindow, parent.gtkWindow)
    }

    func setApplication(_ application: UnsafeMutablePointer<AdwApplication>) {
        gtk_window_set_application(gtkWindow, application.gtkApplication)
    }

    var isFullscreen: Bool { gtk_window_is_fullscreen(gtkWindow) != 0 }

    func fullscreen() { gtk_window_fullscreen(gtkWindow) }

    func unfullscreen() { gtk_window_unfullscreen(gtkWindow) }

    /// The size the window keeps, which GTK 4 updates at each resize.
    var defaultSize: (width: Int32, height: Int32) {
        var (width, height): (Int32, Int32) = (0, 0)
        // Both sizes: GTK 4.8 writes through both pointers.
        gtk_window_get_default_size(gtkWindow, &width, &height)
        return (width, height)
    }
}

extension UnsafeMutablePointer where Pointee == AdwApplicationWindow {
    /// The window's actions (`win.`).
    var actionMap: OpaquePointer { cast(self) }

    func setHelpOverlay(_ shortcuts: UnsafeMutablePointer<Shortcuts>) {
        gtk_application_window_set_help_overlay(cast(self), shortcuts.c)
    }
}

/// The window's root, when it is a window (a widget not in one has none).
func rootWindow(of widget: Widget) -> UnsafeMutablePointer<GtkWindow>? {
    gtk_widget_get_root(widget).flatMap { GtkWindow.instance(UnsafeMutableRawPointer($0)) }
}

extension UnsafeMutablePointer where Pointee == AdwApplication {
    var gtkApplication: UnsafeMutablePointer<GtkApplication> { cast(self) }

    /// The application's actions (`app.`).
    var actionMap: OpaquePointer { cast(self) }

    /// Runs the application's main loop (`g_application_run`); its exit status.
    func run(_ count: Int32, _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
        g_application_run(cast(self), count, arguments)
    }
}

/// GtkEditable, the interface of the text fields.
protocol EditableClass: LayoutClass {}
extension GtkEntry: EditableClass {}
extension AdwEntryRow: EditableClass {}

extension UnsafeMutablePointer where Pointee: EditableClass {
    var text: String {
        get { String(cString: gtk_editable_get_text(cast(self))) }
        nonmutating set { gtk_editable_set_text(cast(self), newValue) }
    }

    func setWidthChars(_ characters: Int32) { gtk_editable_set_width_chars(cast(self), characters) }
}

/// AdwPreferencesRow and the rows derived from it.
protocol PreferencesRowClass: LayoutClass {}
extension AdwActionRow: PreferencesRowClass {}
extension AdwComboRow: PreferencesRowClass {}
extension AdwEntryRow: PreferencesRowClass {}
extension AdwExpanderRow: PreferencesRowClass {}

extension UnsafeMutablePointer where Pointee: PreferencesRowClass {
    func setTitle(_ title: String) { adw_preferences_row_set_title(cast(self), title) }

    func setUseMarkup(_ markup: Bool) { adw_preferences_row_set_use_markup(cast(self), markup ? 1 : 0) }
}

/// AdwActionRow and the rows derived from it.
protocol ActionRowClass: PreferencesRowClass {}
extension AdwActionRow: ActionRowClass {}
extension AdwComboRow: ActionRowClass {}

extension UnsafeMutablePointer where Pointee: ActionRowClass {
    func setSubtitle(_ subtitle: String) { adw_action_row_set_subtitle(cast(self), subtitle) }

    func setTitleLines(_ lines: Int32) { adw_action_row_set_title_lines(cast(self), lines) }

    func addPrefix(_ widget: UnsafeMutablePointer<some LayoutClass>) {
        adw_action_row_add_prefix(cast(self), widget.widget)
    }

    func addSuffix(_ widget: UnsafeMutablePointer<some LayoutClass>) {
        adw_action_row_add_suffix(cast(self), widget.widget)
    }

    func setActivatableWidget(_ widget: UnsafeMutablePointer<some LayoutClass>) {
        adw_action_row_set_activatable_widget(cast(self), widget.widget)
    }
}

extension UnsafeMutablePointer where Pointee == ComboBoxText {
    /// The field of a combo box made with an entry (`gtk_combo_box_text_new_with_entry`).
    var entry: UnsafeMutablePointer<GtkEntry>? {
        gtk_combo_box_get_child(cast(self)).map { GtkEntry.checked($0) }
    }
}

extension UnsafeMutablePointer where Pointee == MenuButton {
    /// The menu the button pops up: a GMenu.
    func setMenu(_ menu: OpaquePointer) { gtk_menu_button_set_menu_model(c, cast(menu)) }
}

extension UnsafeMutablePointer where Pointee == Paned {
    func setOrientation(_ orientation: GtkOrientation) { gtk_orientable_set_orientation(cast(self), orientation) }
}

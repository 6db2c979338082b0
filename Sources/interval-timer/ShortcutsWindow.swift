import CGtk

/// The Keyboard Shortcuts window (Ctrl+?, the primary menu), as GNOME apps have it: its layout is ui/shortcuts.ui
/// (GtkShortcutsWindow is built only from GtkBuilder's XML in GTK 4.8).
enum ShortcutsWindow {
    static func make() -> Widget {
        // A toplevel outlives its builder: GTK holds every window until it is destroyed.
        Builder(PackageResources.shortcuts_ui).get("shortcuts", Shortcuts.self).widget
    }
}

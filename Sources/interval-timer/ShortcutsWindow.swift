import CGtk
import IntervalCore

/// The Keyboard Shortcuts window (Ctrl+?, the primary menu), as GNOME apps have it: its layout is ui/shortcuts.ui
/// (GtkShortcutsWindow is built only from GtkBuilder's XML in GTK 4.8).
enum ShortcutsWindow {
    static func make() -> Widget {
        // A toplevel outlives its builder: GTK holds every window until it is destroyed.
        let window = Builder(PackageResources.shortcuts_ui).get("shortcuts", Shortcuts.self).widget
        // GTK 4.8 names its search button and its sections' menu button after their classes ("GtkImage",
        // "GtkMenuButton").
        for button in descendants(of: window, ofType: gtk_menu_button_get_type()) {
            accessibleName(button, tr("Sections"))
            nameMenu(of: button, tr("Sections"))
        }
        for toggle in descendants(of: window, ofType: gtk_toggle_button_get_type())
        where g_type_check_instance_is_a(
            UnsafeMutablePointer(OpaquePointer(gtk_widget_get_parent(toggle))), gtk_menu_button_get_type()) == 0
        {
            accessibleName(toggle, tr("Search Shortcuts"))
        }
        return window
    }
}

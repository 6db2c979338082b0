import CGtk
import IntervalCore

/// The Keyboard Shortcuts window (Ctrl+?, the primary menu), as GNOME apps have it: its layout is ui/shortcuts.ui
/// (GtkShortcutsWindow is built only from GtkBuilder's XML in GTK 4.8).
enum ShortcutsWindow {
    static func make() -> UnsafeMutablePointer<Shortcuts> {
        // A toplevel outlives its builder: GTK holds every window until it is destroyed.
        let window = Builder(PackageResources.shortcuts_ui).get("shortcuts", Shortcuts.self)
        // GTK 4.8 names its search button and its sections' menu button after their classes ("GtkImage",
        // "GtkMenuButton").
        for button in descendants(of: window, MenuButton.self) {
            accessibleName(button, tr("Sections"))
            nameMenu(of: button, tr("Sections"))
        }
        for toggle in descendants(of: window, GtkToggleButton.self)
        where MenuButton.instance(gtk_widget_get_parent(toggle.widget)) == nil {
            accessibleName(toggle, tr("Search Shortcuts"))
        }
        return window
    }
}

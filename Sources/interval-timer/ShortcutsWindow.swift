import CGtk
import IntervalCore

/// The Keyboard Shortcuts window (Ctrl+?, the primary menu), as GNOME apps have it: GtkShortcutsWindow is built only
/// from GtkBuilder's XML in GTK 4.8, so its layout is XML here, with each title translated.
enum ShortcutsWindow {
    /// Every shortcut of the window, by section: (accelerator, title).
    static var shortcuts: [(section: String, entries: [(String, String)])] {
        [
            (
                tr("Workout"),
                [
                    ("space", tr("Pause or resume")), ("Right", tr("Skip to the next interval")),
                    ("Left", tr("Previous interval")),
                ]
            ),
            (
                tr("General"),
                [
                    ("<Control>comma", tr("Preferences")), ("<Control>question", tr("Keyboard Shortcuts")),
                    ("F11", tr("Full screen")), ("<Control>q", tr("Close the window")),
                ]
            ),
        ]
    }

    static func make() -> Widget? {
        var xml = """
            <interface><object class="GtkShortcutsWindow" id="shortcuts"><property name="modal">1</property>
            <child><object class="GtkShortcutsSection"><property name="section-name">main</property>
            """
        for (section, entries) in shortcuts {
            xml += "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">\(escaped(section))</property>"
            for (accelerator, title) in entries {
                xml += """
                    <child><object class="GtkShortcutsShortcut">\
                    <property name="accelerator">\(escaped(accelerator))</property>\
                    <property name="title">\(escaped(title))</property></object></child>
                    """
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        let builder = gtk_builder_new_from_string(xml, -1)
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        // A toplevel outlives its builder: GTK holds every window until it is destroyed.
        return gtk_builder_get_object(builder, "shortcuts").map { UnsafeMutablePointer(OpaquePointer($0)) }
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
            .replacing("\"", with: "&quot;")
    }
}

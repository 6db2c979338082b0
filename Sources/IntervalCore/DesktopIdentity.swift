/// How desktops recognise intervald (docs/reference.md §7): its desktop entry (`org.intervald.Timer1.desktop`) and its
/// icon (`org.intervald.Timer1` in the hicolor theme) are named after the bus name. Every notification names both, so
/// that a desktop can show the icon and list intervald in its notification settings.
public enum DesktopIdentity {
    /// The `desktop-entry` hint: the desktop entry's name without `.desktop`.
    public static let desktopEntry = BusNames.service
    /// The notification's `app_icon`: an icon name looked up in the icon theme.
    public static let iconName = BusNames.service
    /// The window's application ID (docs/reference.md §10): its bus name and its desktop entry's name, the entry people
    /// see; the MPRIS player's `DesktopEntry`.
    public static let window = "org.intervald.IntervalTimer"
    /// Where GtkApplication exports `org.freedesktop.Application` for ``window``.
    public static let windowObjectPath = "/org/intervald/IntervalTimer"
    /// The release, as `--version` and the window's About say it.
    public static let version = "0.1.0"
    public static let website = "https://github.com/intervald/intervald"
}

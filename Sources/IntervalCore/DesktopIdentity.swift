/// How desktops recognise intervald (docs/reference.md §7): its desktop entry (`org.intervald.Timer1.desktop`) and its
/// icon (`org.intervald.Timer1` in the hicolor theme) are named after the bus name. Every notification names both, so
/// that a desktop can show the icon and list intervald in its notification settings.
public enum DesktopIdentity {
    /// The `desktop-entry` hint: the desktop entry's name without `.desktop`.
    public static let desktopEntry = BusNames.service
    /// The notification's `app_icon`: an icon name looked up in the icon theme.
    public static let iconName = BusNames.service
}

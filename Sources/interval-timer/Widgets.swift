import CGtk
import CGtkShims
import IntervalCore
import IntervalGLib

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

    /// The menu or menu section `id` (a GMenu: `<menu id>`, `<section id>`), to fill in code.
    func menu(_ id: String) -> OpaquePointer {
        guard let object = gtk_builder_get_object(builder, id),
            g_type_check_instance_is_a(cast(object), g_menu_get_type()) != 0
        else { preconditionFailure("No menu '\(id)' in a layout of ui/") }
        return OpaquePointer(object)
    }

    /// The object `id`, as a pointer to its class: `layout.get("save", GtkButton.self)`. A class whose struct GTK
    /// publishes is that struct, which its functions take as it is; an opaque one (``OpaqueLayoutClass``) hands its
    /// functions ``UnsafeMutablePointer/c``. An id the layout lacks, or holds as another class, stops the window: the
    /// layouts are part of the program, and `WindowLayoutTests` checks every id and class the code asks for.
    func get<Class: LayoutClass>(_ id: String, _ type: Class.Type) -> UnsafeMutablePointer<Class> {
        guard let object = gtk_builder_get_object(builder, id) else {
            preconditionFailure("No object '\(id)' in a layout of ui/")
        }
        guard let typed = Class.instance(object) else {
            preconditionFailure("The object '\(id)' of a layout of ui/ is not a \(Class.typeName)")
        }
        return typed
    }
}

/// A GTK or libadwaita class that a layout's object is asked for as (``Builder/get(_:_:)``), or that a widget made in
/// code is typed as (``checked(_:)``): its name as ui/ files write it. Its operations that need a C cast are
/// WidgetClasses.swift's.
protocol LayoutClass {
    static var typeName: String { get }
}

extension LayoutClass {
    /// `object` as a pointer to this class, when it is an instance of it or of a subclass: the one check of a C
    /// pointer's class, for a layout's objects and the widgets made in code alike.
    static func instance(_ object: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Self>? {
        guard let object else { return nil }
        let expected = g_type_from_name(typeName)
        guard expected != 0,
            g_type_check_instance_is_a(object.assumingMemoryBound(to: GTypeInstance.self), expected) != 0
        else { return nil }
        return UnsafeMutablePointer(OpaquePointer(object))
    }

    /// A widget that a constructor of this class made (`adw_action_row_new()`) or that GTK hands out as one (a
    /// combo box's entry), typed once its class is checked: another class is a programming error.
    static func checked(_ widget: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Self> {
        guard let typed = instance(widget) else { preconditionFailure("A widget made as a \(typeName) is not one") }
        return typed
    }
}

/// A class whose instance struct GTK keeps private: its functions take an `OpaquePointer`.
protocol OpaqueLayoutClass: LayoutClass {}

extension UnsafeMutablePointer where Pointee: LayoutClass {
    /// The object as a widget, for GtkWidget's functions.
    var widget: Widget { cast(self) }
}

extension UnsafeMutablePointer where Pointee: OpaqueLayoutClass {
    /// The object as its class's functions take it.
    var c: OpaquePointer { OpaquePointer(self) }
}

// The classes the window asks its layouts for, or makes in code. Those GTK publishes are its structs:
extension GtkWidget: LayoutClass { static let typeName = "GtkWidget" }
extension GtkWindow: LayoutClass { static let typeName = "GtkWindow" }
extension GtkButton: LayoutClass { static let typeName = "GtkButton" }
extension GtkCheckButton: LayoutClass { static let typeName = "GtkCheckButton" }
extension GtkPopover: LayoutClass { static let typeName = "GtkPopover" }
extension GtkListBoxRow: LayoutClass { static let typeName = "GtkListBoxRow" }
extension GtkToggleButton: LayoutClass { static let typeName = "GtkToggleButton" }
extension GtkBox: LayoutClass { static let typeName = "GtkBox" }
extension GtkEntry: LayoutClass { static let typeName = "GtkEntry" }
extension GtkDrawingArea: LayoutClass { static let typeName = "GtkDrawingArea" }
extension GtkTextView: LayoutClass { static let typeName = "GtkTextView" }
extension AdwApplicationWindow: LayoutClass { static let typeName = "AdwApplicationWindow" }
extension AdwWindow: LayoutClass { static let typeName = "AdwWindow" }
extension AdwEntryRow: LayoutClass { static let typeName = "AdwEntryRow" }
extension AdwActionRow: LayoutClass { static let typeName = "AdwActionRow" }
extension AdwComboRow: LayoutClass { static let typeName = "AdwComboRow" }
extension AdwExpanderRow: LayoutClass { static let typeName = "AdwExpanderRow" }
extension AdwPreferencesGroup: LayoutClass { static let typeName = "AdwPreferencesGroup" }
extension AdwPreferencesPage: LayoutClass { static let typeName = "AdwPreferencesPage" }
extension AdwPreferencesWindow: LayoutClass { static let typeName = "AdwPreferencesWindow" }
extension AdwMessageDialog: LayoutClass { static let typeName = "AdwMessageDialog" }
// and those it keeps opaque are names of their own:
enum Label: OpaqueLayoutClass { static let typeName = "GtkLabel" }
enum Image: OpaqueLayoutClass { static let typeName = "GtkImage" }
enum ListBox: OpaqueLayoutClass { static let typeName = "GtkListBox" }
enum Overlay: OpaqueLayoutClass { static let typeName = "GtkOverlay" }
enum Paned: OpaqueLayoutClass { static let typeName = "GtkPaned" }
enum ProgressBar: OpaqueLayoutClass { static let typeName = "GtkProgressBar" }
enum ScrolledWindow: OpaqueLayoutClass { static let typeName = "GtkScrolledWindow" }
enum Shortcuts: OpaqueLayoutClass { static let typeName = "GtkShortcutsWindow" }
enum Stack: OpaqueLayoutClass { static let typeName = "GtkStack" }
enum DropDown: OpaqueLayoutClass { static let typeName = "GtkDropDown" }
enum Leaflet: OpaqueLayoutClass { static let typeName = "AdwLeaflet" }
enum StatusPage: OpaqueLayoutClass { static let typeName = "AdwStatusPage" }
enum ToastOverlay: OpaqueLayoutClass { static let typeName = "AdwToastOverlay" }
enum ViewStack: OpaqueLayoutClass { static let typeName = "AdwViewStack" }
enum WindowTitle: OpaqueLayoutClass { static let typeName = "AdwWindowTitle" }
enum Switch: OpaqueLayoutClass { static let typeName = "GtkSwitch" }
enum SpinButton: OpaqueLayoutClass { static let typeName = "GtkSpinButton" }
enum Spinner: OpaqueLayoutClass { static let typeName = "GtkSpinner" }
enum MenuButton: OpaqueLayoutClass { static let typeName = "GtkMenuButton" }
enum ComboBoxText: OpaqueLayoutClass { static let typeName = "GtkComboBoxText" }
enum SearchEntry: OpaqueLayoutClass { static let typeName = "GtkSearchEntry" }
enum ViewSwitcher: OpaqueLayoutClass { static let typeName = "AdwViewSwitcher" }
enum AboutWindow: OpaqueLayoutClass { static let typeName = "AdwAboutWindow" }

/// `text` with Pango markup's special characters escaped, for a label or a toast that reads markup.
func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return "" }
    defer { g_free(escaped) }
    return String(cString: escaped)
}

func setText(_ label: UnsafeMutablePointer<Label>, _ text: String) {
    gtk_label_set_text(label.c, text)
}

/// Scrolls `scrolled` (a GtkScrolledWindow) back to its top: an inner page opened from a scrolled list starts at
/// its title, whatever the page showed last.
///
/// A scroll of the wheel glides on for a moment after the wheel stops (GTK's kinetic deceleration), and each frame of
/// the glide sets the position it computed from where the glide began: a page opened within that moment was put back
/// where the last one was scrolled to. Switching kinetic scrolling off and on ends the glide first.
func scrollToTop(_ scrolled: UnsafeMutablePointer<ScrolledWindow>) {
    let window = scrolled.c
    if gtk_scrolled_window_get_kinetic_scrolling(window) != 0 {
        gtk_scrolled_window_set_kinetic_scrolling(window, 0)
        gtk_scrolled_window_set_kinetic_scrolling(window, 1)
    }
    gtk_adjustment_set_value(gtk_scrolled_window_get_vadjustment(window), 0)
}

func append(_ box: UnsafeMutablePointer<GtkBox>, _ child: UnsafeMutablePointer<some LayoutClass>) {
    gtk_box_append(box, child.widget)
}

func accessibleName(_ widget: UnsafeMutablePointer<some LayoutClass>, _ name: String) {
    it_accessible_set_label(widget.widget, name)
}

/// Names a GtkDropDown and its button, the control a screen reader reaches: GTK 4.8 names that button after its class
/// ("GtkToggleButton"), whatever the drop-down is called.
func accessibleName(dropDown: Widget, _ name: String) {
    accessibleName(dropDown, name)
    if let button = gtk_widget_get_first_child(dropDown) { accessibleName(button, name) }
}

/// Leaves `widget` named by its own label alone: GTK 4.8 says a widget's label, then each widget it is labelled by,
/// so a button that libadwaita also labels by its text, or by its row's title, is said twice ("Keep Going Keep
/// Going", "Speak Speak a sample").
func sayNameOnce(_ widget: Widget) {
    gtk_accessible_reset_relation(cast(widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY)
}

/// Names the view switchers below `widget` (a window's pages), which GTK 4.8 names after their class
/// ("AdwViewSwitcher").
func namePageSwitchers(in widget: Widget) {
    for switcher in descendants(of: widget, ViewSwitcher.self) {
        accessibleName(switcher, tr("Pages"))
    }
}

/// Names a menu button's menu (its popover), which GTK 4.8 names after its class ("GtkPopoverMenu").
func nameMenu(of button: UnsafeMutablePointer<MenuButton>, _ name: String) {
    if let popover = gtk_menu_button_get_popover(button.c) { accessibleName(popover, name) }
}

/// The widgets below `widget`, depth first, that are of class `type` (`GtkButton.self`): to name those that libadwaita
/// 1.2 leaves unnamed (the preferences window's search button reads "GtkImage").
func descendants<Class: LayoutClass>(of widget: UnsafeMutablePointer<some LayoutClass>, _ type: Class.Type)
    -> [UnsafeMutablePointer<Class>]
{
    var found: [UnsafeMutablePointer<Class>] = []
    var child = gtk_widget_get_first_child(widget.widget)
    while let current = child {
        if let typed = Class.instance(current) { found.append(typed) }
        found += descendants(of: current, type)
        child = gtk_widget_get_next_sibling(current)
    }
    return found
}

func accessibleDescription(_ widget: UnsafeMutablePointer<some LayoutClass>, _ description: String) {
    it_accessible_set_description(widget.widget, description)
}

/// Removes every child of a box.
func removeChildren(_ box: UnsafeMutablePointer<GtkBox>) {
    while let child = gtk_widget_get_first_child(box.widget) { gtk_box_remove(box, child) }
}

/// Removes every row of a list.
func removeChildren(_ list: UnsafeMutablePointer<ListBox>) {
    while let child = gtk_widget_get_first_child(list.widget) { gtk_list_box_remove(list.c, child) }
}

/// An AdwActionRow with a title and a subtitle. With `activated`, the row ends in an arrow button, which a click
/// anywhere on the row presses too: assistive technologies press buttons, not rows, and the row names it by its title.
func actionRow(title: String, subtitle: String, activated: (() -> Void)? = nil) -> UnsafeMutablePointer<AdwActionRow> {
    let row = AdwActionRow.checked(adw_action_row_new())
    // Plan names and labels are the user's text, not markup ("Push & Pull").
    row.setUseMarkup(false)
    row.setTitle(title)
    row.setSubtitle(subtitle)
    if let activated {
        let open: Widget = gtk_button_new_from_icon_name("go-next-symbolic")
        gtk_widget_add_css_class(open, "flat")
        gtk_widget_set_valign(open, GTK_ALIGN_CENTER)
        on(open, .clicked, activated)
        row.addSuffix(open)
        row.setActivatableWidget(open)
    }
    return row
}

/// Gives `widget` a group of actions under `prefix` (`plan.duplicate`, `row.remove`), which `add` fills; the widget
/// holds the group.
func insertActions(into widget: Widget, _ prefix: String, _ add: (OpaquePointer) -> Void) {
    let group: UnsafeMutablePointer<GSimpleActionGroup> = g_simple_action_group_new()
    let actions: OpaquePointer = cast(group)
    add(actions)
    gtk_widget_insert_action_group(widget, prefix, actions)
    g_object_unref(UnsafeMutableRawPointer(actions))
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
func setDrawing(_ area: UnsafeMutablePointer<GtkDrawingArea>, _ draw: @escaping (OpaquePointer, Int32, Int32) -> Void) {
    gtk_drawing_area_set_draw_func(
        area,
        { _, cairo, width, height, data in
            guard let cairo else { return }
            ClosureBox.from(data, as: ((OpaquePointer, Int32, Int32) -> Void).self)?(cairo, width, height)
        }, ClosureBox.retained(draw), ClosureBox.release)
}

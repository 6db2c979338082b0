import CGtk

/// Every GTK widget, as the toolkit's constructors return it.
typealias Widget = UnsafeMutablePointer<GtkWidget>

// GTK's C types are a hierarchy that Swift sees as unrelated pointers (its cast macros do not import): a widget is
// handed to a function of a class above its own through these, as C code would through GTK_BOX() and the like. They
// check nothing: the wrappers (WidgetClasses.swift, Widgets.swift) use them where the class is known to be right.

/// A GObject pointer as a pointer to another class in its hierarchy, typed (GtkBox, AdwApplication…) or opaque
/// (GtkLabel, GtkWindow…, whose structs GTK keeps private), as the expected argument says.
func cast<T, U>(_ pointer: UnsafeMutablePointer<U>) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(OpaquePointer(pointer))
}

func cast<U>(_ pointer: UnsafeMutablePointer<U>) -> OpaquePointer {
    OpaquePointer(pointer)
}

func cast<T>(_ pointer: OpaquePointer) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer(pointer)
}

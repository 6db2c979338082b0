/// A Swift closure kept alive as a signal handler's or a source's data, released when GLib drops it.
public final class ClosureBox {
    let callback: Any
    init(_ callback: Any) { self.callback = callback }

    /// The closure of `data`, if it has the type the thunk expects.
    public static func from<Callback>(_ data: UnsafeMutableRawPointer?, as _: Callback.Type = Callback.self)
        -> Callback?
    {
        data.flatMap { Unmanaged<ClosureBox>.fromOpaque($0).takeUnretainedValue().callback as? Callback }
    }

    public static func retained(_ callback: Any) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(ClosureBox(callback)).toOpaque()
    }

    /// A GDestroyNotify that releases the box.
    public static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        data.map { Unmanaged<ClosureBox>.fromOpaque($0).release() }
    }
}

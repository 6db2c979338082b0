internal import CGio
import Dispatch
import IntervalCore
import IntervalGLib

/// The connected watches, kept up to date for the window's Send to Watch (docs/window.md): found again when GIO's
/// volume monitor says a mount came, went or changed, and when a folder is made or removed at a mount's root (the
/// monitor says nothing of folders). Lives on the main context of the thread that made it, where `changed` runs; the
/// looking, which on a gvfs mount is a round trip per folder, is done on a queue of its own, so that the window never
/// waits for a watch.
public final class WatchMonitor {
    /// The watches connected, in the volume monitor's order.
    public private(set) var watches: [Watch] = []
    /// ``watches`` changed.
    public var changed: () -> Void = {}
    private let monitor: UnsafeMutablePointer<GVolumeMonitor>?
    private let context: MainContext
    /// This object's handlers on the volume monitor, which is GIO's, shared, and outlives it.
    private var handlers: [gulong] = []
    /// Each mount's root folder, watched, by its URI.
    private var roots: [String: FolderMonitor] = [:]
    /// Bumped at each look: only the newest look's answer is taken.
    private var looks = 0

    private static let queue = DispatchQueue(label: "org.intervald.watch.find", qos: .userInitiated)

    public init() {
        context = MainContext()
        monitor = WatchFinder.volumeMonitor()
        guard let monitor else { return }
        handlers = ["mount-added", "mount-removed", "mount-changed"].map { name in
            // Each with the GMount, which the look does not need: it lists them all.
            on(UnsafeMutableRawPointer(monitor), Signal<(OpaquePointer?) -> Void>(name: name)) { [unowned self] _ in
                look()
            }
        }
        look()
    }

    deinit {
        if let monitor {
            for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(monitor), handler) }
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }

    /// Watches the roots of the mounts there are now, and looks for watches on them, off this thread.
    private func look() {
        guard let monitor else { return }
        let mounts = WatchFinder.mounts(of: monitor)
        var watched: [String: FolderMonitor] = [:]
        for mount in mounts where watched[mount.root] == nil {
            watched[mount.root] = roots[mount.root] ?? FolderMonitor(uri: mount.root) { [unowned self] in look() }
        }
        roots = watched
        looks += 1
        let asked = looks
        let answer = OnContext { [weak self] (found: [Watch]) in
            guard let self, asked == looks, found != watches else { return }
            watches = found
            changed()
        }
        let context = self.context
        Self.queue.async {
            // Without free space, which the window does not show: a copy changes it, and the watches would read as
            // changed, and the window's Send to Watch controls be made anew under a person's (or a test's) click.
            let found = mounts.compactMap { WatchFinder.watch(on: $0, freeSpace: false) }
            context.invoke { answer.run(found) }
        }
    }
}

/// A handler that runs only on the context's thread, though the value it is given comes from another.
private final class OnContext: @unchecked Sendable {
    let run: ([Watch]) -> Void
    init(_ run: @escaping ([Watch]) -> Void) { self.run = run }
}

/// The thread-default main context of the thread that made it (GTK's, in the window), to come back to.
private final class MainContext: @unchecked Sendable {
    // GMainContext's functions are thread-safe.
    private let pointer: OpaquePointer?

    init() { pointer = g_main_context_ref_thread_default() }

    deinit { g_main_context_unref(pointer) }

    /// Runs `body` on the context's thread (`g_main_context_invoke_full`).
    func invoke(_ body: @escaping @Sendable () -> Void) {
        g_main_context_invoke_full(
            pointer, G_PRIORITY_DEFAULT,
            { data in
                ClosureBox.from(data, as: (@Sendable () -> Void).self)?()
                return 0  // G_SOURCE_REMOVE
            }, ClosureBox.retained(body), ClosureBox.release)
    }
}

/// A folder watched for folders made or removed in it (a GFileMonitor, served by gvfs on its mounts).
private final class FolderMonitor {
    private let monitor: UnsafeMutablePointer<GFileMonitor>?

    init(uri: String, _ changed: @escaping () -> Void) {
        let folder = GIOFile(uri: uri)
        monitor = try? gio { g_file_monitor_directory(folder.pointer, G_FILE_MONITOR_NONE, nil, $0) }
        guard let monitor else { return }
        on(UnsafeMutableRawPointer(monitor), .fileChanged) { event in
            if event == .created || event == .deleted { changed() }
        }
    }

    deinit {
        if let monitor {
            g_file_monitor_cancel(monitor)
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }
}

import CGtk
import Glibc
import IntervalCore
import IntervalRuntime

/// A Garmin watch mounted as USB storage (docs/fit.md): the first mount GIO's volume monitor shows that has a `GARMIN`
/// folder. `changed` runs when one is mounted or goes away, or when a mounted volume's `GARMIN` folder is made or
/// removed; Send to Watch is offered only while ``folder`` is set.
final class WatchMonitor {
    /// The mounted watch's `GARMIN` folder, if one is mounted.
    private(set) var folder: String?
    var changed: () -> Void = {}
    private let monitor: UnsafeMutablePointer<GVolumeMonitor>?
    /// This object's handlers on the monitor.
    private var handlers: [gulong] = []
    /// Each mount's root folder, watched: the volume monitor says nothing when a folder is made on a volume already
    /// mounted, so a `GARMIN` folder made there went unnoticed until the volume was mounted again.
    private var roots: [String: FileWatch] = [:]

    init() {
        monitor = g_volume_monitor_get()
        update()
        guard let monitor else { return }
        handlers = [Signal.mountAdded, .mountRemoved, .mountChanged].map { signal in
            on(UnsafeMutableRawPointer(monitor), signal) { [unowned self] _ in update() }
        }
    }

    /// Watches the roots of the mounts there are now, and looks for a `GARMIN` folder on them again.
    private func update() {
        let mounted = Self.mountRoots(monitor)
        roots = mounted.reduce(into: [:]) { watches, root in
            watches[root] =
                roots[root] ?? watches[root]
                ?? FileWatch(.folder(root), settle: 150) { [unowned self] in update() }
        }
        let found = mounted.lazy.map { $0 + "/GARMIN" }.first(where: Self.isFolder)
        guard found != folder else { return }
        folder = found
        changed()
    }

    deinit {
        // The monitor is GIO's, shared, and outlives this object: its handlers go with it.
        if let monitor {
            for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(monitor), handler) }
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }

    /// Copies a workout file to the watch's `GARMIN/NewFiles`, where a watch takes new workouts from, whole or not at
    /// all (a temporary file renamed into place); its path, or nil when no watch is mounted.
    func send(_ bytes: [UInt8], named name: String) throws(FileError) -> String? {
        guard let folder else { return nil }
        try FileBytes.makeDirectories(folder + "/NewFiles")
        let path = "\(folder)/NewFiles/\(FIT.fileName(for: name, extension: "fit"))"
        try FileBytes.replace(path, with: bytes)
        return path
    }

    /// The root folders of the mounts GIO shows, in its order.
    private static func mountRoots(_ monitor: UnsafeMutablePointer<GVolumeMonitor>?) -> [String] {
        guard let monitor else { return [] }
        let mounts = g_volume_monitor_get_mounts(monitor)
        defer { g_list_free_full(mounts) { g_object_unref($0) } }
        var roots: [String] = []
        var node = mounts
        while let current = node {
            defer { node = current.pointee.next }
            guard let root = g_mount_get_root(OpaquePointer(current.pointee.data)) else { continue }
            defer { g_object_unref(UnsafeMutableRawPointer(root)) }
            guard let path = g_file_get_path(root) else { continue }
            defer { g_free(path) }
            roots.append(String(cString: path))
        }
        return roots
    }

    private static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}

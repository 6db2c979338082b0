internal import CGio
import IntervalCore
import Logging

/// Finds the connected watches (docs/fit.md) through GIO alone: every mount of the volume monitor, with a local path
/// (a watch as USB storage, `GARMIN` at its root) or without one (an MTP watch that gvfs shows as `mtp://…`, `GARMIN`
/// inside a storage folder such as "Internal Storage"). Only GFile calls are made, never a path's `stat`: a gvfs mount
/// has no path that exists unless gvfsd-fuse runs.
public enum WatchFinder {
    /// The watches connected now, in the volume monitor's order. Synchronous: on a gvfs mount, each folder looked at
    /// is a round trip to its backend.
    public static func connected() -> [Watch] {
        guard let monitor = volumeMonitor() else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(monitor)) }
        return mounts(of: monitor).compactMap { watch(on: $0) }
    }

    /// GIO's volume monitor (a new reference). Made quietly: as it is made, gvfs asks each of its volume monitors'
    /// services whether it runs, and prints a warning for each that does not ("remote volume monitor with dbus name
    /// org.gtk.vfs.UDisks2VolumeMonitor is not supported") on stderr. A missing service is a normal desktop here (no
    /// udisks2, no GNOME Online Accounts), so what it says goes to the debug log instead.
    static func volumeMonitor() -> UnsafeMutablePointer<GVolumeMonitor>? {
        let printer = g_set_printerr_handler { text in logGVFS(text) }
        let handler = g_log_set_handler(
            gvfsRemoteMonitorDomain,
            GLogLevelFlags(
                rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue | G_LOG_LEVEL_INFO.rawValue),
            { _, _, text, _ in logGVFS(text) }, nil)
        defer {
            g_log_remove_handler(gvfsRemoteMonitorDomain, handler)
            g_set_printerr_handler(printer)
        }
        return g_volume_monitor_get()
    }

    /// A mount as the volume monitor lists it: its name and its root's URI.
    struct Mount: Sendable, Equatable {
        let name: String
        let root: String
    }

    /// The mounts of GIO's volume monitor (`g_volume_monitor_get_mounts`): the union of the local mounts, gvfs's own
    /// (`mtp://`, `localtest://`) and those of the volume monitors' services (udisks2, MTP, …) that run.
    static func mounts(of monitor: UnsafeMutablePointer<GVolumeMonitor>) -> [Mount] {
        let list = g_volume_monitor_get_mounts(monitor)
        defer { g_list_free_full(list) { g_object_unref($0) } }
        var mounts: [Mount] = []
        var node = list
        while let current = node {
            defer { node = current.pointee.next }
            let mount = OpaquePointer(current.pointee.data)
            guard let root = g_mount_get_root(mount) else { continue }
            let file = GIOFile(taking: root)
            mounts.append(Mount(name: takeString(g_mount_get_name(mount)) ?? file.baseName, root: file.uri))
        }
        return mounts
    }

    /// The watch on `mount`: its root's `GARMIN` folder, else the first top-level folder's; nil when there is none.
    /// Its free space is asked for only with `freeSpace` (a round trip more).
    static func watch(on mount: Mount, freeSpace: Bool = true) -> Watch? {
        let root = GIOFile(uri: mount.root)
        let atRoot = root.child("GARMIN")
        guard
            let garmin = atRoot.isFolder
                ? atRoot : root.folders().lazy.map({ $0.child("GARMIN") }).first(where: \.isFolder)
        else { return nil }
        return Watch(
            name: mount.name, folder: garmin.uri, location: garmin.parseName,
            freeBytes: freeSpace ? garmin.freeBytes : nil)
    }
}

/// The log domain of gvfs's proxies for the volume monitors' services.
private let gvfsRemoteMonitorDomain = "GVFS-RemoteVolumeMonitor"

private let gvfsLogger = Logger(label: "intervald.watch.gvfs")

private func logGVFS(_ text: UnsafePointer<gchar>?) {
    guard let text else { return }
    gvfsLogger.debug("GIO's volume monitor said: \(String(cString: text).trimmingSpaces)")
}

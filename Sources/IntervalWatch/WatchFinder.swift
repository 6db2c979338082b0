internal import CGio
import IntervalCore

/// Finds the connected watches (docs/fit.md) through GIO alone: every mount of the volume monitor, with a local path
/// (a watch as USB storage, `GARMIN` at its root) or without one (an MTP watch that gvfs shows as `mtp://…`, `GARMIN`
/// inside a storage folder such as "Internal Storage"). Only GFile calls are made, never a path's `stat`: a gvfs mount
/// has no path that exists unless gvfsd-fuse runs.
public enum WatchFinder {
    /// The watches connected now, in the volume monitor's order. Synchronous: on a gvfs mount, each folder looked at
    /// is a round trip to its backend.
    public static func connected() -> [Watch] {
        guard let monitor = g_volume_monitor_get() else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(monitor)) }
        return mounts(of: monitor).compactMap { watch(on: $0) }
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

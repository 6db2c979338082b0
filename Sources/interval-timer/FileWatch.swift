import CGtk
import IntervalGLib
import IntervalRuntime

/// A file, or a folder's files, watched for changes by any program (a GFileMonitor): `changed` runs once a change is
/// done, or with `settle`, once a burst of them is over (a save is often several events). A folder is made if it does
/// not exist: one that does not cannot be watched.
final class FileWatch {
    enum Target {
        case file(String)
        case folder(String)
    }

    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private var pending = false

    init(_ target: Target, settle milliseconds: UInt32? = nil, _ changed: @escaping () -> Void) {
        let path: String
        switch target {
        case .file(let file): path = file
        case .folder(let folder):
            try? FileBytes.makeDirectories(folder)
            path = folder
        }
        guard let file = g_file_new_for_path(path) else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        monitor =
            if case .folder = target {
                g_file_monitor_directory(file, G_FILE_MONITOR_NONE, nil, nil)
            } else {
                g_file_monitor_file(file, G_FILE_MONITOR_NONE, nil, nil)
            }
        guard let monitor else { return }
        on(UnsafeMutableRawPointer(monitor), .fileChanged) { [unowned self] event in
            // Once a change is done, not at each write.
            guard [FileMonitorEvent.changesDone, .created, .deleted].contains(event) else { return }
            guard let milliseconds else { return changed() }
            guard !pending else { return }
            pending = true
            // Weak: the watch may end within the wait (the window closed).
            _ = after(milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                pending = false
                changed()
            }
        }
    }

    deinit {
        if let monitor {
            g_file_monitor_cancel(monitor)
            g_object_unref(UnsafeMutableRawPointer(monitor))
        }
    }
}

import Dispatch
import Glibc

/// Tells, on a queue, which files of a directory changed (inotify): written and closed, moved in or out, created or
/// deleted. A burst of events, such as an editor's save (a temporary file written, then renamed over the old one), is
/// one call, `settle` after the last of them, so that a reader never sees a file half written.
public final class DirectoryWatcher: @unchecked Sendable {
    private let descriptor: Int32
    private let source: DispatchSourceRead
    // Confined to the queue.
    private var changed: Set<String> = []
    private var settling: DispatchWorkItem?

    /// Watches `directory`, made first if missing (as `mkdir -p`, the umask deciding); `onChange` runs on `queue` with the names
    /// (not paths) of the files that changed.
    public init(
        directory: String, queue: DispatchQueue, settle: DispatchTimeInterval = .milliseconds(50),
        onChange: @escaping ([String]) -> Void
    ) throws(FileError) {
        try FileBytes.makeDirectories(directory)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw FileError(operation: "watch", path: directory, errno: errno) }
        let mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE
        guard inotify_add_watch(descriptor, directory, UInt32(mask)) >= 0 else {
            let error = errno
            close(descriptor)
            throw FileError(operation: "watch", path: directory, errno: error)
        }
        self.descriptor = descriptor
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            changed.formUnion(readNames())
            settling?.cancel()
            let report = DispatchWorkItem { [weak self] in
                guard let self, !changed.isEmpty else { return }
                let names = changed.sorted()
                changed = []
                onChange(names)
            }
            settling = report
            queue.asyncAfter(deadline: .now() + settle, execute: report)
        }
        source.setCancelHandler { close(descriptor) }
        source.activate()
    }

    deinit {
        settling?.cancel()
        source.cancel()
    }

    /// The names in the events waiting to be read.
    private func readNames() -> [String] {
        var names: [String] = []
        // Room for many events at once; each is a header and a name padded to a multiple of its alignment.
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return names }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let nameLength = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len)
                }
                let nameStart = offset + headerSize
                let nameEnd = min(nameStart + nameLength, count)
                let name = buffer[nameStart..<nameEnd].prefix { $0 != 0 }
                if !name.isEmpty { names.append(String(decoding: name, as: UTF8.self)) }
                offset = nameStart + nameLength
            }
        }
    }
}

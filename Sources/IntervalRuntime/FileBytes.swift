import Glibc

/// A file operation that failed: which, on what path, and the errno.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public var description: String { "Failed to \(operation) \(path): \(errnoText(errno))" }
}

/// Who may read what ``FileBytes`` creates.
public enum FileAccess: Sendable {
    /// As the umask says, as every other program's files and folders: exports, plans, settings.
    case umask
    /// The owner alone, whatever the umask: the workout's state and history.
    case owner

    var fileMode: mode_t { self == .umask ? 0o666 : 0o600 }
    var directoryMode: mode_t { self == .umask ? 0o777 : 0o700 }
}

/// Whole-file reads, atomic replacement and appends with `read(2)`/`write(2)`, retrying interrupted calls.
public enum FileBytes {
    /// The file's bytes, at most `limit` of them; a longer file fails with `EFBIG`.
    public static func read(_ path: String, limit: Int) throws(FileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "read", path: path, errno: errno)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw FileError(operation: "read", path: path, errno: EFBIG) }
        }
    }

    /// Replaces `path` with `bytes` so that a crash at any instant leaves the old file or the new one: a temporary
    /// file in the same directory, `fsync`, `rename`, then `fsync` of the directory (at once, or, with
    /// `durable: .later`, when the ``PendingSync`` it returns is performed).
    @discardableResult
    public static func replace(
        _ path: String, with bytes: [UInt8], access: FileAccess = .umask, durable: Durability = .now
    ) throws(FileError) -> PendingSync {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, access.fileMode)
        guard descriptor >= 0 else { throw FileError(operation: "create", path: temporary, errno: errno) }
        do throws(FileError) {
            try writeAll(bytes, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw FileError(operation: "sync", path: temporary, errno: errno) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileError(operation: "rename", path: temporary, errno: code)
        }
        return try durable.settle(PendingSync(.directory(of: path)))
    }

    /// Creates `path` with `bytes` as ``replace(_:with:)`` does, but never over an existing file: that fails with
    /// `EEXIST` (the file is linked into place, which, unlike `rename`, refuses to replace).
    public static func create(_ path: String, with bytes: [UInt8]) throws(FileError) {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FileAccess.umask.fileMode)
        guard descriptor >= 0 else { throw FileError(operation: "create", path: temporary, errno: errno) }
        defer { unlink(temporary) }
        do throws(FileError) {
            try writeAll(bytes, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw FileError(operation: "sync", path: temporary, errno: errno) }
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        guard link(temporary, path) == 0 else { throw FileError(operation: "create", path: path, errno: errno) }
        syncDirectory(of: path)
    }

    /// Removes `path` durably (the directory is synced after `unlink`, at once or as `durable` says); a file that is
    /// already gone is not an error.
    @discardableResult
    public static func remove(_ path: String, durable: Durability = .now) throws(FileError) -> PendingSync {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileError(operation: "remove", path: path, errno: errno)
        }
        return try durable.settle(PendingSync(.directory(of: path)))
    }

    /// Appends `bytes` with one `write(2)` on an `O_APPEND` descriptor, so that concurrent readers see whole lines
    /// (a torn last line only if the machine stops mid-write), then `fsync` (at once or as `durable` says).
    @discardableResult
    public static func append(
        _ bytes: [UInt8], to path: String, access: FileAccess = .umask, durable: Durability = .now
    ) throws(FileError) -> PendingSync {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, access.fileMode)
        guard descriptor >= 0 else { throw FileError(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor, path: path)
        guard durable == .now else { return PendingSync(.file(path)) }
        guard fsync(descriptor) == 0 else { throw FileError(operation: "sync", path: path, errno: errno) }
        return PendingSync()
    }

    /// Creates `path` and its missing parents, each as `access` says; a relative path is from the current directory.
    public static func makeDirectories(_ path: String, access: FileAccess = .umask) throws(FileError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, access.directoryMode) != 0, errno != EEXIST {
                throw FileError(operation: "create the directory", path: prefix, errno: errno)
            }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(operation: "write", path: path, errno: errno)
            }
            offset += written
        }
    }

    fileprivate static func syncDirectory(of path: String) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// Whether a write of ``FileBytes`` `fsync`s what makes it survive a power cut before it returns, or leaves that to
/// the ``PendingSync`` it answers. Either way the write is in place, for every process to read, when it returns.
public enum Durability: Sendable {
    case now
    case later

    fileprivate func settle(_ pending: PendingSync) throws(FileError) -> PendingSync {
        guard self == .now else { return pending }
        try pending.perform()
        return PendingSync()
    }
}

/// The `fsync` a write of ``FileBytes`` left for later (``Durability/later``), or nothing.
public struct PendingSync: Sendable {
    fileprivate enum Target: Sendable {
        /// The file's bytes: an append.
        case file(String)
        /// The entry of the file in its directory: a rename or an unlink.
        case directory(of: String)
    }

    private let target: Target?

    /// Nothing left to sync.
    public init() {
        target = nil
    }

    fileprivate init(_ target: Target) {
        self.target = target
    }

    /// Syncs what was left, failing as the write would have (a directory's `fsync` is best effort, as in a write).
    public func perform() throws(FileError) {
        switch target {
        case .file(let path):
            // Any descriptor of the file flushes its pages, not only the one that wrote them.
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileError(operation: "open", path: path, errno: errno) }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else { throw FileError(operation: "sync", path: path, errno: errno) }
        case .directory(of: let path):
            FileBytes.syncDirectory(of: path)
        case nil:
            break
        }
    }
}

import Glibc

/// A new directory under /tmp, `/tmp/PREFIX-XXXXXX` (mkdtemp), for a test's files; "/tmp" if none can be made.
public func temporaryDirectory(prefix: String) -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return "/tmp" }
        return String(cString: made)
    }
}

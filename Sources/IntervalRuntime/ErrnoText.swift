import Glibc

/// The C library's sentence for an errno value ("No such file or directory"). The corresponding C function is
/// `strerror`.
public func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

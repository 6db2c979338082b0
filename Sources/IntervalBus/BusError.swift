import CSystemd
import Glibc
import IntervalRuntime

/// A libsystemd call that failed: the errno it returned (negated back to positive), the C function, and,
/// when the failure came with one, the D-Bus error name and message (a remote error reply, or sd-bus's own).
public struct BusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The positive errno value, e.g. `ECONNREFUSED`.
    public var errno: Int32
    /// The libsystemd function that failed, e.g. `sd_bus_call`.
    public var function: String
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.ServiceUnknown`, if the failure carried one.
    public var name: String?
    /// The D-Bus error message that came with `name`.
    public var message: String?

    public init(errno: Int32, function: String, name: String? = nil, message: String? = nil) {
        self.errno = errno
        self.function = function
        self.name = name
        self.message = message
    }

    /// The text of `strerror` for `errno`.
    public var errnoDescription: String {
        errnoText(errno)
    }

    public var description: String {
        if let name {
            let detail = message.map { ": \($0)" } ?? ""
            return "\(function)() failed with \(name)\(detail)"
        }
        if let message {
            return "\(function)() failed: \(message)"
        }
        return "\(function)() failed: \(errnoDescription)."
    }
}

// MARK: - The one place where sd-bus's negative-errno returns become Swift errors.

/// Runs a libsystemd call that returns `-errno` on failure and `>= 0` on success; throws ``BusError``
/// naming `function` for a negative result.
@discardableResult
@inline(__always)
internal func sdCall(_ function: StaticString, _ body: () -> Int32) throws(BusError) -> Int32 {
    let result = body()
    if result < 0 {
        throw BusError(errno: -result, function: "\(function)")
    }
    return result
}

/// Like ``sdCall(_:_:)`` for calls that also fill an `sd_bus_error` (e.g. `sd_bus_call`): its name and
/// message go into the thrown ``BusError``; the `sd_bus_error` is freed either way.
@discardableResult
@inline(__always)
internal func sdCall(
    _ function: StaticString,
    withError body: (UnsafeMutablePointer<sd_bus_error>) -> Int32
) throws(BusError) -> Int32 {
    var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
    defer { sd_bus_error_free(&error) }
    let result = body(&error)
    if result < 0 {
        throw BusError(
            errno: -result, function: "\(function)",
            name: error.name.map { String(cString: $0) },
            message: error.message.map { String(cString: $0) })
    }
    return result
}

import CSystemd
import Glibc
import IntervalCore

/// An owning wrapper of an `sd_bus_message *`, released in `deinit` (`sd_bus_message_unref`).
///
/// Appending and reading go through `sd_bus_message_append_basic` / `sd_bus_message_read_basic`, the
/// non-variadic forms that import into Swift. Strings read are copied into Swift `String`s at once, since
/// the C strings belong to the message.
public final class BusMessage {
    /// The `sd_bus_message *` this object owns one reference of.
    public let pointer: OpaquePointer

    /// Takes over one reference of `pointer`.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Takes over the reference an sd-bus constructor returned through an out-parameter.
    init(owningResult pointer: OpaquePointer?, function: StaticString) throws(BusError) {
        guard let pointer else { throw BusError(errno: EINVAL, function: "\(function)") }
        self.pointer = pointer
    }

    /// Adds a reference to a message sd-bus lends to a callback. The corresponding C function is `sd_bus_message_ref`.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
    }

    deinit {
        sd_bus_message_unref(pointer)
    }

    /// The method return for this call, to fill and ``send()``. The corresponding C function is
    /// `sd_bus_message_new_method_return`.
    public func newMethodReturn() throws(BusError) -> BusMessage {
        var reply: OpaquePointer?
        try sdCall("sd_bus_message_new_method_return") { sd_bus_message_new_method_return(pointer, &reply) }
        return try BusMessage(owningResult: reply, function: "sd_bus_message_new_method_return")
    }

    /// Queues this message on the connection it was made for. The corresponding C function is `sd_bus_send`.
    public func send() throws(BusError) {
        try sdCall("sd_bus_send") { sd_bus_send(nil, pointer, nil) }
    }

    // MARK: Header

    /// The member (method or signal name). The corresponding C function is `sd_bus_message_get_member`.
    public var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    /// The interface. The corresponding C function is `sd_bus_message_get_interface`.
    public var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    /// The object path. The corresponding C function is `sd_bus_message_get_path`.
    public var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    /// The sender's unique name. The corresponding C function is `sd_bus_message_get_sender`.
    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// Whether this is the signal `interface`.`member` (`nil` matches any).
    /// The corresponding C function is `sd_bus_message_is_signal`.
    public func isSignal(interface: String?, member: String?) -> Bool {
        withOptionalCString(interface) { interface in
            withOptionalCString(member) { member in sd_bus_message_is_signal(pointer, interface, member) > 0 }
        }
    }

    /// Whether the bus may start the destination service to deliver this method call (the default: yes).
    /// The corresponding C function is `sd_bus_message_set_auto_start`.
    public func setAutoStart(_ autoStart: Bool) throws(BusError) {
        try sdCall("sd_bus_message_set_auto_start") { sd_bus_message_set_auto_start(pointer, autoStart ? 1 : 0) }
    }

    // MARK: Appending

    /// Appends a string (`s`). A D-Bus string cannot hold a NUL byte: such a string fails with `EINVAL`
    /// rather than being cut short. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: String) throws(BusError) {
        if value.utf8.contains(0) {
            throw BusError(
                errno: EINVAL, function: "sd_bus_message_append_basic", message: "The string contains a NUL byte.")
        }
        try sdCall("sd_bus_message_append_basic") {
            value.withCString { sd_bus_message_append_basic(pointer, typeString, $0) }
        }
    }

    /// Appends a `u`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt32) throws(BusError) { try appendNumber(typeUInt32, value) }

    /// Appends a `q`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt16) throws(BusError) { try appendNumber(typeUInt16, value) }

    /// Appends a `t`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt64) throws(BusError) { try appendNumber(typeUInt64, value) }

    /// Appends an `x`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Int64) throws(BusError) { try appendNumber(typeInt64, value) }

    /// Appends a `d`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Double) throws(BusError) { try appendNumber(typeDouble, value) }

    /// Appends a fixed-size item of `type` from a value of its C layout.
    private func appendNumber<Number>(_ type: CChar, _ value: Number) throws(BusError) {
        var value = value
        try sdCall("sd_bus_message_append_basic") {
            withUnsafePointer(to: &value) { sd_bus_message_append_basic(pointer, type, $0) }
        }
    }

    /// Appends an object path (`o`); an invalid path fails with `EINVAL`. The corresponding C function is
    /// `sd_bus_message_append_basic`.
    public func append(objectPath: String) throws(BusError) {
        try sdCall("sd_bus_message_append_basic") {
            objectPath.withCString { sd_bus_message_append_basic(pointer, typeObjectPath, $0) }
        }
    }

    /// Appends an `as`.
    public func append(_ values: [String]) throws(BusError) {
        try openContainer("a", contents: "s")
        for value in values { try append(value) }
        try closeContainer()
    }

    /// Opens a container (`a`, `v`, `r`, `e`) of `contents`. The corresponding C function is
    /// `sd_bus_message_open_container`.
    public func openContainer(_ type: Character, contents: String) throws(BusError) {
        let code = try cType(type)
        try sdCall("sd_bus_message_open_container") { sd_bus_message_open_container(pointer, code, contents) }
    }

    /// Closes the container opened last. The corresponding C function is `sd_bus_message_close_container`.
    public func closeContainer() throws(BusError) {
        try sdCall("sd_bus_message_close_container") { sd_bus_message_close_container(pointer) }
    }

    /// Appends an `i`. The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Int32) throws(BusError) { try appendNumber(typeInt32, value) }

    /// Appends one `{sv}` entry of an `a{sv}`: `key`, and a variant of `signature` that `value` appends.
    public func appendEntry(
        _ key: String, _ signature: String, _ value: (BusMessage) throws(BusError) -> Void
    ) throws(BusError) {
        try appendNamedVariant(in: "e", key, signature, value)
    }

    /// Appends one `(sv)` of an `a(sv)` (systemd's unit properties): `name`, and a variant of `signature` that `value`
    /// appends.
    public func appendProperty(
        _ name: String, _ signature: String, _ value: (BusMessage) throws(BusError) -> Void
    ) throws(BusError) {
        try appendNamedVariant(in: "r", name, signature, value)
    }

    /// A `{sv}` (`container` "e") or `(sv)` ("r"): the name, then the variant.
    private func appendNamedVariant(
        in container: Character, _ key: String, _ signature: String, _ value: (BusMessage) throws(BusError) -> Void
    ) throws(BusError) {
        try openContainer(container, contents: "sv")
        try append(key)
        try openContainer("v", contents: signature)
        try value(self)
        try closeContainer()
        try closeContainer()
    }

    /// Appends an `ay` in one piece. The corresponding C function is `sd_bus_message_append_array`.
    public func append(bytes: [UInt8]) throws(BusError) {
        try sdCall("sd_bus_message_append_array") {
            bytes.withUnsafeBytes { sd_bus_message_append_array(pointer, typeByte, $0.baseAddress, $0.count) }
        }
    }

    /// Appends an `ai`.
    public func append(_ values: [Int32]) throws(BusError) {
        try openContainer("a", contents: "i")
        for value in values { try append(value) }
        try closeContainer()
    }

    /// Appends a `b` (sent as a 32-bit integer). The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Bool) throws(BusError) { try appendNumber(typeBoolean, Int32(value ? 1 : 0)) }

    // MARK: Reading

    /// Reads a `s` (or `o`, `g` with `type`), copying it. The corresponding C function is `sd_bus_message_read_basic`.
    public func readString(type: Character = "s") throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        try readBasic(type) { sd_bus_message_read_basic(pointer, $0, &value) }
        guard let value else { throw BusError(errno: EBADMSG, function: "sd_bus_message_read_basic") }
        return String(cString: value)
    }

    /// Reads a `s` without copying it: the C string belongs to the message and lives as long as it does (so that a
    /// caller can refuse an oversized one before paying for a copy). The corresponding C function is
    /// `sd_bus_message_read_basic`.
    public func readBorrowedString() throws(BusError) -> UnsafePointer<CChar> {
        var value: UnsafePointer<CChar>?
        try readBasic("s") { sd_bus_message_read_basic(pointer, $0, &value) }
        guard let value else { throw BusError(errno: EBADMSG, function: "sd_bus_message_read_basic") }
        return value
    }

    /// Reads a `h` and returns a duplicate of the file descriptor, close-on-exec, which the caller owns and must
    /// close (the message keeps its own). The corresponding C function is `sd_bus_message_read_basic`.
    public func readFileDescriptor() throws(BusError) -> Int32 {
        let borrowed: Int32 = try readNumber("h", -1)
        let owned = fcntl(borrowed, F_DUPFD_CLOEXEC, 3)
        guard owned >= 0 else { throw BusError(errno: errno, function: "fcntl(F_DUPFD_CLOEXEC)") }
        return owned
    }

    /// Reads a `u`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readUInt32() throws(BusError) -> UInt32 { try readNumber("u", 0) }

    /// Reads a `q`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readUInt16() throws(BusError) -> UInt16 { try readNumber("q", UInt16(0)) }

    /// Reads a `t`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readUInt64() throws(BusError) -> UInt64 { try readNumber("t", 0) }

    /// Reads a `x`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readInt64() throws(BusError) -> Int64 { try readNumber("x", 0) }

    /// Reads an `i`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readInt32() throws(BusError) -> Int32 { try readNumber("i", Int32(0)) }

    /// Reads an `ai` to its end.
    public func readInt32Array() throws(BusError) -> [Int32] { try readArray(of: "i", readInt32) }

    /// Reads a `d`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readDouble() throws(BusError) -> Double { try readNumber("d", 0.0) }

    /// Reads a `b`. The corresponding C function is `sd_bus_message_read_basic`.
    public func readBool() throws(BusError) -> Bool { try readNumber("b", Int32(0)) != 0 }

    /// Reads a fixed-size item of `type` into a value of its C layout, `initial` until read.
    private func readNumber<Number>(_ type: Character, _ initial: Number) throws(BusError) -> Number {
        var value = initial
        try readBasic(type) { code in
            withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(pointer, code, $0) }
        }
        return value
    }

    /// Reads a `v` whose value is one of the types ``BlueZValue`` keeps (strings and object paths, booleans, integers,
    /// `ay`, `as`); any other is skipped and read as ``BlueZValue/other``.
    public func readBlueZValue() throws(BusError) -> BlueZValue {
        guard let (type, contents) = try peekType(), type == "v", let contents else {
            throw BusError(errno: EBADMSG, function: "sd_bus_message_peek_type")
        }
        try enterContainer("v", contents: contents)
        let value: BlueZValue
        switch contents {
        case "s", "o": value = .string(try readString(type: Character(contents)))
        case "b": value = .bool(try readBool())
        case "y": value = .number(Int64(try readNumber("y", UInt8(0))))
        case "n": value = .number(Int64(try readNumber("n", Int16(0))))
        case "q": value = .number(Int64(try readUInt16()))
        case "i": value = .number(Int64(try readInt32()))
        case "u": value = .number(Int64(try readUInt32()))
        case "x": value = .number(try readInt64())
        case "ay": value = .bytes(try readByteArray())
        case "as", "ao":
            value = .strings(
                try readArray(of: String(contents.dropFirst())) { () throws(BusError) in
                    try readString(type: Character(String(contents.dropFirst())))
                })
        default:
            try skip(contents)
            value = .other
        }
        try exitContainer()
        return value
    }

    /// Reads an `ay` in one piece. The corresponding C function is `sd_bus_message_read_array`.
    public func readByteArray() throws(BusError) -> [UInt8] {
        var data: UnsafeRawPointer?
        var size = 0
        try sdCall("sd_bus_message_read_array") { sd_bus_message_read_array(pointer, typeByte, &data, &size) }
        guard let data, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Reads an `a{sv}` of properties to its end, each value with ``readBlueZValue()``.
    public func readProperties() throws(BusError) -> [String: BlueZValue] {
        var properties: [String: BlueZValue] = [:]
        try enterContainer("a", contents: "{sv}")
        while try enterContainer("e", contents: "sv") {
            let name = try readString()
            properties[name] = try readBlueZValue()
            try exitContainer()
        }
        try exitContainer()
        return properties
    }

    /// Reads an `av` to its end: the first variant's string, if it holds one (an action's parameter).
    public func readFirstStringOfVariants() throws(BusError) -> String? {
        guard try enterContainer("a", contents: "v") else { return nil }
        var first: String?
        if let next = try peekType(), next.contents == "s" {
            try enterContainer("v", contents: "s")
            first = try readString()
            try exitContainer()
        }
        while try peekType() != nil { try skip("v") }
        try exitContainer()
        return first
    }

    /// Reads the rest of a `PropertiesChanged` after its interface: the names of the changed properties (their values
    /// skipped), then of the invalidated ones.
    public func readChangedPropertyNames() throws(BusError) -> [String] {
        var names: [String] = []
        try enterContainer("a", contents: "{sv}")
        while try enterContainer("e", contents: "sv") {
            names.append(try readString())
            try skip("v")
            try exitContainer()
        }
        try exitContainer()
        return names + (try readStringArray())
    }

    /// The name and its new owner of a `NameOwnerChanged(s name, s old_owner, s new_owner)` signal (an empty owner:
    /// the name was released); nil if the message is not one.
    public func readNameOwnerChange() -> (name: String, newOwner: String)? {
        guard let name = try? readString(), (try? readString()) != nil, let owner = try? readString() else {
            return nil
        }
        return (name, owner)
    }

    /// Reads a string array (`as`) to its end.
    public func readStringArray() throws(BusError) -> [String] {
        try readArray(of: "s") { () throws(BusError) in try readString() }
    }

    /// Reads an array of `contents` to its end, an element with `element`.
    private func readArray<Element>(
        of contents: String, _ element: () throws(BusError) -> Element
    ) throws(BusError) -> [Element] {
        var elements: [Element] = []
        guard try enterContainer("a", contents: contents) else { return elements }
        while try peekType() != nil {
            elements.append(try element())
        }
        try exitContainer()
        return elements
    }

    /// The type and, for containers, the contents signature of the next item; `nil` at the end of the
    /// current container. The corresponding C function is `sd_bus_message_peek_type`.
    public func peekType() throws(BusError) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let found = try sdCall("sd_bus_message_peek_type") { sd_bus_message_peek_type(pointer, &type, &contents) }
        guard found > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    /// Enters a container (`a`, `v`, `r`, `e`) whose contents have signature `contents`. Returns `false`
    /// at the end of the enclosing container. The corresponding C function is `sd_bus_message_enter_container`.
    @discardableResult
    public func enterContainer(_ type: Character, contents: String) throws(BusError) -> Bool {
        let code = try cType(type)
        return try sdCall("sd_bus_message_enter_container") {
            sd_bus_message_enter_container(pointer, code, contents)
        } > 0
    }

    /// Leaves the container entered last. The corresponding C function is `sd_bus_message_exit_container`.
    public func exitContainer() throws(BusError) {
        try sdCall("sd_bus_message_exit_container") { sd_bus_message_exit_container(pointer) }
    }

    /// Skips items of the signature `types` (e.g. `"v"`). The corresponding C function is `sd_bus_message_skip`.
    public func skip(_ types: String) throws(BusError) {
        try sdCall("sd_bus_message_skip") { sd_bus_message_skip(pointer, types) }
    }

    /// Runs one `sd_bus_message_read_basic`; a return of 0 (no item left) is an error here.
    private func readBasic(_ type: Character, _ body: (CChar) -> Int32) throws(BusError) {
        let code = try cType(type)
        let found = try sdCall("sd_bus_message_read_basic") { body(code) }
        if found == 0 {
            throw BusError(errno: ENXIO, function: "sd_bus_message_read_basic")
        }
    }
}

private let typeString = CChar(UInt8(ascii: "s"))
private let typeInt32 = CChar(UInt8(ascii: "i"))
private let typeByte = CChar(UInt8(ascii: "y"))
private let typeUInt16 = CChar(UInt8(ascii: "q"))
private let typeUInt32 = CChar(UInt8(ascii: "u"))
private let typeUInt64 = CChar(UInt8(ascii: "t"))
private let typeBoolean = CChar(UInt8(ascii: "b"))
private let typeInt64 = CChar(UInt8(ascii: "x"))
private let typeDouble = CChar(UInt8(ascii: "d"))
private let typeObjectPath = CChar(UInt8(ascii: "o"))

private func cType(_ type: Character) throws(BusError) -> CChar {
    guard let ascii = type.asciiValue else { throw BusError(errno: EINVAL, function: "sd_bus_message type") }
    return CChar(bitPattern: ascii)
}

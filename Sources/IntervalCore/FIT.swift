/// Garmin's FIT container (Flexible and Interoperable Data Transfer, protocol 2.0), written from the protocol's public
/// description: a 14-byte header (its size, the protocol and profile versions, the size of the records, ".FIT" and
/// the header's CRC), definition and data records, and the CRC-16 of everything before it. docs/fit.md has the
/// messages intervald writes and reads. Pure: bytes in, messages out, and back.
public enum FIT {
    /// The protocol version written: 2.0.
    static let protocolVersion: UInt8 = 0x20
    /// The profile version written: 21.40 (the messages and fields used here are in every 2.x profile).
    static let profileVersion: UInt16 = 2140
    /// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
    public static let epochOffset: Int64 = 631_065_600

    /// The `file_id` message every file begins with: its `type` (4 activity, 5 workout), manufacturer 255
    /// (development), product 1, and `time_created` at Unix second `created`.
    static func fileID(type: Int64, created: Int64) -> FITMessage {
        FileID.message([
            .type: .integer(type), .manufacturer: .integer(255), .product: .integer(1),
            .timeCreated: .integer(max(created - epochOffset, 0)),
        ])
    }

    /// The FIT sport and sub-sport of a workout of these kinds: running (on a treadmill) when a kind runs, walking
    /// (indoors) when one walks, (cardio) training otherwise.
    static func sport<Kinds: Sequence>(of kinds: Kinds) -> (sport: Int64, subSport: Int64)
    where Kinds.Element == String {
        let kinds = Array(kinds)
        if kinds.contains(where: { $0.contains("run") || $0 == "jog" }) { return (1, 1) }
        if kinds.contains("walk") { return (11, 27) }
        return (10, 26)
    }

    /// Whether `bytes` carry a FIT header's ".FIT" signature (what a file chooser's pick is told apart by).
    public static func hasSignature(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes[8..<12].elementsEqual(".FIT".utf8)
    }

    /// A field's base type (the byte of a field definition): its number, whether it is a multi-byte value whose
    /// endianness the definition gives, and the value that means "invalid".
    public enum BaseType: UInt8, Sendable {
        case enumeration = 0x00, sint8 = 0x01, uint8 = 0x02, sint16 = 0x83, uint16 = 0x84, sint32 = 0x85
        case uint32 = 0x86, string = 0x07, float32 = 0x88, float64 = 0x89, uint8z = 0x0A, uint16z = 0x8B
        case uint32z = 0x8C, byte = 0x0D, sint64 = 0x8E, uint64 = 0x8F, uint64z = 0x90

        /// Bytes per value.
        public var size: Int {
            switch self {
            case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
            case .sint16, .uint16, .uint16z: 2
            case .sint32, .uint32, .float32, .uint32z: 4
            case .float64, .sint64, .uint64, .uint64z: 8
            }
        }

        var isSigned: Bool { [.sint8, .sint16, .sint32, .sint64].contains(self) }
        var isInteger: Bool { ![.string, .float32, .float64, .byte].contains(self) }

        /// The bit pattern that means "no value" for an integer type.
        var invalid: UInt64 {
            switch self {
            case .uint8z, .uint16z, .uint32z, .uint64z: 0
            case .sint8: 0x7F
            case .sint16: 0x7FFF
            case .sint32: 0x7FFF_FFFF
            case .sint64: 0x7FFF_FFFF_FFFF_FFFF
            default: size == 8 ? UInt64.max : (UInt64(1) << UInt64(size * 8)) - 1
            }
        }
    }

    /// The CRC-16 of FIT (CRC-16/ARC: polynomial 0x8005 reflected, initial value 0) of `bytes`, continued from `crc`.
    public static func crc<Bytes: Sequence>(_ bytes: Bytes, from crc: UInt16 = 0) -> UInt16
    where Bytes.Element == UInt8 {
        var crc = crc
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }
}

/// A value of a field: a whole number, a text, or raw bytes (arrays, floats and the types intervald does not read).
public enum FITValue: Sendable, Equatable, CustomStringConvertible {
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var text: String? { if case .text(let value) = self { value } else { nil } }

    public var description: String {
        switch self {
        case .integer(let value): "\(value)"
        case .text(let value): value
        case .bytes(let value): "\(value)"
        }
    }
}

/// One field of a message: its number in the message's profile, its base type and its value.
public struct FITField: Sendable, Equatable {
    public var number: UInt8
    public var type: FIT.BaseType
    public var value: FITValue

    public init(_ number: UInt8, _ type: FIT.BaseType, _ value: FITValue) {
        self.number = number
        self.type = type
        self.value = value
    }

    /// An integer field.
    public static func integer(_ number: UInt8, _ type: FIT.BaseType, _ value: Int64) -> FITField {
        FITField(number, type, .integer(value))
    }

    /// A text field.
    public static func text(_ number: UInt8, _ value: String) -> FITField {
        FITField(number, .string, .text(value))
    }
}

/// A data message: its global message number (`file_id`, `workout`, `workout_step`, …: the profile's messages that
/// intervald writes and reads are in FITProfile.swift) and its valid fields (a field holding its type's invalid value
/// is left out when read).
public struct FITMessage: Sendable, Equatable {
    public var global: UInt16
    public var fields: [FITField]

    public init(_ global: UInt16, _ fields: [FITField]) {
        self.global = global
        self.fields = fields
    }

    /// The value of field `number`, if the message has it.
    public subscript(number: UInt8) -> FITValue? {
        fields.first { $0.number == number }?.value
    }
}

/// Why bytes are not a FIT file, with where.
public struct FITError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The offset of the byte where reading stopped: for a test or a debugger, not for the person, who is told what
    /// is wrong with the file and what to do.
    public var offset: Int

    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}

extension FIT {
    /// The bytes of a FIT file holding `messages` in order. Each kind of message gets one definition: a text field is
    /// as long as its longest value (a text longer than 254 bytes is cut at a character's boundary; callers shorten
    /// what they show first).
    public static func encode(_ messages: [FITMessage]) -> [UInt8] {
        var records: [UInt8] = []
        var localTypes: [DefinitionKey: UInt8] = [:]
        var textSizes: [TextKey: Int] = [:]
        for message in messages {
            for field in message.fields {
                if case .text(let text) = field.value {
                    let key = TextKey(global: message.global, field: field.number)
                    textSizes[key] = max(textSizes[key] ?? 1, min(Array(fittingText(text).utf8).count + 1, 255))
                }
            }
        }
        for message in messages {
            let sizes = message.fields.map { field in
                field.type == .string
                    ? textSizes[TextKey(global: message.global, field: field.number)] ?? 1
                    : field.value.byteCount(default: field.type.size)
            }
            let key = DefinitionKey(
                global: message.global,
                fields: zip(message.fields, sizes).map { [$0.number, UInt8($1), $0.type.rawValue] })
            let local: UInt8
            if let known = localTypes[key] {
                local = known
            } else {
                // At most 16 local types at once: a seventeenth definition takes over the oldest one's number.
                local = UInt8(localTypes.count % 16)
                localTypes = localTypes.filter { $0.value != local }
                localTypes[key] = local
                records.append(0x40 | local)
                records += [
                    0, 0, UInt8(message.global & 0xFF), UInt8(message.global >> 8), UInt8(message.fields.count),
                ]
                for definition in key.fields { records += definition }
            }
            records.append(local)
            for (field, size) in zip(message.fields, sizes) { records += field.bytes(size: size) }
        }
        var file: [UInt8] = [14, protocolVersion] + littleEndian(UInt64(profileVersion), size: 2)
        file += littleEndian(UInt64(records.count), size: 4)
        file += Array(".FIT".utf8)
        file += littleEndian(UInt64(crc(file)), size: 2)
        file += records
        file += littleEndian(UInt64(crc(file)), size: 2)
        return file
    }

    /// The data messages of a FIT file, in order; developer fields are skipped. Refuses a file that is not FIT, is cut
    /// short, has a CRC that does not match, or has a record it cannot read, saying which byte.
    public static func decode(_ bytes: [UInt8]) throws(FITError) -> [FITMessage] {
        guard bytes.count >= 12 else {
            throw FITError(
                trn(
                    "not a FIT file: {count} byte is shorter than a FIT header",
                    "not a FIT file: {count} bytes is shorter than a FIT header", bytes.count), at: 0)
        }
        // The signature first: without it the file is something else (plan text, a picture), and its other header
        // bytes mean nothing; with it, a header that does not add up is a FIT file damaged.
        guard hasSignature(bytes) else {
            throw FITError(tr("not a FIT file, or one whose header is damaged: it has no “.FIT” signature"), at: 8)
        }
        let headerSize = Int(bytes[0])
        guard headerSize == 12 || headerSize == 14 else {
            throw FITError(
                tr(
                    "the file is damaged: its header gives its own size as {size} bytes, not 12 or 14",
                    ["size": "\(headerSize)"]), at: 0)
        }
        guard bytes.count >= headerSize else { throw FITError(Self.cutShort(headerSize, bytes.count), at: bytes.count) }
        if headerSize == 14 {
            let stored = littleEndianValue(bytes[12..<14])
            guard stored == 0 || stored == crc(bytes[0..<12]) else {
                throw FITError(tr("the file is damaged: its header's CRC does not match the header"), at: 12)
            }
        }
        let dataSize = Int(littleEndianValue(bytes[4..<8]))
        let end = headerSize + dataSize
        guard end + 2 <= bytes.count else {
            throw FITError(Self.cutShort(end + 2, bytes.count), at: bytes.count)
        }
        guard littleEndianValue(bytes[end..<end + 2]) == crc(bytes[0..<end]) else {
            throw FITError(tr("the file is damaged: its CRC does not match its contents"), at: end)
        }
        var reader = RecordReader(bytes: bytes, offset: headerSize, end: end)
        return try reader.messages()
    }

    /// A file shorter than its header says: a copy that stopped before its end.
    private static func cutShort(_ promised: Int, _ count: Int) -> String {
        tr(
            "the file is incomplete, a copy that stopped before its end ({count} of its {promised} bytes): copy it again",
            ["promised": "\(promised)", "count": "\(count)"])
    }

    /// A file name for a thing called `name`: "Galloway run-walk 30-30.fit", with what a watch's FAT volume cannot
    /// hold in a name (`/ \ : * ? " < > |` and controls) replaced by `-` and blanks at its ends dropped; a name that
    /// is empty or would hide the file (".x") gets "plan" before it.
    public static func fileName(for name: String, extension ext: String) -> String {
        let unsafe: Set<Character> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]
        var safe = Substring(
            String(name.map { unsafe.contains($0) || $0.unicodeScalars.contains { $0.value < 0x20 } ? "-" : $0 }))
        while safe.first?.isWhitespace == true { safe.removeFirst() }
        while safe.last?.isWhitespace == true { safe.removeLast() }
        return (safe.isEmpty || safe.hasPrefix(".") ? "plan" + safe : String(safe)) + "." + ext
    }

    /// `text` as a FIT text holds it: at most 254 UTF-8 bytes, cut at a character's boundary, no NUL.
    static func fittingText(_ text: String, maximumBytes: Int = 254) -> String {
        var kept = ""
        var count = 0
        for character in text where character != "\0" {
            count += character.utf8.count
            guard count <= maximumBytes else { break }
            kept.append(character)
        }
        return kept
    }

    /// `value`'s low `size` bytes, little-endian.
    static func littleEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }

    /// The number that up to 8 little-endian bytes hold.
    static func littleEndianValue<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64($1.offset * 8) }
    }

    private struct DefinitionKey: Hashable {
        let global: UInt16
        let fields: [[UInt8]]
    }

    private struct TextKey: Hashable {
        let global: UInt16
        let field: UInt8
    }
}

extension FITValue {
    func byteCount(default size: Int) -> Int {
        if case .bytes(let bytes) = self { return max(bytes.count, 1) }
        return size
    }
}

extension FITField {
    /// The field's value as `size` bytes, little-endian.
    func bytes(size: Int) -> [UInt8] {
        switch value {
        case .integer(let number):
            return FIT.littleEndian(UInt64(bitPattern: number), size: size)
        case .text(let text):
            let utf8 = Array(FIT.fittingText(text, maximumBytes: size - 1).utf8)
            return utf8 + [UInt8](repeating: 0, count: size - utf8.count)
        case .bytes(let bytes):
            return Array(bytes.prefix(size)) + [UInt8](repeating: 0, count: max(size - bytes.count, 0))
        }
    }
}

/// Reads the records between a header and the CRC.
private struct RecordReader {
    struct Definition {
        let global: UInt16
        let bigEndian: Bool
        let fields: [(number: UInt8, size: Int, type: FIT.BaseType?)]
        let developerBytes: Int
    }

    let bytes: [UInt8]
    var offset: Int
    let end: Int
    var definitions: [UInt8: Definition] = [:]

    init(bytes: [UInt8], offset: Int, end: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
    }

    mutating func messages() throws(FITError) -> [FITMessage] {
        var messages: [FITMessage] = []
        while offset < end {
            let start = offset
            let header = try byte()
            if header & 0x80 != 0 {
                // A compressed-timestamp header: a data message of local type 0–3.
                messages.append(try data(local: (header >> 5) & 0x03, at: start))
            } else if header & 0x40 != 0 {
                try define(local: header & 0x0F, developer: header & 0x20 != 0, at: start)
            } else {
                messages.append(try data(local: header & 0x0F, at: start))
            }
        }
        return messages
    }

    /// A record cut by the end of the data: the file is damaged.
    private static var pastTheEnd: String { tr("the file is damaged: a record runs past the end of the data") }

    private mutating func take(_ count: Int) throws(FITError) -> ArraySlice<UInt8> {
        guard count <= end - offset else { throw FITError(Self.pastTheEnd, at: offset) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func byte() throws(FITError) -> UInt8 {
        guard offset < end else { throw FITError(Self.pastTheEnd, at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func define(local: UInt8, developer: Bool, at start: Int) throws(FITError) {
        let fixed = Array(try take(5))
        let bigEndian: Bool
        switch fixed[1] {
        case 0: bigEndian = false
        case 1: bigEndian = true
        default:
            throw FITError(
                tr(
                    "the file is damaged: a definition's architecture is {value}, not 0 or 1",
                    ["value": "\(fixed[1])"]), at: start + 2)
        }
        let global = UInt16(FIT.littleEndianValue(bigEndian ? fixed[2...3].reversed() : Array(fixed[2...3])))
        var fields: [(number: UInt8, size: Int, type: FIT.BaseType?)] = []
        for _ in 0..<fixed[4] {
            let field = Array(try take(3))
            guard field[1] > 0 else {
                throw FITError(
                    tr(
                        "the file is damaged: field {field} of message {message} has size 0",
                        ["field": "\(field[0])", "message": "\(global)"]), at: offset - 2)
            }
            fields.append((field[0], Int(field[1]), FIT.BaseType(rawValue: field[2])))
        }
        var developerBytes = 0
        if developer {
            let count = try byte()
            for _ in 0..<count {
                let field = try take(3)
                developerBytes += Int(field[field.startIndex + 1])
            }
        }
        definitions[local] = Definition(
            global: global, bigEndian: bigEndian, fields: fields, developerBytes: developerBytes)
    }

    private mutating func data(local: UInt8, at start: Int) throws(FITError) -> FITMessage {
        guard let definition = definitions[local] else {
            throw FITError(
                tr(
                    "the file is damaged: a data message of local type {type} comes before its definition",
                    ["type": "\(local)"]), at: start)
        }
        var fields: [FITField] = []
        for field in definition.fields {
            let raw = try take(field.size)
            guard let type = field.type else { continue }
            if let value = Self.value(Array(raw), type: type, bigEndian: definition.bigEndian) {
                fields.append(FITField(field.number, type, value))
            }
        }
        _ = try take(definition.developerBytes)
        return FITMessage(definition.global, fields)
    }

    /// A field's value; nil when it holds its type's invalid value.
    private static func value(_ raw: [UInt8], type: FIT.BaseType, bigEndian: Bool) -> FITValue? {
        if type == .string {
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? nil : .text(text)
        }
        guard type.isInteger, raw.count == type.size else { return .bytes(raw) }
        let bits = FIT.littleEndianValue(bigEndian ? raw.reversed() : raw)
        guard bits != type.invalid else { return nil }
        if type.isSigned {
            let shift = UInt64(64 - type.size * 8)
            return .integer(Int64(bitPattern: bits << shift) >> Int64(shift))
        }
        // A uint64 above Int64's range is kept as its bytes.
        return bits <= UInt64(Int64.max) ? .integer(Int64(bits)) : .bytes(raw)
    }
}

import Testing

@testable import IntervalCore

/// The FIT container: its CRC, its header, a file written and read back, and files it must refuse.
@Suite struct FITTests {
    @Test func theCRCIsCRC16ARC() {
        // The check value of CRC-16/ARC, the CRC of the FIT protocol.
        #expect(FIT.crc(Array("123456789".utf8)) == 0xBB3D)
        #expect(FIT.crc([]) == 0)
    }

    static let messages = [
        FITMessage(0, [.integer(0, .enumeration, 5), .integer(1, .uint16, 255), .integer(4, .uint32, 1_000_000_000)]),
        FITMessage(26, [.text(8, "Galloway 30/30 🏃"), .integer(6, .uint16, 2)]),
        FITMessage(27, [.integer(254, .uint16, 0), .text(0, "Run"), .integer(2, .uint32, 30_000)]),
        FITMessage(27, [.integer(254, .uint16, 1), .text(0, "Walk a little longer"), .integer(2, .uint32, 30_000)]),
        FITMessage(20, [.integer(3, .sint16, -42), .integer(4, .sint32, -1)]),
    ]

    @Test func aFileIsWrittenWithItsHeaderAndReadBackMessageByMessage() throws {
        let bytes = FIT.encode(Self.messages)
        #expect(bytes[0] == 14)
        #expect(Array(bytes[8..<12]) == Array(".FIT".utf8))
        let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        #expect(bytes.count == 14 + dataSize + 2)
        #expect(FIT.crc(bytes[0..<12]) == UInt16(bytes[12]) | UInt16(bytes[13]) << 8)
        #expect(FIT.crc(bytes) == 0, "a file's CRC over itself and its CRC is 0")
        #expect(try FIT.decode(bytes) == Self.messages)
    }

    @Test func messagesOfOneKindShareOneDefinitionWithTextsAsLongAsTheLongest() {
        let steps = Array(Self.messages[2...3])
        let one = FIT.encode([steps[0]])
        let two = FIT.encode(steps)
        // The second step adds its data (a header byte, 2 + 21 + 4 bytes) and no definition; its longer name makes the
        // first one's text field as long as its own.
        #expect(two.count - one.count == 1 + 2 + 21 + 4 + ("Walk a little longer".utf8.count - "Run".utf8.count))
    }

    @Test func anInvalidValueIsReadAsAbsent() throws {
        let bytes = FIT.encode([FITMessage(27, [.integer(254, .uint16, 3), .integer(5, .uint32, 0xFFFF_FFFF)])])
        let read = try FIT.decode(bytes)
        #expect(read == [FITMessage(27, [.integer(254, .uint16, 3)])])
    }

    /// Every field of every message intervald writes, written through its message's table and read back through it:
    /// its largest value comes back with the table's type, and a field written without a value is read as absent.
    @Test func everyFieldOfTheProfileTablesComesBackAsWritten() throws {
        try Self.roundTrip(FIT.FileID.self)
        try Self.roundTrip(FIT.Session.self)
        try Self.roundTrip(FIT.Lap.self)
        try Self.roundTrip(FIT.Record.self)
        try Self.roundTrip(FIT.Event.self)
        try Self.roundTrip(FIT.Workout.self)
        try Self.roundTrip(FIT.WorkoutStep.self)
        try Self.roundTrip(FIT.Activity.self)
    }

    static func roundTrip<Fields: FITProfileMessage>(_: Fields.Type) throws {
        for field in Fields.allCases {
            let value: FITValue =
                field.baseType == .string
                ? .text("\(field)") : .integer(Int64(bitPattern: field.baseType.invalid) - 1)
            let read = try FIT.decode(FIT.encode([Fields.message([field: value]), Fields.message([field: nil])]))
            #expect(read.map(\.global) == [Fields.global, Fields.global])
            #expect(read.first?[field] == value, "\(Fields.self).\(field)")
            #expect(read.first?.fields.first?.type == field.baseType, "\(Fields.self).\(field)")
            #expect(read.last?[field] == nil, "\(Fields.self).\(field) without a value")
        }
    }

    @Test func damagedFilesAreRefusedSayingWhere() {
        let good = FIT.encode(Self.messages)
        func refusal(_ bytes: [UInt8]) -> FITError? {
            do {
                _ = try FIT.decode(bytes)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal(Array("plan text, not FIT".utf8))?.message.hasPrefix("not a FIT file") == true)
        #expect(refusal(Array(good.prefix(20)))?.message.hasPrefix("the file is incomplete") == true)
        var flipped = good
        flipped[30] ^= 0x01
        #expect(refusal(flipped)?.message == "the file is damaged: its CRC does not match its contents")
        var header = good
        header[2] ^= 0x01
        #expect(refusal(header)?.message == "the file is damaged: its header's CRC does not match the header")
        // A header that is not 12 or 14 bytes, or that the file is shorter than, in a file with the signature.
        var size = good
        size[0] = 40
        #expect(
            refusal(size)?.message == "the file is damaged: its header gives its own size as 40 bytes, not 12 or 14")
        #expect(
            refusal(Array(good.prefix(13)))?.description
                == "the file is incomplete, a copy that stopped before its end (13 of its 14 bytes): copy it again"
        )
        var signature = good
        signature[8] = 0
        #expect(
            refusal(signature)
                == FITError("not a FIT file, or one whose header is damaged: it has no “.FIT” signature", at: 8))
        // A data record whose definition never came, with a valid CRC.
        var orphan = Array(good[0..<14]) + [0x03, 0x01]
        orphan[4] = 2
        orphan[5] = 0
        orphan[6] = 0
        orphan[7] = 0
        let headerCRC = FIT.crc(orphan[0..<12])
        orphan[12] = UInt8(headerCRC & 0xFF)
        orphan[13] = UInt8(headerCRC >> 8)
        let fileCRC = FIT.crc(orphan)
        orphan += [UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)]
        #expect(
            refusal(orphan)
                == FITError("the file is damaged: a data message of local type 3 comes before its definition", at: 14))
    }

    /// Random and mutated files never crash the decoder: each decodes, or is refused with a message and an offset
    /// inside the file. (A quick check beside the libFuzzer target, `scripts/fuzz fit`.)
    @Test func mutatedFilesNeverCrashTheDecoder() throws {
        var random = SplitMix64(state: 0xF17)
        let seeds = [
            FIT.encode(Self.messages),
            try FITWorkout.encode(plan("2x(3x(1m run @ 5:30/km, 1m walk), 5m rest)"), restKinds: ["walk"], created: 0)
                .bytes,
        ]
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { break }
            }
            // Half of the rounds keep their CRCs right, so that the records themselves are read.
            if round % 2 == 0, bytes.count >= 16 { bytes = Self.resealed(bytes) }
            do {
                _ = try FIT.decode(bytes)
                _ = try? FITWorkout.decode(bytes, fallbackName: "fuzz")
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "round \(round)")
                #expect(!error.message.isEmpty, "round \(round)")
            }
        }
    }

    /// `bytes` with its header's data size, header CRC and file CRC made to match what it holds.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = Array(bytes.dropLast(2))
        guard body.count >= 14 else { return bytes }
        let size = body.count - 14
        for index in 0..<4 { body[4 + index] = UInt8(truncatingIfNeeded: size >> (index * 8)) }
        body[0] = 14
        let headerCRC = FIT.crc(body[0..<12])
        body[12] = UInt8(headerCRC & 0xFF)
        body[13] = UInt8(headerCRC >> 8)
        let fileCRC = FIT.crc(body)
        return body + [UInt8(fileCRC & 0xFF), UInt8(fileCRC >> 8)]
    }
}

import Glibc
import IntervalCore
import Logging

extension BusMessage {
    /// Appends a property value with its own D-Bus type.
    public func append(_ value: TimerProperty.Value) throws(BusError) {
        switch value {
        case .string(let text): try append(text)
        case .uint16(let number): try append(number)
        case .uint32(let number): try append(number)
        case .uint64(let number): try append(number)
        case .boolean(let flag): try append(flag)
        case .double(let number): try append(number)
        }
    }

    /// Reads a value of the D-Bus type `signature`.
    public func readValue(_ signature: TimerProperty.Signature) throws(BusError) -> TimerProperty.Value {
        switch signature {
        case .string: .string(try readString())
        case .uint16: .uint16(try readUInt16())
        case .uint32: .uint32(try readUInt32())
        case .uint64: .uint64(try readUInt64())
        case .boolean: .boolean(try readBool())
        case .double: .double(try readDouble())
        }
    }
}

/// Why a call's arguments could not be read as its ``TimerMethod``.
enum TimerCallReadError: Error {
    /// Not of the method's signature.
    case malformed(BusError)
    /// A string argument over its limit, refused before it was copied; `bytes` is its length.
    case oversized(TimerCommandError, bytes: Int)
}

extension BusMessage {
    /// Appends an argument or a result with its own D-Bus type.
    func append(_ value: TimerCallValue) throws(BusError) {
        switch value {
        case .string(let text): try append(text)
        case .boolean(let flag): try append(flag)
        case .strings(let texts): try append(texts)
        }
    }

    /// Reads a call's arguments as `Method`.
    func read<Method: TimerMethod>(_ method: Method.Type) throws(TimerCallReadError) -> Method {
        try read(Method.arguments, into: Method())
    }

    /// Reads a reply's values as `Reply` (whose sizes are not checked).
    func read<Reply: TimerMethodReply>(_ reply: Reply.Type) throws(BusError) -> Reply {
        do throws(TimerCallReadError) {
            return try read(Reply.results, into: Reply())
        } catch {
            switch error {
            case .malformed(let failure): throw failure
            case .oversized(let refusal, _):
                throw BusError(errno: EBADMSG, function: "sd_bus_message_read", message: refusal.message)
            }
        }
    }

    /// Reads the values of `fields` into `owner`. A string whose size is checked is read in place, checked with every
    /// other field filled in, and copied only once it passes.
    private func read<Owner>(_ fields: [TimerCallField<Owner>], into owner: Owner) throws(TimerCallReadError) -> Owner {
        var owner = owner
        var checked: [(field: TimerCallField<Owner>, text: UnsafePointer<CChar>)] = []
        do throws(BusError) {
            for field in fields {
                if field.checkSize != nil {
                    checked.append((field, try readBorrowedString()))
                    continue
                }
                let value: TimerCallValue =
                    switch field.signature {
                    case .string: .string(try readString())
                    case .boolean: .boolean(try readBool())
                    case .strings: .strings(try readStringArray())
                    }
                field.assign(value, to: &owner)
            }
        } catch {
            throw .malformed(error)
        }
        for (field, text) in checked {
            let bytes = strlen(text)
            do throws(TimerCommandError) {
                try field.checkSize?(bytes, owner)
            } catch {
                throw .oversized(error, bytes: bytes)
            }
            field.assign(.string(String(cString: text)), to: &owner)
        }
        return owner
    }
}

extension TimerMethod {
    /// The arguments for a debug log: every one but the long texts (those whose size is checked).
    var loggedArguments: Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for field in Self.arguments where field.checkSize == nil {
            metadata[field.name] = "\(field.value(of: self))"
        }
        return metadata
    }
}

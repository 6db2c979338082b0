import IntervalCore

extension BusMessage {
    /// Appends a property value with its own D-Bus type.
    public func append(_ value: TimerProperty.Value) throws(BusError) {
        switch value {
        case .string(let text): try append(text)
        case .uint32(let number): try append(number)
        case .uint64(let number): try append(number)
        }
    }

    /// Reads a value of the D-Bus type `signature`.
    public func readValue(_ signature: TimerProperty.Signature) throws(BusError) -> TimerProperty.Value {
        switch signature {
        case .string: .string(try readString())
        case .uint32: .uint32(try readUInt32())
        case .uint64: .uint64(try readUInt64())
        }
    }
}

/// The fields of one message of FIT's profile that intervald writes or reads, named once for the encoder and the
/// decoder: a case's raw value is the field's number in the message, its ``baseType`` the type it is written in, and
/// the message's global number is ``global``. Cases are named after the profile's fields (`wkt_step_name` is
/// `wktStepName`).
protocol FITProfileMessage: RawRepresentable, CaseIterable, Sendable where RawValue == UInt8 {
    /// The message's global number.
    static var global: UInt16 { get }
    /// The base type the field is written in; its size is the type's (a text's is the longest value's).
    var baseType: FIT.BaseType { get }
}

extension FITProfileMessage {
    /// A message of this kind holding `values`, in their order (the order of the message's definition). A nil value
    /// is written as the field's invalid value, "none": messages with and without it then share one definition.
    static func message(_ values: KeyValuePairs<Self, FITValue?>) -> FITMessage {
        message(values.map { ($0.key, $0.value) })
    }

    /// The same, for values put together as they come.
    static func message(_ values: [(field: Self, value: FITValue?)]) -> FITMessage {
        FITMessage(global, values.map { FITField($0.field.rawValue, $0.field.baseType, $0.value ?? $0.field.none) })
    }

    /// The value that says the field has none: an empty text, else its type's invalid bit pattern.
    private var none: FITValue {
        baseType == .string ? .text("") : .integer(Int64(bitPattern: baseType.invalid))
    }
}

extension FITMessage {
    /// The value of `field`, if this is a message of its kind and has it.
    subscript<Fields: FITProfileMessage>(field: Fields) -> FITValue? {
        global == Fields.global ? self[field.rawValue] : nil
    }
}

extension FIT {
    /// `file_id`, which every file begins with: what the file is and who made it.
    enum FileID: UInt8, FITProfileMessage {
        case type = 0, manufacturer = 1, product = 2, timeCreated = 4

        static let global: UInt16 = 0

        var baseType: BaseType {
            switch self {
            case .type: .enumeration
            case .manufacturer, .product: .uint16
            case .timeCreated: .uint32
            }
        }
    }

    /// `session`: an activity's one session, from its start to its end.
    enum Session: UInt8, FITProfileMessage {
        case messageIndex = 254, timestamp = 253, event = 0, eventType = 1, startTime = 2, sport = 5, subSport = 6
        case totalElapsedTime = 7, totalTimerTime = 8, totalDistance = 9, avgSpeed = 14, maxSpeed = 15
        case avgHeartRate = 16, maxHeartRate = 17, avgCadence = 18, maxCadence = 19, avgPower = 20, maxPower = 21
        case firstLapIndex = 25, numLaps = 26, trigger = 28

        static let global: UInt16 = 18

        var baseType: BaseType {
            switch self {
            case .messageIndex, .firstLapIndex, .numLaps, .avgSpeed, .maxSpeed, .avgPower, .maxPower: .uint16
            case .timestamp, .startTime, .totalElapsedTime, .totalTimerTime, .totalDistance: .uint32
            case .event, .eventType, .sport, .subSport, .trigger: .enumeration
            case .avgHeartRate, .maxHeartRate, .avgCadence, .maxCadence: .uint8
            }
        }
    }

    /// `lap`: a segment as it was played.
    enum Lap: UInt8, FITProfileMessage {
        case messageIndex = 254, timestamp = 253, event = 0, eventType = 1, startTime = 2, totalElapsedTime = 7
        case totalTimerTime = 8, totalDistance = 9, avgSpeed = 13, maxSpeed = 14, avgHeartRate = 15, maxHeartRate = 16
        case avgCadence = 17, maxCadence = 18, avgPower = 19, maxPower = 20, lapTrigger = 24, sport = 25
        case subSport = 39

        static let global: UInt16 = 19

        var baseType: BaseType {
            switch self {
            case .messageIndex, .avgSpeed, .maxSpeed, .avgPower, .maxPower: .uint16
            case .timestamp, .startTime, .totalElapsedTime, .totalTimerTime, .totalDistance: .uint32
            case .event, .eventType, .lapTrigger, .sport, .subSport: .enumeration
            case .avgHeartRate, .maxHeartRate, .avgCadence, .maxCadence: .uint8
            }
        }
    }

    /// `record`: an instant of the activity (without a position: indoors).
    enum Record: UInt8, FITProfileMessage {
        case timestamp = 253, heartRate = 3, cadence = 4, distance = 5, speed = 6, power = 7

        static let global: UInt16 = 20

        var baseType: BaseType {
            switch self {
            case .timestamp, .distance: .uint32
            case .heartRate, .cadence: .uint8
            case .speed, .power: .uint16
            }
        }
    }

    /// `event`: the timer started or stopped.
    enum Event: UInt8, FITProfileMessage {
        case timestamp = 253, event = 0, eventType = 1

        static let global: UInt16 = 21

        var baseType: BaseType {
            switch self {
            case .timestamp: .uint32
            case .event, .eventType: .enumeration
            }
        }
    }

    /// `workout`: a workout's name, sport and number of steps.
    enum Workout: UInt8, FITProfileMessage {
        case sport = 4, numValidSteps = 6, wktName = 8

        static let global: UInt16 = 26

        var baseType: BaseType {
            switch self {
            case .sport: .enumeration
            case .numValidSteps: .uint16
            case .wktName: .string
            }
        }
    }

    /// `workout_step`: a step of a workout, or a repeat of the steps before it.
    enum WorkoutStep: UInt8, FITProfileMessage {
        case messageIndex = 254, wktStepName = 0, durationType = 1, durationValue = 2, targetType = 3, targetValue = 4
        case customTargetValueLow = 5, customTargetValueHigh = 6, intensity = 7, notes = 8

        static let global: UInt16 = 27

        var baseType: BaseType {
            switch self {
            case .messageIndex: .uint16
            case .wktStepName, .notes: .string
            case .durationType, .targetType, .intensity: .enumeration
            case .durationValue, .targetValue, .customTargetValueLow, .customTargetValueHigh: .uint32
            }
        }
    }

    /// `activity`: an activity file's last message, its totals.
    enum Activity: UInt8, FITProfileMessage {
        case timestamp = 253, totalTimerTime = 0, numSessions = 1, type = 2, event = 3, eventType = 4

        static let global: UInt16 = 34

        var baseType: BaseType {
            switch self {
            case .timestamp, .totalTimerTime: .uint32
            case .numSessions: .uint16
            case .type, .event, .eventType: .enumeration
            }
        }
    }
}

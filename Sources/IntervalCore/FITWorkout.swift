/// A plan as a FIT workout file (file type 5) and a FIT workout as a plan: the mapping of docs/fit.md. A step is a
/// `workout_step` with its label as step name, its kind in `notes` and as intensity, its time and its pace as a speed
/// band; a repeat is a repeat step after the steps it repeats, nested as the plan nests.
public enum FITWorkout {
    /// `workout_step.duration_type`.
    enum DurationType: Int64 {
        case time = 0, distance = 1, open = 5, repeatUntilStepsComplete = 6, repeatUntilTime = 7
        case repeatUntilDistance = 8
    }

    /// `workout_step.intensity`, and the kind of step each one is read as.
    enum Intensity: Int64 {
        case active = 0, rest = 1, warmup = 2, cooldown = 3, recovery = 4

        var kind: String {
            switch self {
            case .active: "work"
            case .rest: "rest"
            case .warmup: "warmup"
            case .cooldown: "cooldown"
            case .recovery: "recovery"
            }
        }

        /// The intensity of a step of `kind`: the one of that kind's name (`warmup`, `cooldown`, `rest`), else
        /// recovery for another of the rest kinds, else active.
        init(kind: String, restKinds: Set<String>) {
            self =
                [Intensity.rest, .warmup, .cooldown].first { $0.kind == kind }
                ?? (restKinds.contains(kind) ? .recovery : .active)
        }
    }

    /// The longest workout or step name written, in UTF-8 bytes: watches show a line of it; Garmin Connect shows
    /// names of this length whole.
    public static let maximumNameBytes = 48
    /// The most steps (with repeat steps) a workout holds: `message_index` is a uint16 whose largest value means
    /// "none".
    public static let maximumSteps = 65_534
    /// A pace is written as a speed band this share either side of it.
    static let paceBand = 0.02

    /// A workout file and what was adapted to fit the format.
    public struct Export: Sendable {
        public let bytes: [UInt8]
        /// Sentences for the user: a name shortened.
        public let notes: [String]
    }

    /// The workout of `plan`. `created` is the file's time (Unix seconds); the rest kinds give the intensity of a
    /// kind other than `warmup`, `cooldown` and `rest` (recovery, or active). Refuses a plan of more steps than the
    /// format holds.
    public static func encode(_ plan: Plan, restKinds: Set<String>, created: Int64) throws(FITWorkoutError) -> Export {
        var notes: [String] = []
        var steps: [FITMessage] = []
        try append(plan.root.children, restKinds: restKinds, to: &steps, notes: &notes)
        let name = shortened(plan.name, notes: &notes) { text, kept in
            tr(
                "The workout's name “{name}” is shortened to “{kept}” (a FIT workout shows {count} bytes).",
                ["name": text, "kept": kept, "count": "\(maximumNameBytes)"])
        }
        let sport = FIT.sport(of: plan.root.totalSummary.kindDurations.map(\.kind)).sport
        let messages =
            [
                FIT.fileID(type: 5, created: created),
                FITMessage(
                    FIT.Message.workout,
                    [.text(8, name), .integer(4, .enumeration, sport), .integer(6, .uint16, Int64(steps.count))]),
            ] + steps
        return Export(bytes: FIT.encode(messages), notes: notes)
    }

    private static func append(
        _ nodes: [PlanNode], restKinds: Set<String>, to steps: inout [FITMessage], notes: inout [String]
    ) throws(FITWorkoutError) {
        for node in nodes {
            guard steps.count < maximumSteps else {
                throw FITWorkoutError(
                    tr(
                        "the plan has more than {count} steps and repeats; a FIT workout holds at most that many",
                        ["count": "\(maximumSteps)"]))
            }
            switch node {
            case .step(let step):
                let speed = step.pace.map { $0.metresPerSecond * 1000 }
                steps.append(
                    stepMessage(
                        index: steps.count,
                        name: shortened(step.label, notes: &notes) { text, kept in
                            tr(
                                "A step's label “{name}” is shortened to “{kept}” (a FIT workout shows {count} bytes).",
                                ["name": text, "kept": kept, "count": "\(maximumNameBytes)"])
                        },
                        duration: (.time, milliseconds(step.duration)), target: speed == nil ? (2, 0) : (0, 0),
                        band: speed.map {
                            (Int64(($0 * (1 - paceBand)).rounded()), Int64(($0 * (1 + paceBand)).rounded()))
                        },
                        intensity: Intensity(kind: step.kind, restKinds: restKinds), kind: step.kind))
            case .group(let group):
                let first = Int64(steps.count)
                try append(group.children, restKinds: restKinds, to: &steps, notes: &notes)
                let repeated: (DurationType, Int64)? =
                    switch group.repetition {
                    case .once: nil
                    case .times(let count): (.repeatUntilStepsComplete, Int64(count))
                    case .forDuration(let time): (.repeatUntilTime, milliseconds(time))
                    case .forDistance(let metres): (.repeatUntilDistance, Int64((metres * 100).rounded()))
                    }
                if let (type, target) = repeated {
                    steps.append(
                        stepMessage(
                            index: steps.count, name: "", duration: (type, first), target: (2, target), band: nil,
                            intensity: nil, kind: ""))
                }
            }
        }
    }

    /// Microseconds as FIT's whole milliseconds, rounded.
    private static func milliseconds(_ microseconds: Int64) -> Int64 {
        (microseconds + Micros.millisecond / 2) / Micros.millisecond
    }

    /// A `workout_step` with every field, so that one definition serves them all (an absent value is its type's
    /// invalid one).
    private static func stepMessage(
        index: Int, name: String, duration: (type: DurationType, value: Int64), target: (type: Int64, value: Int64),
        band: (low: Int64, high: Int64)?, intensity: Intensity?, kind: String
    ) -> FITMessage {
        FITMessage(
            FIT.Message.workoutStep,
            [
                .integer(254, .uint16, Int64(index)), .text(0, name),
                .integer(1, .enumeration, duration.type.rawValue), .integer(2, .uint32, duration.value),
                .integer(3, .enumeration, target.type), .integer(4, .uint32, target.value),
                .integer(5, .uint32, band?.low ?? 0xFFFF_FFFF), .integer(6, .uint32, band?.high ?? 0xFFFF_FFFF),
                .integer(7, .enumeration, intensity?.rawValue ?? 0xFF), .text(8, kind),
            ])
    }

    /// `text` cut to ``maximumNameBytes`` at a character's boundary, with a note (`note` of the text and what is kept)
    /// when it was cut.
    private static func shortened(
        _ text: String, notes: inout [String], note: (_ text: String, _ kept: String) -> String
    ) -> String {
        let kept = FIT.fittingText(text, maximumBytes: maximumNameBytes)
        if kept != text {
            notes.append(note(text, kept))
        }
        return kept
    }

    // MARK: Import

    /// The messages of a whole FIT file (its CRCs checked) of type 5, workout; what else it is is said.
    static func workoutMessages(_ bytes: [UInt8]) throws(FITWorkoutError) -> [FITMessage] {
        let messages: [FITMessage]
        do throws(FITError) {
            messages = try FIT.decode(bytes)
        } catch {
            throw FITWorkoutError(error.description)
        }
        guard let fileID = messages.first(where: { $0.global == FIT.Message.fileID }) else {
            throw FITWorkoutError(tr("the file has no file_id message: it is not a FIT workout"))
        }
        guard fileID[0]?.integer == 5 else { throw FITWorkoutError(notAWorkout(type: fileID[0]?.integer)) }
        return messages
    }

    /// The plan a FIT workout file holds, named `name`, else the workout's name, else `fallbackName`. Refuses a file
    /// that is not a workout, a step it cannot time, and a repeat that does not close over whole steps.
    public static func decode(
        _ bytes: [UInt8], name: String? = nil, fallbackName: String
    ) throws(FITWorkoutError) -> Plan {
        let messages = try workoutMessages(bytes)
        let workout = messages.first { $0.global == FIT.Message.workout }
        let steps = messages.filter { $0.global == FIT.Message.workoutStep }
        guard !steps.isEmpty else { throw FITWorkoutError(tr("the workout has no steps")) }
        // Each item so far: the index of its first step, and the plan it makes.
        var items: [(first: Int64, node: PlanNode)] = []
        for (position, message) in steps.enumerated() {
            let index = message[254]?.integer ?? Int64(position)
            // Made only for a refusal: a workout of 65,534 steps looks up no translation for its steps.
            var stepName: String { Self.stepName(index: index, name: message[0]?.text) }
            guard let typeNumber = message[1]?.integer, let type = DurationType(rawValue: typeNumber) else {
                throw FITWorkoutError(
                    message[1]?.integer.map {
                        tr(
                            "{step}: its duration type {type} is not one intervald can time",
                            ["step": stepName, "type": "\($0)"])
                    } ?? tr("{step}: it has no duration type", ["step": stepName]))
            }
            let value = message[2]?.integer
            switch type {
            case .time:
                guard let milliseconds = value, milliseconds > 0 else {
                    throw FITWorkoutError(tr("{step}: a timed step without a time", ["step": stepName]))
                }
                items.append((index, .step(try step(message, duration: milliseconds * Micros.millisecond))))
            case .distance:
                // A distance at a pace is a time; without a pace it is not one.
                guard let centimetres = value, centimetres > 0, let pace = pace(of: message) else {
                    throw FITWorkoutError(
                        tr(
                            "{step}: a step of a distance without a pace target; intervald's steps are timed",
                            ["step": stepName]))
                }
                let seconds = Double(centimetres) / 100 / pace.metresPerSecond
                items.append((index, .step(try step(message, duration: Int64((seconds * 1e6).rounded())))))
            case .open:
                throw FITWorkoutError(
                    tr(
                        "{step}: an open step (ended by pressing Lap) has no time; intervald's steps are timed",
                        ["step": stepName]))
            case .repeatUntilStepsComplete, .repeatUntilTime, .repeatUntilDistance:
                guard let first = value, let start = items.firstIndex(where: { $0.first == first }), first < index
                else {
                    throw FITWorkoutError(
                        value.map {
                            tr(
                                "{step}: a repeat from step {first}, which does not start a step before it at this level",
                                ["step": stepName, "first": Self.ordinal($0)])
                        } ?? tr("{step}: a repeat that says not from which step", ["step": stepName]))
                }
                let target = message[4]?.integer ?? 0
                let repetition: Repetition
                switch type {
                case .repeatUntilStepsComplete:
                    guard target >= 1, target <= Int64(PlanLimits.maximumRepeatCount) else {
                        throw FITWorkoutError(
                            tr(
                                "{step}: repeats {count} times; a plan repeats 1 to {limit} times",
                                [
                                    "step": stepName, "count": "\(target)",
                                    "limit": "\(PlanLimits.maximumRepeatCount)",
                                ]))
                    }
                    repetition = .times(Int(target))
                case .repeatUntilTime:
                    guard target > 0 else {
                        throw FITWorkoutError(tr("{step}: repeats until a time of 0", ["step": stepName]))
                    }
                    repetition = .forDuration(target * Micros.millisecond)
                default:
                    guard target > 0 else {
                        throw FITWorkoutError(tr("{step}: repeats until a distance of 0", ["step": stepName]))
                    }
                    repetition = .forDistance(Double(target) / 100)
                }
                let group: PlanGroup
                do throws(PlanLimitError) {
                    group = try PlanGroup(repetition: repetition, children: items[start...].map(\.node))
                } catch {
                    throw FITWorkoutError(
                        tr("{step}: {problem}", ["step": stepName, "problem": error.message]))
                }
                items.removeSubrange(start...)
                items.append((first, .group(group)))
            }
        }
        let root: PlanGroup
        do throws(PlanLimitError) {
            root = try PlanGroup(repetition: .once, children: items.map(\.node))
        } catch {
            throw FITWorkoutError(error.message)
        }
        let named = name ?? workout?[8]?.text ?? fallbackName
        return Plan(name: named.isEmpty ? fallbackName : named, countdown: nil, root: root)
    }

    /// A step as a person finds it in a workout app: counted from 1 (the file counts from 0), with its name when it
    /// has one, "step 2 (B1_)".
    static func stepName(index: Int64, name: String?) -> String {
        guard let name = name.map({ $0.filter { !$0.isNewline } }), !name.isEmpty else {
            return tr("step {number}", ["number": ordinal(index)])
        }
        return tr("step {number} ({name})", ["number": ordinal(index), "name": name])
    }

    /// The number a person counts for the file's `message_index` (from 0); the index is the file's, any integer.
    private static func ordinal(_ index: Int64) -> String {
        index < Int64.max ? "\(index + 1)" : "\(index)"
    }

    /// Why a file of FIT file type `type` (nil: none given) is not a workout: what it is, in words where the type is
    /// one people meet (a watch's recorded run above all), else its number.
    static func notAWorkout(type: Int64?) -> String {
        let what: String? =
            switch type {
            case 1: tr("a device's description")
            case 2: tr("a device's settings")
            case 3: tr("sport settings")
            case 4: tr("a recorded activity (what a watch saves after a run)")
            case 6: tr("a course (a route to follow)")
            case 7: tr("a training schedule")
            case 9: tr("weight measurements")
            case 10: tr("activity totals")
            case 11: tr("goals")
            case 15, 28, 32: tr("daily monitoring (steps and heart rate through the day)")
            case 20: tr("an activity's summary")
            case 34: tr("a segment (a stretch of a route to race on)")
            default: nil
            }
        if let what { return tr("the file is {what}, not a workout", ["what": what]) }
        guard let type else { return tr("the file says no FIT file type; a workout is type 5") }
        return tr("the file is of FIT file type {type}, not a workout (5)", ["type": "\(type)"])
    }

    /// A timed step: its kind from `notes` when that is a kind, else from its intensity; its label from its name.
    private static func step(_ message: FITMessage, duration: Int64) throws(FITWorkoutError) -> Step {
        let notes = message[8]?.text ?? ""
        let kind =
            PlanParser.isKind(notes) ? notes : (message[7]?.integer.flatMap(Intensity.init(rawValue:)) ?? .active).kind
        let label = message[0]?.text.map { $0.filter { !$0.isNewline } }
        return Step(
            kind: kind, label: label?.isEmpty == false ? label : nil, duration: duration, pace: pace(of: message))
    }

    /// The pace in the middle of a step's speed band, to the second per kilometre.
    private static func pace(of message: FITMessage) -> Pace? {
        guard message[3]?.integer == 0, let low = message[5]?.integer, let high = message[6]?.integer, low > 0,
            high >= low
        else { return nil }
        let metresPerSecond = Double(low + high) / 2000
        let secondsPerKilometre = (1000 / metresPerSecond).rounded()
        guard secondsPerKilometre >= 1 else { return nil }
        return Pace(metresPerSecond: 1000 / secondsPerKilometre)
    }
}

/// Why a plan cannot be written as a FIT workout, or a FIT file read as a plan.
public struct FITWorkoutError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

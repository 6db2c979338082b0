/// A plan as a FIT workout file (file type 5) and a FIT workout as a plan: the mapping of docs/fit.md. A step is a
/// `workout_step` with its label as step name, its kind in `notes` and as intensity, its time, its distance or an open
/// end (the person's), and its target (a pace as a speed band, a power, a heart-rate range); a repeat is a repeat step after the steps it repeats, nested as
/// the plan nests.
public enum FITWorkout {
    /// `workout_step.duration_type`.
    enum DurationType: Int64 {
        case time = 0, distance = 1, heartRateBelow = 2, heartRateAbove = 3, calories = 4, open = 5
        case repeatUntilStepsComplete = 6, repeatUntilTime = 7, repeatUntilDistance = 8, repeatUntilCalories = 9
        case repeatUntilHeartRateBelow = 10, repeatUntilHeartRateAbove = 11, repeatUntilPowerBelow = 12
        case repeatUntilPowerAbove = 13, powerBelow = 14, powerAbove = 15
    }

    /// What only a watch's sensors tell: the end of a step (duration types 2, 3, 4, 14 and 15, with its value in
    /// `duration_value`) or of a repeat (9 to 13, in `target_value`). A heart rate up to 100 is a percentage of the
    /// maximum, above it beats per minute plus 100; a power up to 1,000 is a percentage of FTP, above it watts plus
    /// 1,000.
    enum SensorCondition: Equatable {
        case heartRateBelow(Int64), heartRateAbove(Int64), calories(Int64), powerBelow(Int64), powerAbove(Int64)

        init?(_ type: DurationType, value: Int64) {
            switch type {
            case .heartRateBelow, .repeatUntilHeartRateBelow: self = .heartRateBelow(value)
            case .heartRateAbove, .repeatUntilHeartRateAbove: self = .heartRateAbove(value)
            case .calories, .repeatUntilCalories: self = .calories(value)
            case .powerBelow, .repeatUntilPowerBelow: self = .powerBelow(value)
            case .powerAbove, .repeatUntilPowerAbove: self = .powerAbove(value)
            default: return nil
            }
        }

        /// "heart rate below 125 bpm", "200 kcal", "power above 80% of FTP".
        var text: String {
            switch self {
            case .heartRateBelow(let value): tr("heart rate below {value}", ["value": FITWorkout.heartRate(value)])
            case .heartRateAbove(let value): tr("heart rate above {value}", ["value": FITWorkout.heartRate(value)])
            case .calories(let value): tr("{count} kcal", ["count": "\(value)"])
            case .powerBelow(let value): tr("power below {value}", ["value": FITWorkout.power(value)])
            case .powerAbove(let value): tr("power above {value}", ["value": FITWorkout.power(value)])
            }
        }
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
                FIT.Workout.message([
                    .wktName: .text(name), .sport: .integer(sport), .numValidSteps: .integer(Int64(steps.count)),
                ]),
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
                // The target: its type, and the custom range of `custom_target_value_low` and `_high` (target_value 0).
                let target: (type: Int64, band: (low: Int64, high: Int64))? =
                    switch step.target {
                    case .pace(let pace):
                        // mm/s, a band either side of the pace.
                        (
                            0,
                            (
                                Int64((pace.metresPerSecond * 1000 * (1 - paceBand)).rounded()),
                                Int64((pace.metresPerSecond * 1000 * (1 + paceBand)).rounded())
                            )
                        )
                    // Beats per minute + 100, watts + 1,000 (below is a percentage of the maximum, of FTP).
                    case .heartRate(let range): (1, (Int64(range.low) + 100, Int64(range.high) + 100))
                    case .power(let power): (4, (Int64(power.low) + 1000, Int64(power.high) + 1000))
                    case nil: nil
                    }
                // A distance is written as one whether its pace times it or the person ends it.
                let duration: (type: DurationType, value: Int64?) =
                    if let metres = step.distance {
                        (.distance, try centimetres(metres))
                    } else if let bound = step.heartRateBound {
                        // A heart rate in bpm is written + 100 (up to 100 is a percentage of the maximum).
                        (bound.direction == .below ? .heartRateBelow : .heartRateAbove, Int64(bound.bpm) + 100)
                    } else if step.isOpen {
                        (.open, nil)
                    } else {
                        (.time, milliseconds(step.duration))
                    }
                let name = shortened(step.label, notes: &notes) { text, kept in
                    tr(
                        "A step's label “{name}” is shortened to “{kept}” (a FIT workout shows {count} bytes).",
                        ["name": text, "kept": kept, "count": "\(maximumNameBytes)"])
                }
                steps.append(
                    stepMessage(
                        index: steps.count, name: name, duration: duration, target: (target?.type ?? 2, 0),
                        band: target?.band,
                        intensity: Intensity(kind: step.kind, restKinds: restKinds),
                        // A label the name could not hold comes back whole from the notes, which a watch shows too
                        // (an imported step's label with what ends it, "… · until heart rate below 125 bpm").
                        notes: name == step.label ? step.kind : "\(step.kind)\n\(step.label)"))
            case .group(let group):
                let first = Int64(steps.count)
                try append(group.children, restKinds: restKinds, to: &steps, notes: &notes)
                let repeated: (DurationType, Int64)? =
                    switch group.repetition {
                    case .once: nil
                    case .times(let count): (.repeatUntilStepsComplete, Int64(count))
                    case .forDuration(let time): (.repeatUntilTime, milliseconds(time))
                    case .forDistance(let metres): (.repeatUntilDistance, try centimetres(metres))
                    }
                if let (type, target) = repeated {
                    steps.append(
                        stepMessage(
                            index: steps.count, name: "", duration: (type, first), target: (2, target), band: nil,
                            intensity: nil, notes: ""))
                }
            }
        }
    }

    /// Metres as FIT's whole centimetres, rounded; refused beyond the uint32 a distance is written in.
    private static func centimetres(_ metres: Double) throws(FITWorkoutError) -> Int64 {
        let centimetres = (metres * 100).rounded()
        // The largest uint32 is the field's invalid value.
        guard centimetres < Double(UInt32.max) else {
            throw FITWorkoutError(
                tr(
                    "a distance of {distance} is longer than a FIT workout holds (at most {limit})",
                    [
                        "distance": PlanWriter.distance(metres),
                        "limit": PlanWriter.distance(Double(UInt32.max - 1) / 100),
                    ]
                ))
        }
        return Int64(centimetres)
    }

    /// Microseconds as FIT's whole milliseconds, rounded.
    private static func milliseconds(_ microseconds: Int64) -> Int64 {
        (microseconds + Micros.millisecond / 2) / Micros.millisecond
    }

    /// A `workout_step` with every field, so that one definition serves them all (an absent value, nil, is written as
    /// its type's invalid one: an open step's `duration_value`).
    private static func stepMessage(
        index: Int, name: String, duration: (type: DurationType, value: Int64?), target: (type: Int64, value: Int64),
        band: (low: Int64, high: Int64)?, intensity: Intensity?, notes: String
    ) -> FITMessage {
        FIT.WorkoutStep.message([
            .messageIndex: .integer(Int64(index)), .wktStepName: .text(name),
            .durationType: .integer(duration.type.rawValue), .durationValue: duration.value.map(FITValue.integer),
            .targetType: .integer(target.type), .targetValue: .integer(target.value),
            .customTargetValueLow: band.map { .integer($0.low) },
            .customTargetValueHigh: band.map { .integer($0.high) },
            .intensity: intensity.map { .integer($0.rawValue) }, .notes: .text(notes),
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
        guard let fileID = messages.first(where: { $0.global == FIT.FileID.global }) else {
            throw FITWorkoutError(tr("the file has no file_id message: it is not a FIT workout"))
        }
        let type = fileID[FIT.FileID.type]?.integer
        guard type == 5 else { throw FITWorkoutError(notAWorkout(type: type)) }
        return messages
    }

    /// The plan a FIT workout file holds, named `name`, else the workout's name, else `fallbackName`. A step that no
    /// clock ends (the Lap button, a distance without a pace, a heart rate, calories, power) is an open step, what the
    /// watch would have waited for said in its label. Refuses a file that is not a workout, a repeat until a sensor's
    /// value, and a repeat that does not close over whole steps. `maxHeartRate` (bpm, `[sensors] max_heart_rate`)
    /// turns the heart rates given as a percentage of the maximum into beats per minute; without it they are said in
    /// the label.
    public static func decode(
        _ bytes: [UInt8], name: String? = nil, fallbackName: String, maxHeartRate: Int? = nil
    ) throws(FITWorkoutError) -> Plan {
        let messages = try workoutMessages(bytes)
        let workout = messages.first { $0.global == FIT.Workout.global }
        let steps = messages.filter { $0.global == FIT.WorkoutStep.global }
        guard !steps.isEmpty else { throw FITWorkoutError(tr("the workout has no steps")) }
        // Each item so far: the index of its first step, and the plan it makes.
        var items: [(first: Int64, node: PlanNode)] = []
        for (position, message) in steps.enumerated() {
            let index = message[FIT.WorkoutStep.messageIndex]?.integer ?? Int64(position)
            // Made only for a refusal: a workout of 65,534 steps looks up no translation for its steps.
            var stepName: String { Self.stepName(index: index, name: message[FIT.WorkoutStep.wktStepName]?.text) }
            let typeNumber = message[FIT.WorkoutStep.durationType]?.integer
            guard let typeNumber, let type = DurationType(rawValue: typeNumber) else {
                throw FITWorkoutError(
                    typeNumber.map {
                        tr(
                            "{step}: its duration type {type} is not one intervald knows",
                            ["step": stepName, "type": "\($0)"])
                    } ?? tr("{step}: it has no duration type", ["step": stepName]))
            }
            let value = message[FIT.WorkoutStep.durationValue]?.integer
            switch type {
            case .time:
                guard let milliseconds = value, milliseconds > 0 else {
                    throw FITWorkoutError(tr("{step}: a timed step without a time", ["step": stepName]))
                }
                items.append(
                    (index, .step(try step(message, .time(milliseconds * Micros.millisecond), maxHeartRate, stepName))))
            case .distance:
                guard let centimetres = value, centimetres > 0 else {
                    throw FITWorkoutError(tr("{step}: a distance step without its distance", ["step": stepName]))
                }
                items.append(
                    (index, .step(try step(message, .distance(Double(centimetres) / 100), maxHeartRate, stepName))))
            case .open:
                items.append((index, .step(try step(message, .open(nil), maxHeartRate, stepName))))
            case .heartRateBelow, .heartRateAbove, .calories, .powerBelow, .powerAbove:
                guard let value, let condition = SensorCondition(type, value: value) else {
                    throw FITWorkoutError(
                        tr("{step}: it ends at a heart rate, calories or power it does not give", ["step": stepName]))
                }
                items.append((index, .step(try step(message, .open(condition), maxHeartRate, stepName))))
            case .repeatUntilCalories, .repeatUntilHeartRateBelow, .repeatUntilHeartRateAbove, .repeatUntilPowerBelow,
                .repeatUntilPowerAbove:
                // A plan's repeats end by a count, a time or a distance: one until a sensor's value has no end here.
                throw FITWorkoutError(
                    (message[FIT.WorkoutStep.targetValue]?.integer).flatMap { SensorCondition(type, value: $0) }.map {
                        tr(
                            "{step}: repeats until {condition}, which only a watch's sensor can tell",
                            ["step": stepName, "condition": $0.text])
                    }
                        ?? tr(
                            "{step}: repeats until a heart rate, calories or power, which only a watch's sensor can tell",
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
                let target = message[FIT.WorkoutStep.targetValue]?.integer ?? 0
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
        let named = name ?? workout?[FIT.Workout.wktName]?.text ?? fallbackName
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

    /// How a step ends: after a time (microseconds), a distance (metres: timed by the step's pace, else open), or
    /// when the person ends it, where a watch would have waited for the Lap button or a sensor's value.
    private enum StepEnd {
        case time(Int64), distance(Double), open(SensorCondition?)
    }

    /// A step: its kind from `notes` when that is a kind, else from its intensity; its label from its name, with what
    /// the timer cannot follow added to it: the sensor's value that ends it and a target other than a pace, a power
    /// in watts or a heart-rate range.
    private static func step(
        _ message: FITMessage, _ end: StepEnd, _ maxHeartRate: Int?, _ stepName: @autoclosure () -> String
    ) throws(FITWorkoutError) -> Step {
        // intervald's notes: the kind, then the label when the name holds only its start.
        let notes = (message[FIT.WorkoutStep.notes]?.text ?? "").split(separator: "\n", maxSplits: 1).map(String.init)
        let notedKind = notes.first.flatMap { PlanParser.isKind($0) ? $0 : nil }
        let intensity = message[FIT.WorkoutStep.intensity]?.integer.flatMap(Intensity.init(rawValue:))
        let kind = notedKind ?? (intensity ?? .active).kind
        let target = target(of: message, maxHeartRate: maxHeartRate)
        var (duration, isOpen, distance, condition): (Int64, Bool, Double?, SensorCondition?) = (0, false, nil, nil)
        var heartRateBound: HeartRateBound?
        switch end {
        case .time(let time):
            duration = time
        case .distance(let metres):
            distance = metres
            if let pace = target?.pace {
                let time = pace.microseconds(toCover: metres)
                guard time < Double(PlanLimits.maximumDuration) else {
                    throw FITWorkoutError(
                        tr("{step}: {problem}", ["step": stepName(), "problem": PlanLimits.tooLongMessage]))
                }
                duration = Int64(time)
                guard duration >= PlanLimits.minimumStepDuration else {
                    throw FITWorkoutError(
                        tr("{step}: {problem}", ["step": stepName(), "problem": tr("a step must last at least 1 ms")]))
                }
            } else {
                isOpen = true
            }
        case .open(let sensor):
            isOpen = true
            // A heart rate in bpm (+ 100), or a percentage of a known maximum, ends the step itself; a percentage of
            // an unknown maximum, or another sensor's value, is said in the label.
            switch sensor {
            case .heartRateBelow(let value):
                heartRateBound = bpm(value, maxHeartRate: maxHeartRate).flatMap { HeartRateBound(.below, bpm: $0) }
            case .heartRateAbove(let value):
                heartRateBound = bpm(value, maxHeartRate: maxHeartRate).flatMap { HeartRateBound(.above, bpm: $0) }
            default:
                break
            }
            condition = heartRateBound == nil ? sensor : nil
        }
        var name = message[FIT.WorkoutStep.wktStepName]?.text.map { $0.filter { !$0.isNewline } }.flatMap {
            $0.isEmpty ? nil : $0
        }
        if notedKind != nil, let label = notes.dropFirst().first, let start = name, label.hasPrefix(start) {
            name = label.filter { !$0.isNewline }
        }
        let additions = [
            condition.map { tr("until {condition}", ["condition": $0.text]) },
            target == nil ? unfollowedTarget(of: message) : nil,
        ].compactMap { $0 }
        let label =
            additions.isEmpty ? name : ([name ?? Step.defaultLabel(for: kind)] + additions).joined(separator: " · ")
        let length =
            heartRateBound.map(StepLength.heartRate)
            ?? StepLength(time: duration, isOpen: isOpen, distance: distance)
        return Step(kind: kind, label: label, length: length, target: target)
    }

    /// A step's target that the timer cannot follow, in words for its label: "heart rate zone 2", "140–150 bpm",
    /// "power zone 3", "200–250 W", "cadence 85–90", "speed zone 4". Nil for a speed band (the step's pace), an open
    /// target, and the targets of other sports (grade, resistance, a swimming stroke). `target_value` is a zone from 1,
    /// or 0 for the custom range of `custom_target_value_low` and `_high`.
    static func unfollowedTarget(of message: FITMessage) -> String? {
        guard let type = message[FIT.WorkoutStep.targetType]?.integer else { return nil }
        let zone = message[FIT.WorkoutStep.targetValue]?.integer ?? 0
        let range = message[FIT.WorkoutStep.customTargetValueLow]?.integer.flatMap { low in
            message[FIT.WorkoutStep.customTargetValueHigh]?.integer.map { (low, $0) }
        }
        switch type {
        case 0:  // speed
            return zone > 0 ? tr("speed zone {zone}", ["zone": "\(zone)"]) : nil
        case 1, 13:  // heart rate, heart rate over the lap
            if zone > 0 { return tr("heart rate zone {zone}", ["zone": "\(zone)"]) }
            return range.map { low, high in
                switch (low > 100, high > 100) {
                case (true, true): tr("{low}–{high} bpm", ["low": "\(low - 100)", "high": "\(high - 100)"])
                case (false, false):
                    // xgettext:no-c-format (a percent sign, not printf's)
                    tr("heart rate {low}–{high}% of maximum", ["low": "\(low)", "high": "\(high)"])
                default: "\(heartRate(low))–\(heartRate(high))"
                }
            }
        case 3:  // cadence
            if zone > 0 { return tr("cadence zone {zone}", ["zone": "\(zone)"]) }
            return range.map { tr("cadence {low}–{high}", ["low": "\($0)", "high": "\($1)"]) }
        case 4, 7, 8, 9, 10:  // power, as it is or averaged over 3 s, 10 s, 30 s or the lap
            if zone > 0 { return tr("power zone {zone}", ["zone": "\(zone)"]) }
            return range.map { low, high in
                switch (low > 1000, high > 1000) {
                case (true, true): tr("{low}–{high} W", ["low": "\(low - 1000)", "high": "\(high - 1000)"])
                case (false, false):
                    // xgettext:no-c-format (a percent sign, not printf's)
                    tr("power {low}–{high}% of FTP", ["low": "\(low)", "high": "\(high)"])
                default: "\(power(low))–\(power(high))"
                }
            }
        default:
            return nil
        }
    }

    /// A FIT heart rate in words: up to 100 a percentage of the maximum, above it beats per minute plus 100.
    static func heartRate(_ value: Int64) -> String {
        guard value <= 100 else { return tr("{bpm} bpm", ["bpm": "\(value - 100)"]) }
        // xgettext:no-c-format (a percent sign, not printf's)
        return tr("{percent}% of maximum", ["percent": "\(value)"])
    }

    /// A FIT power in words: up to 1,000 a percentage of the functional threshold power, above it watts plus 1,000.
    static func power(_ value: Int64) -> String {
        guard value <= 1000 else { return tr("{watts} W", ["watts": "\(value - 1000)"]) }
        // xgettext:no-c-format (a percent sign, not printf's)
        return tr("{percent}% of FTP", ["percent": "\(value)"])
    }

    /// A FIT heart rate in beats per minute: above 100 the value less 100, up to 100 that percentage of
    /// `maxHeartRate` (rounded); nil for a percentage of an unknown maximum.
    static func bpm(_ value: Int64, maxHeartRate: Int?) -> Int? {
        if value > 100 { return Int(clamping: value - 100) }
        guard let maxHeartRate, value > 0 else { return nil }
        return Int((Double(value) * Double(maxHeartRate) / 100).rounded())
    }

    /// The target the timer follows: a speed band's pace, a custom heart-rate range in bpm (or in percent of a known
    /// maximum), a custom power range in watts; nil for anything else (a zone, a percentage of FTP, a cadence), which
    /// ``unfollowedTarget(of:)`` says in the label.
    static func target(of message: FITMessage, maxHeartRate: Int?) -> StepTarget? {
        guard message[FIT.WorkoutStep.targetValue]?.integer ?? 0 == 0,
            let low = message[FIT.WorkoutStep.customTargetValueLow]?.integer,
            let high = message[FIT.WorkoutStep.customTargetValueHigh]?.integer
        else { return nil }
        switch message[FIT.WorkoutStep.targetType]?.integer {
        case 0: return pace(low: low, high: high).map(StepTarget.pace)
        case 1, 13:
            // Both in bpm or both in percent: a mixed pair is said in the label as it is.
            guard (low > 100) == (high > 100), let lowBPM = bpm(low, maxHeartRate: maxHeartRate),
                let highBPM = bpm(high, maxHeartRate: maxHeartRate)
            else { return nil }
            return HeartRateRange(low: lowBPM, high: highBPM).map(StepTarget.heartRate)
        case 4, 7, 8, 9, 10:
            guard low > 1000, high > 1000 else { return nil }
            return PowerTarget(low: Int(clamping: low - 1000), high: Int(clamping: high - 1000)).map(StepTarget.power)
        default: return nil
        }
    }

    /// The pace in the middle of a speed band (mm/s), to the second per kilometre.
    private static func pace(low: Int64, high: Int64) -> Pace? {
        guard low > 0, high >= low else { return nil }
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

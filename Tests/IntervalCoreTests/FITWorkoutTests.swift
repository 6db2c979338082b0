import Testing

@testable import IntervalCore

/// A plan as a FIT workout and back (docs/fit.md), and workouts of other apps read as plans.
@Suite struct FITWorkoutTests {
    static let plans = [
        "name \"Galloway\"\n5m warmup\n8x(30s run, 30s walk)\n5m cooldown",
        "2x(3x(1m run @ 5:30/km, 1m walk \"Easy walk\"), 5m rest)",
        "for 45m(4m run @ 5:00/km, 1m walk)",
        "10m warmup @ 6:30/km\nfor 5km(4m run @ 5:30/km, 1m walk @ 10:00/km)\n5m cooldown",
        "name \"Tabata\"\n8x(20s work \"All out\", 10s rest)",
        "name \"Track\"\nopen warmup \"Warm up until ready\"\n6x(0.4km run, 90s walk)\n1km run @ 4:30/km\nopen cooldown",
        "open run \"Free run\" @ 6:00/km\n2x(1.2km run \"Mile-ish\", open walk)",
        "name \"Heart\"\n5m walk\n6x(2m run, hr<120 walk \"Recover\")\nhr>150 run",
        "name \"Targets\"\n10m run @ 130-150bpm\n4x(5m bike @ 300-310W, 2m bike @ 120W)\n0.4km run @ 200W",
    ]

    /// `hr<120` and `hr>160` are the FIT durations a watch ends by its strap: `hr_less_than` (2) and `hr_greater_than`
    /// (3), in bpm + 100.
    @Test func aHeartRateBoundIsWrittenAsTheHeartRateDurationTypes() throws {
        let (_, messages) = try exported("hr<120 walk, hr>160 run")
        let steps = messages.filter { $0.global == 27 }
        #expect(steps.map { [$0[1], $0[2]] } == [[.integer(2), .integer(220)], [.integer(3), .integer(260)]])
    }

    func exported(_ text: String) throws -> (plan: Plan, messages: [FITMessage]) {
        let original = try plan(text)
        let export = try FITWorkout.encode(original, restKinds: ["walk", "rest"], created: 1_800_000_000)
        #expect(export.notes.isEmpty)
        return (original, try FIT.decode(export.bytes))
    }

    @Test(arguments: plans)
    func anExportedPlanComesBackAsTheSamePlan(text: String) throws {
        let (original, messages) = try exported(text)
        let bytes = FIT.encode(messages)
        let back = try FITWorkout.decode(bytes, fallbackName: "unused")
        #expect(back.name == original.name)
        #expect(back.duration == original.duration)
        #expect(back.segmentCount == original.segmentCount)
        for (a, b) in zip(original.segments, back.segments) {
            #expect(a.kind == b.kind && a.label == b.label && a.start == b.start && a.duration == b.duration)
            #expect(a.isOpen == b.isOpen && a.distance == b.distance)
            #expect((a.pace == nil) == (b.pace == nil))
            if a.pace == nil { #expect(a.target == b.target, "a power or a heart-rate range exactly") }
            if let pace = a.pace, let read = b.pace {
                #expect(abs(pace.secondsPerKilometre - read.secondsPerKilometre) < 1, "within a second per km")
            }
        }
        // Written as plan language and read again: the same plan still.
        #expect(same(try plan(PlanWriter.text(for: back)), back))
    }

    @Test func stepsAndRepeatsAreTheMessagesTheMappingSays() throws {
        let (_, messages) = try exported("5m warmup\n2x(3x(1m run @ 5:00/km, 1m walk), 5m rest)\nfor 10m(1m run)")
        #expect(messages[0].global == 0 && messages[0][0] == .integer(5), "file_id of a workout")
        let workout = try #require(messages.first { $0.global == 26 })
        #expect(workout[8] == .text("test"))
        #expect(workout[4] == .integer(1), "running")
        let steps = messages.filter { $0.global == 27 }
        #expect(workout[6] == .integer(Int64(steps.count)))
        // index: name, duration type and value, target value, intensity, notes
        let rows = steps.map { step in
            [step[254], step[0], step[1], step[2], step[4], step[7], step[8]].map { $0?.description ?? "-" }
        }
        #expect(
            rows == [
                ["0", "Warm-up", "0", "300000", "0", "2", "warmup"],
                ["1", "Run", "0", "60000", "0", "0", "run"],
                ["2", "Walk", "0", "60000", "0", "4", "walk"],
                ["3", "-", "6", "1", "3", "-", "-"],
                ["4", "Rest", "0", "300000", "0", "1", "rest"],
                ["5", "-", "6", "1", "2", "-", "-"],
                ["6", "Run", "0", "60000", "0", "0", "run"],
                ["7", "-", "7", "6", "600000", "-", "-"],
            ])
        // 5:00/km is 3.333 m/s: a band of 2 % either side, in mm/s.
        #expect(steps[1][3] == .integer(0) && steps[1][5] == .integer(3267) && steps[1][6] == .integer(3400))
        #expect(steps[2][3] == .integer(2) && steps[2][5] == nil, "no pace: an open target")
    }

    @Test func openAndDistanceStepsAreWrittenAsTheirDurationTypes() throws {
        let (_, messages) = try exported(
            "open warmup\n6x(0.4km run, 90s walk)\n0.4km run @ 5:00/km\nopen run \"Free\" @ 6:00/km\nopen cooldown")
        let steps = messages.filter { $0.global == 27 }
        // name, duration type and value, target type, intensity, notes
        let rows = steps.map { step in
            [step[0], step[1], step[2], step[3], step[7], step[8]].map { $0?.description ?? "-" }
        }
        #expect(
            rows == [
                ["Warm-up", "5", "-", "2", "2", "warmup"],
                ["Run", "1", "40000", "2", "0", "run"],
                ["Walk", "0", "90000", "2", "4", "walk"],
                ["-", "6", "1", "2", "-", "-"],
                ["Run", "1", "40000", "0", "0", "run"],
                ["Free", "5", "-", "0", "0", "run"],
                ["Cool-down", "5", "-", "2", "3", "cooldown"],
            ])
        // A paced distance and an open step with a pace keep their speed bands, in mm/s.
        #expect(steps[4][5] == .integer(3267) && steps[4][6] == .integer(3400))
        #expect(steps[5][5] == .integer(2722) && steps[5][6] == .integer(2833))
    }

    @Test func aDistanceAFITWorkoutCannotHoldIsRefused() throws {
        // Centimetres in a uint32: up to 42,949 km.
        let far = try plan("50000km run")
        #expect(throws: FITWorkoutError.self) { try FITWorkout.encode(far, restKinds: [], created: 0) }
    }

    @Test func aLongNameIsShortenedAndSaid() throws {
        let name = String(repeating: "Very long workout name ", count: 4)
        let export = try FITWorkout.encode(
            plan("name \"\(name)\"\n1m run"), restKinds: [], created: 0)
        #expect(export.notes.count == 1)
        #expect(export.notes[0].hasPrefix("The workout's name “\(name)” is shortened to"))
        let back = try FITWorkout.decode(export.bytes, fallbackName: "x")
        #expect(back.name.utf8.count <= FITWorkout.maximumNameBytes && name.hasPrefix(back.name))
    }

    @Test func aPlanOfMoreStepsThanTheFormatHoldsIsRefused() throws {
        let many = try plan(Array(repeating: "1s run", count: FITWorkout.maximumSteps + 1).joined(separator: "\n"))
        #expect(throws: FITWorkoutError.self) { try FITWorkout.encode(many, restKinds: [], created: 0) }
        let fits = try plan(Array(repeating: "1s run", count: 100).joined(separator: "\n"))
        #expect(throws: Never.self) { try FITWorkout.encode(fits, restKinds: [], created: 0) }
    }

    /// A workout as Garmin Connect writes one: its own manufacturer, no `notes`, no step names on some steps,
    /// intensities, a distance step at a pace, a repeat.
    static func garminLike(_ steps: [FITMessage], type: Int64 = 5) -> [UInt8] {
        FIT.encode(
            [
                FITMessage(0, [.integer(0, .enumeration, type), .integer(1, .uint16, 1), .integer(2, .uint16, 65534)]),
                FITMessage(26, [.text(8, "Intervals 5x4"), .integer(4, .enumeration, 1)]),
            ] + steps)
    }

    static func step(
        _ index: Int64, _ duration: (Int64, Int64), intensity: Int64? = nil, name: String? = nil,
        speed: (Int64, Int64)? = nil, target: Int64? = nil, range: (Int64, Int64)? = nil, targetType: Int64 = 2,
        notes: String? = nil
    ) -> FITMessage {
        var fields: [FITField] = [
            .integer(254, .uint16, index), .integer(1, .enumeration, duration.0), .integer(2, .uint32, duration.1),
        ]
        if let name { fields.append(.text(0, name)) }
        if let intensity { fields.append(.integer(7, .enumeration, intensity)) }
        if let speed {
            fields += [
                .integer(3, .enumeration, 0), .integer(4, .uint32, 0), .integer(5, .uint32, speed.0),
                .integer(6, .uint32, speed.1),
            ]
        } else if target != nil || range != nil {
            fields += [.integer(3, .enumeration, targetType), .integer(4, .uint32, target ?? 0)]
        }
        if let range { fields += [.integer(5, .uint32, range.0), .integer(6, .uint32, range.1)] }
        if let notes { fields.append(.text(8, notes)) }
        return FITMessage(27, fields)
    }

    @Test func aGarminConnectWorkoutIsReadAsAPlan() throws {
        let bytes = Self.garminLike([
            Self.step(0, (0, 600_000), intensity: 2),
            Self.step(1, (1, 100_000), intensity: 0, name: "Fast km", speed: (3300, 3367)),
            Self.step(2, (0, 120_000), intensity: 4),
            Self.step(3, (6, 1), target: 5),
            Self.step(4, (0, 300_000), intensity: 3),
        ])
        let read = try FITWorkout.decode(bytes, fallbackName: "file")
        #expect(read.name == "Intervals 5x4")
        let text = PlanWriter.text(for: read)
        #expect(text.contains("10m warmup"), "\(text)")
        #expect(text.contains("5x {"), "\(text)")
        #expect(text.contains("\"Fast km\" @ 5:00/km"), "\(text)")
        #expect(text.contains("2m recovery"), "\(text)")
        #expect(text.contains("5m cooldown"), "\(text)")
        // 1 km at 5:00/km is 5 minutes.
        #expect(read.duration == (10 + 5 * (5 + 2) + 5) * minute)
        #expect(try FITWorkout.decode(bytes, name: "Mine", fallbackName: "file").name == "Mine")
    }

    /// Why `bytes` are not imported; nil when they are.
    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try FITWorkout.decode(bytes, fallbackName: "x")
            return nil
        } catch {
            return error.message
        }
    }

    /// The plan text of a workout of `steps`.
    static func imported(_ steps: [FITMessage]) throws -> String {
        PlanWriter.text(for: try FITWorkout.decode(Self.garminLike(steps), fallbackName: "x"))
    }

    /// The lines of a plan text after its name and blank line.
    static func items(_ text: String) -> [String] {
        Array(text.split(separator: "\n").dropFirst().map(String.init))
    }

    @Test func stepsNoClockEndsAreOpenStepsThatSayWhatEndsThem() throws {
        let text = try Self.imported([
            Self.step(0, (5, 0), intensity: 2),
            Self.step(1, (1, 40_000), intensity: 0),
            Self.step(2, (1, 80_000), intensity: 0, name: "800 m", speed: (3300, 3367)),
            Self.step(3, (2, 225), intensity: 3, name: "Cool-down"),
            Self.step(4, (3, 80), intensity: 2),
            Self.step(5, (4, 200), intensity: 0, name: "Burn"),
            Self.step(6, (14, 1150), intensity: 4),
            Self.step(7, (15, 85), intensity: 0, name: "Push"),
            Self.step(8, (5, 0), intensity: 0, name: "Free", speed: (2722, 2833)),
        ])
        #expect(
            Self.items(text) == [
                "open warmup",
                "0.4km work",
                // A distance at a pace is timed (a speed band's middle, to the second per kilometre).
                "0.8km work \"800 m\" @ 5:00/km",
                // A heart rate in bpm ends the step itself (hr<N); a percentage of the maximum is said in the label.
                "hr<125 cooldown",
                "open warmup \"Warm-up · until heart rate above 80% of maximum\"",
                "open work \"Burn · until 200 kcal\"",
                "open recovery \"Recovery · until power below 150 W\"",
                "open work \"Push · until power above 85% of FTP\"",
                "open work \"Free\" @ 6:00/km",
            ], "\(text)")
        let plan = try FITWorkout.decode(
            Self.garminLike([Self.step(0, (5, 0)), Self.step(1, (1, 80_000), speed: (3300, 3367))]), fallbackName: "x")
        #expect(plan.openStepCount == 1 && plan.duration == 4 * minute)
    }

    @Test func targetsTheTimerCannotFollowAreSaidInTheLabelAndTheOthersAreTargets() throws {
        let text = try Self.imported([
            Self.step(0, (0, 60_000), intensity: 2, name: "_A_", target: 2, targetType: 1),
            Self.step(1, (0, 60_000), intensity: 0, range: (240, 250), targetType: 1),
            Self.step(2, (0, 60_000), intensity: 0, range: (50, 60), targetType: 1),
            Self.step(3, (1, 50_000), intensity: 0, name: "B1_", target: 5, targetType: 4),
            Self.step(4, (1, 50_000), intensity: 0, name: "B2_", range: (1300, 1310), targetType: 4),
            Self.step(5, (0, 60_000), intensity: 0, range: (90, 95), targetType: 4),
            Self.step(6, (0, 60_000), intensity: 0, range: (85, 90), targetType: 3),
            Self.step(7, (0, 60_000), intensity: 0, target: 2, targetType: 3),
            Self.step(8, (0, 60_000), intensity: 0, target: 4, targetType: 0),
            Self.step(9, (2, 225), intensity: 3, name: "_C_", target: 1, targetType: 4),
            // Grade and resistance are a trainer's or a treadmill's, not the timer's: nothing is added.
            Self.step(10, (0, 60_000), intensity: 0, target: 3, targetType: 5),
        ])
        #expect(
            Self.items(text) == [
                "1m warmup \"_A_ · heart rate zone 2\"",
                // A heart-rate range in bpm and a power range in watts are followed: targets, not label text.
                "1m work @ 140-150bpm",
                "1m work \"Work · heart rate 50–60% of maximum\"",
                "0.5km work \"B1_ · power zone 5\"",
                "0.5km work \"B2_\" @ 300-310W",
                "1m work \"Work · power 90–95% of FTP\"",
                "1m work \"Work · cadence 85–90\"",
                "1m work \"Work · cadence zone 2\"",
                "1m work \"Work · speed zone 4\"",
                "hr<125 cooldown \"_C_ · power zone 1\"",
                "1m work",
            ], "\(text)")
    }

    /// Garmin's FIT SDK's sample of a repeat until a heart rate, as its workout's description gives it.
    static let repeatUntilHeartRate = [
        Self.step(0, (0, 60_000), intensity: 2, name: "_A_", target: 2, targetType: 1),
        Self.step(1, (1, 50_000), intensity: 0, name: "B1_", target: 5, targetType: 4),
        Self.step(2, (1, 50_000), intensity: 0, name: "B2_", target: 3, targetType: 4),
        Self.step(3, (11, 1), intensity: 0, name: "Rep", target: 80, targetType: 1),
        Self.step(4, (2, 225), intensity: 3, name: "_C_", target: 1, targetType: 4),
    ]

    @Test func aRepeatUntilASensorsValueIsRefusedSayingWhich() {
        #expect(
            Self.refusal(Self.garminLike(Self.repeatUntilHeartRate))
                == "step 4 (Rep): repeats until heart rate above 80% of maximum, which only a watch's sensor can tell")
        let steps = [Self.step(0, (0, 60_000)), Self.step(1, (0, 60_000))]
        let conditions: [(Int64, Int64, String)] = [
            (9, 500, "500 kcal"), (10, 220, "heart rate below 120 bpm"), (12, 1100, "power below 100 W"),
            (13, 1250, "power above 250 W"),
        ]
        for (type, value, condition) in conditions {
            #expect(
                Self.refusal(Self.garminLike(steps + [Self.step(2, (type, 0), target: value)]))
                    == "step 3: repeats until \(condition), which only a watch's sensor can tell")
        }
    }

    @Test func anImportedWorkoutExportsAndImportsAsTheSamePlanText() throws {
        let workout = Self.garminLike([
            Self.step(0, (5, 0), intensity: 2, name: "Warm up"),
            Self.step(1, (1, 40_000), intensity: 0),
            Self.step(2, (0, 90_000), intensity: 4, name: "Walk"),
            Self.step(3, (6, 1), target: 6),
            // A label longer than a step's name holds, whole through the notes.
            Self.step(
                4, (1, 50_000), intensity: 0, name: "Strides on the flat, quick and light, arms relaxed",
                range: (1300, 1310), targetType: 4),
            Self.step(5, (2, 225), intensity: 3, name: "_C_", target: 1, targetType: 4),
        ])
        let imported = try FITWorkout.decode(workout, fallbackName: "x")
        let text = PlanWriter.text(for: imported)
        #expect(text.contains("hr<125 cooldown \"_C_ · power zone 1\""), "\(text)")
        let export = try FITWorkout.encode(imported, restKinds: ["walk"], created: 0)
        #expect(export.notes.count == 1, "the long label is shortened in the step's name")
        let again = try FITWorkout.decode(export.bytes, fallbackName: "x")
        #expect(PlanWriter.text(for: again) == text)
        #expect(same(try plan(text), again))
    }

    @Test func whatIsNotAWorkoutOrCannotBePlayedIsRefusedSayingWhy() {
        let refusal = Self.refusal
        // Steps are counted from 1, as a workout app lists them (the file counts from 0), and named when they are.
        #expect(
            refusal(Self.garminLike([Self.step(0, (0, 1000)), Self.step(1, (16, 150), name: "B1_")]))
                == "step 2 (B1_): its duration type 16 is not one intervald knows")
        #expect(refusal(Self.garminLike([Self.step(0, (1, 0))])) == "step 1: a distance step without its distance")
        // 1 cm at 20 m/s is half a millisecond.
        #expect(
            refusal(Self.garminLike([Self.step(0, (1, 1), speed: (20000, 20000))]))
                == "step 1: a step must last at least 1 ms")
        #expect(
            refusal(Self.garminLike([Self.step(0, (0, 1000)), Self.step(1, (6, 5), target: 2)]))?.hasPrefix(
                "step 2: a repeat from step 6,") == true)
        #expect(refusal(Self.garminLike([])) == "the workout has no steps")
        var damaged = Self.garminLike([Self.step(0, (0, 1000))])
        damaged[damaged.count - 5] ^= 0xFF
        #expect(refusal(damaged)?.hasSuffix("the file is damaged: its CRC does not match its contents") == true)
        #expect(refusal(Array(damaged.prefix(30)))?.contains("the file is incomplete") == true)
    }

    @Test func aFileOfAnotherTypeSaysWhatItIsInWords() {
        func refusal(type: Int64) -> String? { Self.refusal(Self.garminLike([Self.step(0, (0, 1000))], type: type)) }
        // What a watch saves after a run: the file people most often mistake for a workout.
        #expect(refusal(type: 4) == "the file is a recorded activity (what a watch saves after a run), not a workout")
        #expect(refusal(type: 6) == "the file is a course (a route to follow), not a workout")
        #expect(refusal(type: 200) == "the file is of FIT file type 200, not a workout (5)")
    }

    @Test func aDamagedHeaderIsSaidToBeDamagedNotAnotherKindOfFile() {
        let good = Self.garminLike([Self.step(0, (0, 1000))])
        func refusal(_ change: (inout [UInt8]) -> Void) -> String? {
            var bytes = good
            change(&bytes)
            return Self.refusal(bytes)
        }
        #expect(
            refusal { $0[13] ^= 0x01 } == "the file is damaged: its header's CRC does not match the header")
        #expect(
            refusal { $0[0] = 13 }
                == "the file is damaged: its header gives its own size as 13 bytes, not 12 or 14")
        #expect(
            refusal { $0[9] = UInt8(ascii: "X") }
                == "not a FIT file, or one whose header is damaged: it has no “.FIT” signature")
    }

    @Test func refusalsAreInTheUsersLanguage() {
        let german = Localization.using(LocalizationTests.german) {
            Self.refusal(Self.garminLike(Self.repeatUntilHeartRate))
        }
        #expect(german?.hasPrefix("Schritt 4 (Rep): ") == true, "\(german ?? "decoded")")
    }
}

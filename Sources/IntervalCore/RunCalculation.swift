/// Interval RunCalc's heart: of a run's time, distance and pace, the one not given, from the other two; with the
/// splits per kilometre or mile. The arithmetic of the plan estimates (``Pace``).
public struct RunCalculation: Sendable, Equatable {
    /// What was given: two of the three.
    public struct Given: Sendable, Equatable {
        /// µs.
        public var time: Int64?
        public var metres: Double?
        public var pace: Pace?
        /// The distance or the pace was given in miles: answers and splits are in miles too.
        public var miles = false

        public init(time: Int64? = nil, metres: Double? = nil, pace: Pace? = nil, miles: Bool = false) {
            self.time = time
            self.metres = metres
            self.pace = pace
            self.miles = miles
        }

        /// How many of the three are given.
        public var count: Int { [time != nil, metres != nil, pace != nil].filter { $0 }.count }
    }

    public enum Quantity: String, Sendable, Equatable {
        case time, distance, pace
    }

    /// µs.
    public var time: Int64
    public var metres: Double
    public var pace: Pace
    /// The one that was solved.
    public var solved: Quantity
    /// Answers and splits in miles rather than kilometres.
    public var miles: Bool

    /// One split: the distance reached and the time at it.
    public struct Split: Sendable, Equatable {
        public var metres: Double
        /// µs.
        public var time: Int64
    }

    /// The time at every whole `unit` (1000 m or a mile) and at the end, at an even pace.
    public func splits(every unit: Double) -> [Split] {
        guard unit > 0 else { return [] }
        var splits: [Split] = []
        var reached = unit
        // A distance a hair over a whole unit (floating point) ends on that unit, not on a split of a micrometre.
        while reached < metres - 1e-6, splits.count < 100_000 {
            splits.append(Split(metres: reached, time: Int64((reached / pace.metresPerSecond * 1e6).rounded())))
            reached += unit
        }
        splits.append(Split(metres: metres, time: time))
        return splits
    }

    /// The metres of the unit answers and splits are in.
    public var unit: Double { miles ? Pace.metresPerMile : 1000 }

    /// The answer: the time (`1:30:00`), the pace and speed (`5:00/km, 12.0 km/h`) or the distance (`5.00 km`), in
    /// the units it was asked in; decimals with the user's separator.
    public var answer: String {
        switch solved {
        case .time: TimeText.clock(microseconds: time)
        case .pace:
            miles
                ? "\(pace.perMileText), \(PlanReport.format1(pace.milesPerHour)) mph"
                : "\(pace.perKilometreText), \(PlanReport.format1(pace.kilometresPerHour)) km/h"
        case .distance: "\(PlanReport.format2(metres / unit)) \(miles ? "mi" : "km")"
        }
    }

    /// Each split in the answer's unit: the distance reached ("2.5 km") and the time at it ("12:30").
    public var splitRows: [(distance: String, time: String)] {
        splits(every: unit).map { split in
            (
                "\(PlanReport.trimmedNumber(split.metres / unit)) \(miles ? "mi" : "km")",
                TimeText.clock(microseconds: split.time)
            )
        }
    }

    /// One line per split: the distance reached and the time at it, aligned.
    public var splitsText: String {
        let rows = splitRows
        let width = rows.map(\.distance.count).max() ?? 0
        let timeWidth = rows.map(\.time.count).max() ?? 0
        return rows.map { "\($0.distance.leftPadding(to: width))  \($0.time.leftPadding(to: timeWidth))" }
            .joined(separator: "\n")
    }

    /// Everything as one JSON object: what was solved, the three quantities in every unit, and the splits when asked.
    public func json(splits withSplits: Bool) -> String {
        var object = JSONObject()
        object.add("solved", string: solved.rawValue)
        object.add("time_us", number: String(time))
        object.add("time", string: TimeText.clock(microseconds: time))
        object.add("distance_m", number: PlanReport.fixed(metres, digits: 3))
        object.add("distance_km", number: PlanReport.fixed(metres / 1000, digits: 3))
        object.add("distance_mi", number: PlanReport.fixed(metres / Pace.metresPerMile, digits: 3))
        object.add("seconds_per_km", number: PlanReport.fixed(pace.secondsPerKilometre, digits: 2))
        object.add("seconds_per_mile", number: PlanReport.fixed(pace.secondsPerMile, digits: 2))
        object.add("km_per_hour", number: PlanReport.fixed(pace.kilometresPerHour, digits: 2))
        object.add("mph", number: PlanReport.fixed(pace.milesPerHour, digits: 2))
        if withSplits {
            object.add(
                "splits",
                objects: splits(every: unit).map { split in
                    var row = JSONObject()
                    row.add("distance_m", number: PlanReport.fixed(split.metres, digits: 3))
                    row.add("time_us", number: String(split.time))
                    return row
                })
        }
        return object.closed
    }
}

// In an extension, so that the struct keeps its memberwise initializer.
extension RunCalculation {
    /// Solves the third of `given`'s two; nil unless exactly two are given, all positive.
    public init?(_ given: Given) {
        switch (given.time, given.metres, given.pace) {
        case (nil, .some(let metres), .some(let pace)):
            // A time beyond what a microsecond count holds (a marathon at a snail's pace) is no answer, not a trap.
            guard let time = Int64(exactly: (metres / pace.metresPerSecond * 1e6).rounded()) else { return nil }
            self.init(time: time, metres: metres, pace: pace, solved: .time, miles: given.miles)
        case (.some(let time), nil, .some(let pace)):
            self.init(time: time, metres: pace.distance(in: time), pace: pace, solved: .distance, miles: given.miles)
        case (.some(let time), .some(let metres), nil) where time > 0:
            self.init(
                time: time, metres: metres, pace: Pace(metresPerSecond: metres / (Double(time) / 1e6)), solved: .pace,
                miles: given.miles)
        default:
            return nil
        }
        guard time > 0, metres > 0, metres.isFinite, pace.metresPerSecond > 0 else { return nil }
    }
}

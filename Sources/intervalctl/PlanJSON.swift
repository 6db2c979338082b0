import ArgumentParser
import IntervalCore
import IntervalCtlCommon

/// The stable JSON of `intervalctl plan show --json`: snake_case keys, times in microseconds, distances in metres.
struct PlanJSON: Encodable {
    let name, origin: String
    /// `duration_us` is the timed steps' time; `open_steps` the steps the person ends, which have none.
    let durationUs, segmentCount, openSteps: Int64
    let countdownUs: Int64?
    let kinds: [Kind]
    let distanceM: Double?
    let averagePace: PaceJSON?
    let items: [Item]

    /// A kind's timed time, its share of the plan's, and its steps the person ends.
    struct Kind: Encodable {
        let kind: String
        let durationUs: Int64
        let share: Double
        let openSteps: Int64
    }

    struct PaceJSON: Encodable {
        let metresPerSecond, secondsPerKm, secondsPerMile, kmPerHour: Double
        let text: String

        init(_ pace: Pace) {
            metresPerSecond = pace.metresPerSecond
            secondsPerKm = pace.secondsPerKilometre
            secondsPerMile = pace.secondsPerMile
            kmPerHour = pace.kilometresPerHour
            text = pace.perKilometreText
        }
    }

    /// A step (`type` "step") or a group (`type` "repeat" or "for").
    struct Item: Encodable {
        let type: String
        let kind, label: String?
        /// A step the person ends: `open` true, `duration_us` 0, and its `distance_m` if it has one.
        let durationUs: Int64
        let open: Bool?
        let distanceM: Double?
        let pace: PaceJSON?
        let count: Int?
        let limitM: Double?
        let limitUs, iterations, fullIterations, lastIterationUs, iterationDurationUs, segmentCount: Int64?
        let items: [Item]?

        init(_ node: PlanNode) {
            switch node {
            case .step(let step):
                type = "step"
                kind = step.kind
                label = step.label
                durationUs = step.duration
                (open, distanceM) = (step.isOpen, step.distance)
                pace = step.pace.map(PaceJSON.init)
                (count, limitUs, limitM, iterations, fullIterations, lastIterationUs) = (nil, nil, nil, nil, nil, nil)
                (iterationDurationUs, segmentCount, items) = (nil, nil, nil)
            case .group(let group):
                (kind, label, pace, open, distanceM) = (nil, nil, nil, nil, nil)
                durationUs = group.totalDuration
                iterations = group.iterationCount
                fullIterations = group.fullIterations
                lastIterationUs = group.tailDuration > 0 ? group.tailDuration : nil
                iterationDurationUs = group.iterationDuration
                segmentCount = group.totalSegmentCount
                items = group.children.map(Item.init)
                switch group.repetition {
                case .times(let times):
                    (type, count, limitUs, limitM) = ("repeat", times, nil, nil)
                case .forDuration(let limit):
                    (type, count, limitUs, limitM) = ("for", nil, limit, nil)
                case .forDistance(let metres):
                    (type, count, limitUs, limitM) = ("for", nil, nil, metres)
                case .once:
                    (type, count, limitUs, limitM) = ("group", 1, nil, nil)
                }
            }
        }
    }

    init(_ loaded: LoadedPlan) {
        let plan = loaded.plan
        let estimate = PlanEstimate(plan)
        name = plan.name
        origin = loaded.source.origin
        durationUs = plan.duration
        segmentCount = plan.segmentCount
        openSteps = plan.openStepCount
        countdownUs = plan.countdown
        kinds = estimate.kinds.map {
            Kind(kind: $0.kind, durationUs: $0.duration, share: $0.share, openSteps: $0.openSteps)
        }
        distanceM = estimate.distance
        averagePace = estimate.averagePace.map(PaceJSON.init)
        items = plan.root.children.map(Item.init)
    }

    func encoded() throws -> String {
        try stableJSON(self)
    }
}

/// The output of a catalog's listing (`intervalctl plans`, `intervalctl programs`): its flag, and its printing.
struct CatalogOutput: ParsableArguments {
    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// Prints the entries as JSON, made in English (the same bytes in every locale, docs/reference.md §9); or a line
    /// an entry, its name and then `columns`' words, each column but the last padded to its widest ("24:00 + 2 open
    /// steps" is wider than "40:00"); or `empty` when there is none.
    func print<Entry: Encodable>(
        empty: @autoclosure () -> String, name: (Entry) -> String, columns: (Entry) -> [String],
        entries: () -> [Entry]
    ) throws {
        guard !json else { return Console.print(try stableJSON(Localization.inEnglish(entries))) }
        let listed = entries()
        guard !listed.isEmpty else { return Console.print(empty()) }
        let rows: [[String]] = listed.map { [name($0)] + columns($0) }
        var widths: [Int] = []
        for row in rows {
            for (column, text) in row.dropLast().enumerated() {
                if column == widths.count { widths.append(0) }
                widths[column] = max(widths[column], text.count)
            }
        }
        for row in rows {
            let padded = row.enumerated().map { column, text in
                column < row.count - 1 ? text.padding(to: widths[column]) : text
            }
            Console.print(padded.joined(separator: "  "))
        }
    }
}

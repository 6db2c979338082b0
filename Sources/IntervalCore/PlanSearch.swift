/// What the desktop's search (GNOME Shell's search provider, KRunner's runner; docs/reference.md §8) offers for what a
/// person typed: the named plans whose name or title contains every term, and the typed text itself when it is a
/// one-line plan that parses ("8x(30s run, 30s walk)", which the Shell hands over split at spaces).
public enum PlanSearch {
    /// Longer queries are not searched: nobody types that much into a search field, and each one would be parsed.
    public static let maximumQueryCharacters = 512
    /// At most this many named plans are offered for one query.
    public static let maximumResults = 20

    /// A named plan that parsed, as the search shows it.
    public struct Entry: Sendable, Equatable {
        /// The plan's name, as `intervalctl start NAME` takes it: "tabata".
        public var name: String
        /// The plan's own name: "Tabata".
        public var title: String
        /// The timed steps' time, and how many steps the person ends.
        public var duration, segmentCount, openSteps: Int64

        public init(name: String, title: String, duration: Int64, segmentCount: Int64, openSteps: Int64 = 0) {
            self.name = name
            self.title = title
            self.duration = duration
            self.segmentCount = segmentCount
            self.openSteps = openSteps
        }

        public init(name: String, plan: Plan) {
            self.init(
                name: name, title: plan.name, duration: plan.duration, segmentCount: plan.segmentCount,
                openSteps: plan.openStepCount)
        }

        /// A program's next day: "Couch to 5K — Week 3, Day 2", with that day's length.
        public init(program name: String, title: String, day: ProgramDay, plan: Plan) {
            self.init(
                name: name, title: tr("{program} — {day}", ["program": title, "day": day.title]),
                duration: plan.duration, segmentCount: plan.segmentCount, openSteps: plan.openStepCount)
        }
    }

    /// One thing the search offers, and the result identifier the desktop hands back to start it.
    public enum Result: Sendable, Equatable, Hashable {
        /// A named plan, by its name.
        case named(String)
        /// A one-line plan, by its text.
        case inline(String)
        /// A training program's next day, by the program's name.
        case program(String)

        private static let namedPrefix = "plan:"
        private static let inlinePrefix = "inline:"
        private static let programPrefix = "program:"

        public var identifier: String {
            switch self {
            case .named(let name): Self.namedPrefix + name
            case .inline(let text): Self.inlinePrefix + text
            case .program(let name): Self.programPrefix + name
            }
        }

        /// The result an identifier stands for; nil for one this search never gave.
        public init?(identifier: String) {
            if identifier.hasPrefix(Self.namedPrefix) {
                let name = String(identifier.dropFirst(Self.namedPrefix.count))
                guard PlanLocator.isName(name) else { return nil }
                self = .named(name)
            } else if identifier.hasPrefix(Self.inlinePrefix) {
                let text = String(identifier.dropFirst(Self.inlinePrefix.count))
                guard !text.isEmpty, text.count <= maximumQueryCharacters else { return nil }
                self = .inline(text)
            } else if identifier.hasPrefix(Self.programPrefix) {
                let name = String(identifier.dropFirst(Self.programPrefix.count))
                guard PlanLocator.isName(name) else { return nil }
                self = .program(name)
            } else {
                return nil
            }
        }
    }

    /// How a result is shown: "Start Tabata" over "4:00 · 16 intervals".
    public struct Description: Sendable, Equatable {
        public var name: String
        public var detail: String

        /// A result that no longer stands for a plan (its file went away between the search and the question).
        public static var unavailable: Description {
            Description(name: tr("Plan not found"), detail: tr("It was renamed or removed."))
        }

        private init(name: String, detail: String) {
            self.name = name
            self.detail = detail
        }

        /// "Start Tabata", "4:00 · 16 intervals"; "24:00 + 2 open steps · 15 intervals" with steps the person ends.
        public init(title: String, duration: Int64, segmentCount: Int64, openSteps: Int64 = 0) {
            name = tr("Start {plan}", ["plan": Localization.planName(title)])
            let intervals = trn("{count} interval", "{count} intervals", Int(clamping: segmentCount))
            detail = "\(PlanReport.timeText(duration, openSteps: openSteps)) · \(intervals)"
        }

        public init(_ entry: Entry) {
            self.init(
                title: entry.title, duration: entry.duration, segmentCount: entry.segmentCount,
                openSteps: entry.openSteps)
        }

        /// A one-line plan's: its text, with the plan's length and count.
        public init(title: String, plan: Plan) {
            self.init(
                title: title, duration: plan.duration, segmentCount: plan.segmentCount,
                openSteps: plan.openStepCount)
        }
    }

    /// A result with what the desktop shows of it.
    public struct Hit: Sendable, Equatable {
        public var result: Result
        public var description: Description

        public init(_ result: Result, _ description: Description) {
            self.result = result
            self.description = description
        }
    }

    /// The typed query as one line: the terms joined with single spaces, or nil when there is nothing to search or
    /// it is longer than ``maximumQueryCharacters``.
    public static func query(_ terms: [String]) -> String? {
        var length = 0
        var words: [Substring] = []
        for term in terms {
            for word in term.split(whereSeparator: \.isWhitespace) {
                length += word.count + 1
                guard length <= maximumQueryCharacters + 1 else { return nil }
                words.append(word)
            }
        }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// The named plans that match `query` (every word of it, ignoring case, is part of the plan's name or title),
    /// those whose name or title starts with the first word first, then by name.
    public static func matches(_ query: String, in entries: [Entry]) -> [Entry] {
        let words = query.lowercased().split(separator: " ")
        guard let first = words.first else { return [] }
        let matching = entries.filter { entry in
            let haystack = entry.name.lowercased() + " " + entry.title.lowercased()
            return words.allSatisfy { haystack.contains($0) }
        }
        func startsWithFirst(_ entry: Entry) -> Bool {
            entry.name.lowercased().hasPrefix(first) || entry.title.lowercased().hasPrefix(first)
        }
        let ranked = matching.sorted { left, right in
            let (leftFirst, rightFirst) = (startsWithFirst(left), startsWithFirst(right))
            return leftFirst != rightFirst ? leftFirst : left.name < right.name
        }
        return Array(ranked.prefix(maximumResults))
    }

    /// Whether `query` could be a one-line plan worth parsing: plans give durations or distances, so it has a digit.
    public static func mayBeInlinePlan(_ query: String) -> Bool {
        query.contains(where: \.isNumber)
    }
}

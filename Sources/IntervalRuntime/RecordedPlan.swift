import IntervalCore

/// The plan a history record ran, when it can be known: what the window's finish page offers to start again, and the
/// distance it says was run. Its file (a record of a `.plan`), the one-line text the record keeps, or the text last
/// started in the window when the record is that plan's.
public struct RecordedPlan: Sendable {
    public var text: String
    /// The plan's file, or "" for a one-line plan.
    public var origin: String
    public var plan: Plan

    /// The plan of `record`; `lastStarted` is the plan text last started here and its origin, if any.
    public init?(of record: HistoryRecord, lastStarted: (text: String, origin: String)?) {
        if record.origin.hasSuffix(".plan") {
            let item = PlanCatalog.load(name: record.plan, path: record.origin)
            guard let text = item.text, case .success(let plan) = item.plan else { return nil }
            (self.text, origin, self.plan) = (text, record.origin, plan)
        } else if let text = record.text, let plan = Self.parse(text, origin: ""), plan.name == record.plan {
            // A one-line plan started anywhere: the shell's -e, the overview search, a hook.
            (self.text, origin, self.plan) = (text, "", plan)
        } else if let started = lastStarted, started.origin == record.origin,
            let plan = Self.parse(started.text, origin: started.origin), plan.name == record.plan
        {
            (self.text, origin, self.plan) = (started.text, started.origin, plan)
        } else {
            return nil
        }
    }

    private static func parse(_ text: String, origin: String) -> Plan? {
        try? PlanParser.parse(text, origin: origin, defaultName: PlanLocator.inlineName(for: text))
    }

    /// The metres the workout of `record` covered, when the plan's steps say. The time done counts the steps the
    /// person ended as long as they were played, which the plan's timeline does not: with such steps the distance is
    /// known only for a workout that finished (its whole plan).
    public func distanceDone(by record: HistoryRecord) -> Double? {
        guard plan.openStepCount > 0 else { return PlanEstimate.distance(of: plan, through: record.doneDuration) }
        return record.result == .finished ? PlanEstimate(plan).distance : nil
    }
}

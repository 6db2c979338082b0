@testable import IntervalCore

/// Parses inline plan text, failing the test with the diagnostic if it is invalid.
func plan(_ text: String, origin: String = "<inline>") throws -> Plan {
    try PlanParser.parse(text, origin: origin, defaultName: "test")
}

/// The diagnostic `text` gives, or nil if it parses.
func diagnostic(_ text: String, origin: String = "<inline>") -> PlanDiagnostic? {
    do {
        _ = try PlanParser.parse(text, origin: origin, defaultName: "test")
        return nil
    } catch {
        return error
    }
}

let second = Micros.second
let minute = Micros.minute

/// Whether two plans are the same: name, countdown, and every item to the microsecond and the bit.
func same(_ one: Plan, _ other: Plan) -> Bool {
    one.name == other.name && one.countdown == other.countdown && same(one.root, other.root)
}

func same(_ one: PlanGroup, _ other: PlanGroup) -> Bool {
    one.repetition == other.repetition && one.children.count == other.children.count
        && zip(one.children, other.children).allSatisfy { pair in
            switch pair {
            case (.step(let a), .step(let b)): a == b
            case (.group(let a), .group(let b)): same(a, b)
            default: false
            }
        }
}

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

import FuzzDriver
import IntervalCore

/// libFuzzer's entry point (scripts/fuzz): any bytes are plan text. A crash, an address-sanitizer report or a broken
/// property (a trap below) is a finding; a plan that parses or a located diagnostic is the expected outcome.
@_cdecl("LLVMFuzzerTestOneInput")
public func planParserFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let plan: Plan
    do {
        plan = try PlanParser.parse(bytes: bytes, origin: "fuzz", defaultName: "fuzz")
    } catch {
        let lines = bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        precondition(error.line >= 1 && error.line <= lines && error.column >= 1, "diagnostic outside the text")
        precondition(error.description.hasPrefix("fuzz:\(error.line):\(error.column): error: "), "malformed diagnostic")
        return 0
    }
    precondition(plan.duration > 0 && plan.duration <= PlanLimits.maximumDuration, "duration outside the limits")
    precondition(
        plan.segmentCount >= 1 && plan.segmentCount <= PlanLimits.maximumSegmentCount,
        "segment count outside the limits")
    precondition(plan.segment(at: 0)?.index == 0, "the first segment is not segment 0")
    precondition(plan.segment(at: plan.duration - 1)?.index == plan.segmentCount - 1, "the last segment is misplaced")
    precondition(plan.segment(at: plan.duration) == nil, "a segment after the end")
    let estimate = PlanEstimate(plan)
    precondition(estimate.kinds.reduce(0) { $0 + $1.duration } == plan.duration, "time per kind does not add up")
    // A few seeks spread over the plan, each a segment that contains its instant.
    for step in 1...7 {
        let instant = plan.duration / 8 * Int64(step)
        if let segment = plan.segment(at: instant) {
            precondition(segment.start <= instant && instant < segment.end, "a seek found the wrong segment")
            precondition(segment.duration >= 1 && segment.index < plan.segmentCount, "a seek found a bad segment")
        }
    }
    return 0
}

@main enum PlanParserFuzzer {
    static func main() { runFuzzer(planParserFuzzerTestOneInput) }
}

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
    // A plan of steps the person ends alone has no time; its timeline still has a place for each.
    precondition(plan.duration >= 0 && plan.duration <= PlanLimits.maximumDuration, "duration outside the limits")
    precondition(plan.timelineEnd > 0 && plan.timelineEnd >= plan.duration, "a timeline shorter than the plan")
    precondition(plan.time(at: plan.timelineEnd) == plan.duration, "the timeline's time is not the plan's")
    precondition(
        plan.segmentCount >= 1 && plan.segmentCount <= PlanLimits.maximumSegmentCount,
        "segment count outside the limits")
    let end = plan.timelineEnd
    precondition(plan.segment(at: 0)?.index == 0, "the first segment is not segment 0")
    precondition(plan.segment(at: end - 1)?.index == plan.segmentCount - 1, "the last segment is misplaced")
    precondition(plan.segment(at: end) == nil, "a segment after the end")
    let estimate = PlanEstimate(plan)
    precondition(estimate.kinds.reduce(0) { $0 + $1.duration } == plan.duration, "time per kind does not add up")
    precondition(estimate.kinds.reduce(0) { $0 + $1.openSteps } == plan.openStepCount, "open steps do not add up")
    // A few seeks spread over the timeline, each a segment that holds its place; a step the person ends has no time.
    for step in 1...7 {
        let place = end / 8 * Int64(step)
        if let segment = plan.segment(at: place) {
            precondition(segment.start <= place && place < segment.end, "a seek found the wrong segment")
            precondition(
                (segment.isOpen ? segment.duration == 0 : segment.duration >= 1) && segment.index < plan.segmentCount,
                "a seek found a bad segment")
        }
    }
    return 0
}

@main enum PlanParserFuzzer {
    static func main() { runFuzzer(planParserFuzzerTestOneInput) }
}

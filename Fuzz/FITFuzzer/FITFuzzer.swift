import FuzzDriver
import IntervalCore

/// libFuzzer's entry point (scripts/fuzz fit): any bytes are a FIT file. A crash, an address-sanitizer report or a
/// broken property (a trap below) is a finding; messages read, or a refusal that says where, are the expected outcome.
@_cdecl("LLVMFuzzerTestOneInput")
public func fitFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        let messages = try FIT.decode(bytes)
        // What was read writes again and reads back the same.
        precondition((try? FIT.decode(FIT.encode(messages))) != nil, "a file written from read messages does not read")
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count && !error.message.isEmpty, "a bad refusal")
        return 0
    }
    do {
        let plan = try FITWorkout.decode(bytes, fallbackName: "fuzz")
        // A workout of steps ended by the person alone (open, a sensor's value) has no time, but has a timeline.
        precondition(
            plan.duration >= 0 && plan.duration <= PlanLimits.maximumDuration && plan.timelineEnd > 0,
            "duration outside the limits")
        // A workout read writes again.
        _ = try FITWorkout.encode(plan, restKinds: [], created: 0)
    } catch {
        precondition(!error.message.isEmpty, "a refusal without a message")
    }
    return 0
}

@main enum FITFuzzer {
    static func main() { runFuzzer(fitFuzzerTestOneInput) }
}

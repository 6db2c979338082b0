import Testing

@testable import IntervalCore

/// A small seeded generator, so that a failing case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random and mutated plan texts never crash the parser: each parses, or fails with a located diagnostic.
@Suite struct PlanFuzzTests {
    static let fragments = [
        "30s", "1m30s", "1:30", "1:02:03", "250ms", "1h5m", "0s", "-1s", "99999999999999h", "run", "walk", "Rest",
        "\"Label\"", "\"", "@", "5:30/km", "10 km/h", "6 mph", "3.2 m/s", "x", "3x", "100001x", "for", "45m", "5km",
        "(", ")", "{", "}", ",", ";", "\n", "#", " ", "\t", "name", "countdown", "3s", "×", "🏃", "\u{0}", "\r\n", ".",
        ":", "/", "1.5", "1e9", "0x", "∞", "200W", "-", "130-150bpm", "bpm", "W", "0W",
    ]

    /// Checks the one property every input must have.
    func check(_ bytes: [UInt8], _ context: @autoclosure () -> String) {
        do {
            let parsed = try PlanParser.parse(bytes: bytes, origin: "fuzz", defaultName: "fuzz")
            #expect(parsed.duration > 0 && parsed.duration <= PlanLimits.maximumDuration, "\(context())")
            #expect(parsed.segmentCount >= 1, "\(context())")
            if let last = parsed.segment(at: parsed.duration - 1) {
                #expect(last.index == parsed.segmentCount - 1, "\(context())")
            }
        } catch {
            let lines = bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            #expect(error.line >= 1 && error.line <= lines, "\(context())")
            #expect(error.column >= 1, "\(context())")
            #expect(!error.message.isEmpty, "\(context())")
            #expect(error.description.hasPrefix("fuzz:\(error.line):\(error.column): error: "), "\(context())")
        }
    }

    @Test func randomFragmentSequences() {
        var random = SplitMix64(state: 42)
        for round in 0..<3000 {
            let count = Int.random(in: 0...24, using: &random)
            let text = (0..<count).map { _ in Self.fragments.randomElement(using: &random) ?? "" }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            check(Array(text.utf8), "round \(round): \(text.debugDescription)")
        }
    }

    @Test func mutatedBundledPlans() {
        let seeds = [
            "name \"G\"\ncountdown 3s\n5m walk \"Warm-up\"\n6x {\n  4x { 30s run; 30s walk }\n  60s walk \"Walk break\"\n}\n5m walk",
            "10m warmup @ 7:00/km\nfor 5km {\n  4m run \"Tempo\" @ 5:30/km\n  1m walk @ 10:00/km\n}\n5m cooldown @ 6 km/h",
            "for 45m(4m run, 1m walk), 8x(20s work, 10s rest)",
        ]
        var random = SplitMix64(state: 7)
        for round in 0..<4000 {
            var bytes = Array((seeds.randomElement(using: &random) ?? "").utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0...bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where index < bytes.count: bytes.remove(at: index)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                case 2 where index < bytes.count: bytes[index] = UInt8.random(in: 0x20...0x7E, using: &random)
                default:
                    let fragment = Self.fragments.randomElement(using: &random) ?? ""
                    bytes.insert(contentsOf: Array(fragment.utf8), at: index)
                }
            }
            check(bytes, "round \(round): \(bytes)")
        }
    }

    @Test func randomBinary() {
        var random = SplitMix64(state: 1)
        for round in 0..<500 {
            let bytes = (0..<Int.random(in: 0...512, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            check(bytes, "round \(round)")
        }
    }

    @Test func oneMegabyteInputs() {
        let valid = String(repeating: "1ms run, 1ms walk\n", count: 1_048_576 / 18)
        check(Array(valid.utf8), "1 MB valid")
        #expect(diagnostic(valid) == nil)
        let oneLine = String(repeating: "30s run, ", count: 1_048_576 / 9) + "oops"
        check(Array(oneLine.utf8), "1 MB on one line")
        check([UInt8](repeating: UInt8(ascii: "("), count: 1_048_576), "1 MB of (")
        check([UInt8](repeating: 0, count: 1_048_576), "1 MB of NUL")
        var random = SplitMix64(state: 99)
        check((0..<1_048_576).map { _ in UInt8.random(in: 0...255, using: &random) }, "1 MB random")
    }
}

import Foundation
import IntervalRuntime
import Testing

struct ResidentCodeTests {
    /// The process's resident pages mapped from files (`RssFile` in /proc/self/status), KiB.
    private static func residentFileKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func givingTheCodesPagesBackLowersTheResidentSetAndWhatRunsNextStillRuns() throws {
        let before = try Self.residentFileKiB()
        let released = ResidentCode.release()
        let after = try Self.residentFileKiB()
        // This test binary's code alone is megabytes, and its tests have run much of it.
        #expect(released > 1 << 20)
        #expect(after < before - 256, "RssFile \(before) KiB → \(after) KiB")
        // Code and read-only data come back as they are used: the formatting, the JSON coder, the file read.
        let encoded = try JSONEncoder().encode(["resident": after])
        #expect(try JSONDecoder().decode([String: Int].self, from: encoded) == ["resident": after])
        #expect(try Self.residentFileKiB() > 0)
    }
}

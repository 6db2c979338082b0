import FuzzDriver
import IntervalCore
import IntervalSettings

/// libFuzzer's entry point (scripts/fuzz): any bytes are `intervald.toml` text. The settings reader must return
/// settings and problems, never crash; every problem names the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func settingsFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let (settings, problems) = SettingsFile.parse(String(decoding: bytes, as: UTF8.self), path: "fuzz.toml")
    precondition(problems.allSatisfy { $0.hasPrefix("fuzz.toml") }, "a problem without the file's name")
    if let countdown = settings.defaultCountdown {
        precondition(countdown >= PlanLimits.minimumStepDuration, "a countdown under 1 ms")
    }
    if let idleExit = settings.idleExit { precondition(idleExit > 0, "a negative idle exit") }
    return 0
}

@main enum SettingsFuzzer {
    static func main() { runFuzzer(settingsFuzzerTestOneInput) }
}

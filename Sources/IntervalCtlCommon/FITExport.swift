import ArgumentParser
import Glibc
import IntervalCore
import IntervalRuntime
import IntervalSettings

/// What `plan export` writes.
package enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case fit, plan
}

/// What the export commands share: the bytes of a format, the file's name, and writing it whole or not at all.
package enum FITExport {
    /// The rest kinds of the settings file: their steps are recovery steps in a FIT workout. Read once, however many
    /// days a program export writes.
    package static let restKinds = SettingsFile.load(path: ProgramLookup.paths.settingsFile).0.sound.restKinds

    /// `plan` as `format`; a plan a FIT workout cannot hold exits 65 with the reason, and what was adapted is said.
    package static func bytes(of plan: Plan, format: ExportFormat) throws -> [UInt8] {
        switch format {
        case .plan:
            return Array(PlanWriter.text(for: plan).utf8)
        case .fit:
            do throws(FITWorkoutError) {
                let export = try FITWorkout.encode(
                    plan, restKinds: restKinds, created: WallClock.microseconds() / Micros.second)
                for note in export.notes { Console.error("intervalctl: note: \(note)\n") }
                return export.bytes
            } catch {
                printError(
                    tr("{plan} cannot be a FIT workout: {reason}", ["plan": plan.name, "reason": error.message]))
                throw ExitStatus.invalidPlan
            }
        }
    }

    /// Writes `bytes` to `path` atomically (a crash leaves the old file or the new one), or to standard output.
    package static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try? Console.write(bytes, to: STDOUT_FILENO)
            return
        }
        _ = try failingOnFileError { () throws(FileError) in try FileBytes.replace(path, with: bytes) }
    }
}

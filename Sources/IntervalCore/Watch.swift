/// A Garmin watch as GIO shows it (docs/fit.md, "Sending to a watch"): a mount whose root, or one of whose top-level
/// folders (an MTP storage: "Primary", "Internal Storage"), has a `GARMIN` folder. Found and written by IntervalWatch;
/// what is decided about it without GIO (which watch, how it is said) is here.
public struct Watch: Sendable, Hashable {
    /// The mount's name, as GIO shows it ("FORERUNNER", "Forerunner 265").
    public let name: String
    /// The `GARMIN` folder's URI, which GIO opens again wherever it is (`file:///media/…`, `mtp://091e_…/…`).
    public let folder: String
    /// Where the `GARMIN` folder is, for a person: its path on a mount with a local path, else its URI as GIO says it
    /// (`mtp://091e_4f42/Internal Storage/GARMIN`).
    public let location: String
    /// The bytes free on its storage, when GIO says (`filesystem::free`) and was asked (`intervalctl watch` asks).
    public let freeBytes: UInt64?

    public init(name: String, folder: String, location: String, freeBytes: UInt64?) {
        (self.name, self.folder, self.location, self.freeBytes) = (name, folder, location, freeBytes)
    }

    /// The folder a watch takes new workouts from, in its `GARMIN` folder; it reads it when it is unplugged.
    public static let newFilesFolder = "NewFiles"

    /// "12.3 MB free", "free space unknown".
    public var freeSpaceText: String {
        guard let freeBytes else { return tr("free space unknown") }
        return tr("{size} free", ["size": Self.sizeText(freeBytes)])
    }

    /// A size in decimal units, as GNOME's Files says it: "900 bytes", "3.2 MB", "29.5 GB".
    public static func sizeText(_ bytes: UInt64) -> String {
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        guard bytes >= 1000 else { return trn("{count} byte", "{count} bytes", Int(bytes)) }
        var unit = 0
        var scaled = Double(bytes) / 1000
        while scaled >= 999.95, unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        let tenths = (scaled * 10).rounded()
        let text = "\(Int(tenths) / 10).\(Int(tenths) % 10)"
        return "\(Localization.decimal(text)) \(units[unit])"
    }

    /// What is said once workouts are sent: "Sent “Tabata” to FORERUNNER. Unplug the watch to load the workout.", or
    /// "Sent 3 workouts to …" for a program's week. A watch files what is in `NewFiles` only once it is unplugged.
    public func sentText(_ workouts: [String]) -> String {
        let sent =
            workouts.count == 1
            ? tr("Sent “{name}” to {watch}.", ["name": workouts.first ?? "", "watch": name])
            : trn(
                "Sent {count} workout to {watch}.", "Sent {count} workouts to {watch}.", workouts.count, ["watch": name]
            )
        return sent + " "
            + trn(
                "Unplug the watch to load the workout.", "Unplug the watch to load the workouts.", workouts.count)
    }

    /// The workout's name in a FIT workout file that a watch takes as it is (`intervalctl watch send FILE.fit`): a
    /// whole FIT file (its CRCs checked) of type 5, workout. Unlike `plan import`, a step intervald cannot time (an
    /// open one, ended by Lap) is no reason to refuse it: the watch runs it.
    public static func workoutName(inFIT bytes: [UInt8]) throws(FITWorkoutError) -> String? {
        try FITWorkout.workoutMessages(bytes).first { $0.global == FIT.Workout.global }?[FIT.Workout.wktName]?.text
    }

    /// Of `watches`, the one named `name` (its name as listed, else the only one whose name matches in another letter
    /// case), or with no name the only one there is.
    public static func choose(_ name: String?, from watches: [Watch]) throws(WatchError) -> Watch {
        guard !watches.isEmpty else { throw WatchError(.noWatch) }
        guard let name else {
            guard watches.count == 1, let only = watches.first else {
                throw WatchError(.severalWatches(watches.map(\.name)))
            }
            return only
        }
        if let exact = watches.first(where: { $0.name == name }) { return exact }
        let folded = watches.filter { $0.name.lowercased() == name.lowercased() }
        guard folded.count == 1, let match = folded.first else {
            throw WatchError(.noWatchNamed(name, connected: watches.map(\.name)))
        }
        return match
    }
}

/// Why a watch was not found or not written (docs/fit.md): each says which watch and which file.
public struct WatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No mount with a `GARMIN` folder.
        case noWatch
        /// More than one, and none was named.
        case severalWatches([String])
        /// None of the connected watches has this name.
        case noWatchNamed(String, connected: [String])
        /// GIO could not make the local copy of the workout (the reason GIO gave).
        case localCopy(reason: String)
        /// GIO could not make `GARMIN/NewFiles` on the watch, or it is not a folder.
        case newFilesFolder(watch: String, location: String, reason: String)
        /// The watch's file of the same name could not be deleted before the copy.
        case replace(watch: String, file: String, location: String, reason: String)
        /// The copy to the watch failed; no part of the file was left there.
        case copy(watch: String, file: String, location: String, reason: String)
        /// The copy failed, and what it had written could not be deleted either (`cleanup`, why).
        case copyLeftPart(watch: String, file: String, location: String, reason: String, cleanup: String)
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .noWatch:
            return tr("No watch is connected.")
        case .severalWatches(let names):
            return tr(
                "Several watches are connected ({watches}): choose one with --watch NAME.",
                ["watches": Self.list(names)])
        case .noWatchNamed(let name, let connected):
            return tr(
                "No watch named “{name}” is connected (connected: {watches}).",
                ["name": name, "watches": Self.list(connected)])
        case .localCopy(let reason):
            return tr("Could not make the workout file to copy: {reason}", ["reason": reason])
        case .newFilesFolder(let watch, let location, let reason):
            return tr(
                "Could not make the folder {folder} on {watch}: {reason}",
                ["folder": location, "watch": watch, "reason": reason])
        case .replace(let watch, let file, let location, let reason):
            return tr(
                "Could not replace “{file}” on {watch} ({folder}): {reason}",
                ["file": file, "watch": watch, "folder": location, "reason": reason])
        case .copy(let watch, let file, let location, let reason):
            return tr(
                "Could not copy “{file}” to {watch} ({folder}): {reason}. Nothing of it was left on the watch.",
                ["file": file, "watch": watch, "folder": location, "reason": reason])
        case .copyLeftPart(let watch, let file, let location, let reason, let cleanup):
            return tr(
                "Could not copy “{file}” to {watch} ({folder}): {reason}. A part of it may be left there, and could not be deleted: {cleanup}",
                ["file": file, "watch": watch, "folder": location, "reason": reason, "cleanup": cleanup])
        }
    }

    /// “A”, “B”: names as a list.
    private static func list(_ names: [String]) -> String {
        names.map { "“\($0)”" }.joined(separator: ", ")
    }
}

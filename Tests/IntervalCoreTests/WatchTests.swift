import IntervalCore
import Testing

/// What is decided about a watch without GIO (docs/fit.md): which of the connected ones a name means, its free space
/// in words, what is said once a workout is sent, and each refusal naming the watch and the file.
struct WatchTests {
    static func watch(_ name: String, free: UInt64? = nil) -> Watch {
        Watch(
            name: name, folder: "mtp://091e_4f42/Internal%20Storage/GARMIN",
            location: "mtp://091e_4f42/Internal Storage/GARMIN", freeBytes: free)
    }

    @Test func theOnlyWatchIsChosenWithoutAName() throws {
        #expect(try Watch.choose(nil, from: [Self.watch("fenix 6")]).name == "fenix 6")
    }

    @Test func noWatchSaysSo() {
        #expect(throws: WatchError(.noWatch)) { try Watch.choose(nil, from: []) }
        #expect(throws: WatchError(.noWatch)) { try Watch.choose("fenix 6", from: []) }
        #expect(WatchError(.noWatch).description == "No watch is connected.")
    }

    @Test func severalWatchesNeedANameAndTheRefusalListsThem() throws {
        let watches = [Self.watch("fenix 6"), Self.watch("FORERUNNER")]
        #expect(throws: WatchError(.severalWatches(["fenix 6", "FORERUNNER"]))) { try Watch.choose(nil, from: watches) }
        #expect(
            WatchError(.severalWatches(["fenix 6", "FORERUNNER"])).description
                == "Several watches are connected (“fenix 6”, “FORERUNNER”): choose one with --watch NAME.")
        #expect(try Watch.choose("FORERUNNER", from: watches).name == "FORERUNNER")
        #expect(try Watch.choose("Forerunner", from: watches).name == "FORERUNNER")
    }

    @Test func aNameNoWatchHasIsRefusedWithTheConnectedOnes() {
        let watches = [Self.watch("fenix 6"), Self.watch("Fenix 6")]
        // Two that differ only in case: the name must be exact.
        #expect(throws: WatchError(.noWatchNamed("FENIX 6", connected: ["fenix 6", "Fenix 6"]))) {
            try Watch.choose("FENIX 6", from: watches)
        }
        #expect(
            WatchError(.noWatchNamed("Edge", connected: ["fenix 6"])).description
                == "No watch named “Edge” is connected (connected: “fenix 6”).")
    }

    @Test(arguments: [
        (UInt64(0), "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1.0 kB"), (3_216_000, "3.2 MB"),
        (999_960, "1.0 MB"), (29_500_000_000, "29.5 GB"), (UInt64.max, "18.4 EB"),
    ])
    func sizesAreSaidInDecimalUnits(bytes: UInt64, text: String) {
        #expect(Watch.sizeText(bytes) == text)
    }

    @Test func freeSpaceIsSaidOrSaidUnknown() {
        #expect(Self.watch("fenix 6", free: 3_216_000).freeSpaceText == "3.2 MB free")
        #expect(Self.watch("fenix 6").freeSpaceText == "free space unknown")
    }

    @Test func theMessageAfterSendingSaysToUnplugTheWatch() {
        let watch = Self.watch("Forerunner 265")
        #expect(
            watch.sentText(["Tabata"]) == "Sent “Tabata” to Forerunner 265. Unplug the watch to load the workout.")
        #expect(
            watch.sentText(["W1D1", "W1D2", "W1D3"])
                == "Sent 3 workouts to Forerunner 265. Unplug the watch to load the workouts.")
    }

    @Test func aFailedCopySaysWhichWatchWhichFileAndWhy() {
        let error = WatchError(
            .copy(
                watch: "localtest", file: "Tabata.fit", location: "localtest:///Internal Storage/GARMIN/NewFiles",
                reason: "Injected error"))
        #expect(
            error.description
                == "Could not copy “Tabata.fit” to localtest (localtest:///Internal Storage/GARMIN/NewFiles): "
                + "Injected error. Nothing of it was left on the watch.")
    }

    @Test func aFITWorkoutIsSentAsItIsWhateverItsStepsAndAnythingElseIsRefused() throws {
        let plan = try PlanParser.parse("2x(1m run, 1m walk)", origin: "<inline>", defaultName: "Intervals")
        let bytes = try FITWorkout.encode(plan, restKinds: ["walk"], created: 0).bytes
        #expect(try Watch.workoutName(inFIT: bytes) == "Intervals")
        var damaged = bytes
        damaged[damaged.count - 1] ^= 0xFF
        #expect(throws: FITWorkoutError.self) { try Watch.workoutName(inFIT: damaged) }
        #expect(throws: FITWorkoutError.self) { try Watch.workoutName(inFIT: Array("not FIT".utf8)) }
    }
}

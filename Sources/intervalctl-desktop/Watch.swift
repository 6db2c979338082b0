import ArgumentParser
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime
import IntervalWatch

/// The watches, through GIO (IntervalWatch).
extension InProcess {
    static func connectedWatchNames() -> [String] {
        WatchFinder.connected().map(\.name)
    }

    static func listWatches(_ command: WatchListCommand<Self>) throws {
        let watches = WatchFinder.connected()
        if command.json { Console.print(try stableJSON(watches.map(WatchEntry.init))) }
        guard !watches.isEmpty else {
            Console.error(WatchError(.noWatch).description + "\n")
            throw ExitCode.failure
        }
        guard !command.json else { return }
        let width = watches.map(\.name.count).max() ?? 0
        for watch in watches {
            Console.print("\(watch.name.padding(to: width))  \(watch.location)  \(watch.freeSpaceText)")
        }
    }

    /// A watch as `watch list --json` prints it.
    struct WatchEntry: Encodable {
        let name, location, uri: String
        /// Null when the watch does not say.
        @NullWhenAbsent var freeBytes: UInt64?

        init(_ watch: Watch) {
            (name, location, uri, freeBytes) = (watch.name, watch.location, watch.folder, watch.freeBytes)
        }
    }

    static func sendToWatch(_ command: WatchSendCommand<Self>) throws {
        let workouts = try command.workouts()
        let chosen: Watch
        do throws(WatchError) {
            chosen = try Watch.choose(command.watch, from: WatchFinder.connected())
        } catch {
            // "No watch is connected." is said as `intervalctl watch` says it.
            if error.code == .noWatch {
                Console.error(error.description + "\n")
            } else {
                printError(error.description)
            }
            throw ExitCode.failure
        }
        var sent: [String] = []
        for workout in workouts {
            do throws(WatchError) {
                let location = try WatchWriter.send(workout.bytes, as: workout.file, to: chosen)
                Console.print(tr("Sent “{name}” as {file}", ["name": workout.name, "file": location]))
                sent.append(workout.name)
            } catch {
                printError(error.description)
                throw ExitCode.failure
            }
        }
        Console.print(chosen.sentText(sent))
    }
}

extension WatchSendCommand {
    /// A workout to send: what it is called, its FIT bytes and the file it goes to.
    struct Workout {
        let name: String
        let bytes: [UInt8]
        let file: String
    }

    /// Every workout asked for, made before any is sent.
    func workouts() throws -> [Workout] {
        if let program { return try days(of: program) }
        let sources =
            if let expression { [try PlanSource.resolve(plan: nil, expression: expression)] } else {
                try plans.map { try PlanSource.resolve(plan: $0, expression: nil) }
            }
        return try sources.map { source in
            if FIT.hasSignature(source.bytes) { return try fitFile(source) }
            let plan: Plan
            do {
                plan = try source.parse()
            } catch {
                Console.error("\(error)\n")
                throw ExitStatus.invalidPlan
            }
            return Workout(
                name: plan.name, bytes: try FITExport.bytes(of: plan, format: .fit),
                file: FIT.fileName(for: plan.name, extension: "fit"))
        }
    }

    /// A FIT workout file, sent as it is under its own name once it is checked to be one.
    private func fitFile(_ source: PlanSource) throws -> Workout {
        do throws(FITWorkoutError) {
            let name = try Watch.workoutName(inFIT: source.bytes) ?? source.defaultName
            let file = source.origin.split(separator: "/").last.map(String.init) ?? source.origin
            return Workout(name: name, bytes: source.bytes, file: file)
        } catch {
            Console.error(tr("{file}: error: {message}", ["file": source.origin, "message": error.message]) + "\n")
            throw ExitStatus.invalidPlan
        }
    }

    /// The days of program `name` asked for: the next one, `--day` or every day of `--week`.
    private func days(of name: String) throws -> [Workout] {
        let ledger = ProgramLookup.ledger
        let program = try ProgramLookup.program(name, in: ledger)
        let days: [ProgramDay]
        if let week {
            days = program.days(ofWeek: week).map(\.id)
            guard !days.isEmpty else {
                printError(
                    tr(
                        "{program} has no week {week} (it has {weeks})",
                        ["program": program.name, "week": "\(week)", "weeks": "\(program.weekCount)"]))
                throw ExitCode.failure
            }
        } else {
            do throws(TimerCommandError) {
                days = [try ledger.dayToStart(program, named: name, day: day ?? "").reference.day]
            } catch {
                printError(error.message)
                throw ExitCode.failure
            }
        }
        return try days.compactMap { id in
            guard let day = program.day(id) else { return nil }
            return Workout(
                name: day.plan.name, bytes: try FITExport.bytes(of: day.plan, format: .fit),
                file: FIT.fileName(for: Program.fileStem(program: program.name, day: id), extension: "fit"))
        }
    }
}

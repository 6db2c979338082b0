import ArgumentParser
import FoundationEssentials
import IntervalCore
import IntervalCtlCommon
import IntervalRuntime

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List finished, stopped and interrupted workouts, with totals; export them for a training log.",
        discussion: """
            Reads $XDG_STATE_HOME/intervald/history.jsonl, one JSON object per workout, which the daemon appends \
            when a workout ends. DATE is YYYY-MM-DD (local midnight), today, yesterday, or a number of days or \
            weeks back such as 7d or 2w.
            """,
        subcommands: [Export.self]
    )

    @Flag(help: "Print a JSON object: the workouts (as recorded) and the totals.")
    var json = false

    @OptionGroup var since: HistorySince

    @Option(help: "Only the latest N workouts.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError(tr("--limit takes a number of workouts, 0 or more.")) }
    }

    func run() throws {
        let store = StateStore(directory: XDGPaths(environment: ProcessInfo.processInfo.environment).stateDirectory)
        let read = try Self.read(store)
        let records = selectHistory(read.records, since: since.start, limit: limit)
        let totals = HistoryTotals(records)
        if json {
            struct Listing: Encodable {
                var workouts: [HistoryRecord]
                var totals: HistoryTotals
            }
            Console.print(try stableJSON(Listing(workouts: records, totals: totals)))
        } else {
            print(records, totals: totals)
        }
        if read.unreadable > 0 {
            Console.error(
                trn(
                    "intervalctl: {count} line of {path} could not be read.",
                    "intervalctl: {count} lines of {path} could not be read.", read.unreadable,
                    ["path": store.historyPath]) + "\n")
        }
    }

    private func print(_ records: [HistoryRecord], totals: HistoryTotals) {
        guard !records.isEmpty else {
            Console.print(tr("No workouts recorded yet."))
            return
        }
        for record in records {
            let skipped = record.skippedText.map { " " + tr("({time} skipped)", ["time": $0]) } ?? ""
            let sensors = [record.heartRateText, record.machineText].compactMap { $0 }.map { " · " + $0 }.joined()
            Console.print(
                "\(record.startText)  \(record.doneText.padding(to: 15)) \(record.resultText.padding(to: 30)) "
                    + record.displayName.terminalEscaped + skipped + sensors)
        }
        let kinds = HistoryTotals.text(ofTimePerKind: totals.timePerKind).terminalEscaped
        Console.print("")
        Console.print(
            trn("{count} workout", "{count} workouts", totals.count) + ", \(Self.clock(totals.doneDuration))"
                + (kinds.isEmpty ? "" : ": " + kinds))
    }

    /// A duration to the second, as a history reads.
    private static func clock(_ microseconds: Int64) -> String {
        TimeText.clockToTheSecond(microseconds: microseconds)
    }

    /// The instant `text` names, in µs since the Unix epoch.
    static func instant(of text: String, now: Int64) -> Int64? {
        let day: Int64 = 86_400 * 1_000_000
        let today = WallClock.localMidnight(ofDate: String(WallClock.iso8601(now).prefix(10)))
        switch text {
        case "today": return today
        case "yesterday": return today.map { $0 - day }
        default: break
        }
        if let unit = text.last, unit == "d" || unit == "w", let count = Int64(text.dropLast()), count >= 0,
            count < 100_000
        {
            return now - count * (unit == "w" ? 7 : 1) * day
        }
        return WallClock.localMidnight(ofDate: text)
    }
}

extension HistoryCommand {
    /// The history file's records and how many of its lines could not be read; a file that cannot be read is said and
    /// exits 1.
    static func read(_ store: StateStore) throws -> (records: [HistoryRecord], unreadable: Int) {
        do {
            return try store.history()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the workouts for a training log: FIT activities (one file each) or one CSV file.",
            discussion: """
                FIT (docs/fit.md): one activity file per workout in the folder -o names (made if missing), named by \
                its start and its plan, its segments as laps; Garmin Connect, Strava, Runalyze and intervals.icu \
                take them as uploads. CSV: one row per workout, the fields of the history as columns \
                (docs/reference.md §5), numbers and times in a form no locale changes; '-o -' writes to standard \
                output.
                """
        )

        @Option(help: "fit (activities) or csv.")
        var format: HistoryFormat

        @OptionGroup var since: HistorySince

        @Option(name: .shortAndLong, help: "The folder (fit) or file (csv) to write.")
        var output: String

        func run() throws {
            let paths = XDGPaths(environment: ProcessInfo.processInfo.environment)
            let read = try HistoryCommand.read(StateStore(directory: paths.stateDirectory))
            let records = selectHistory(read.records, since: since.start, limit: nil)
            switch format {
            case .csv:
                try FITExport.write(Array(HistoryExport.csv(records).utf8), to: output)
            case .fit:
                _ = try failingOnFileError { () throws(FileError) in
                    try ActivityFiles.write(records, into: output, paths: paths)
                }
            }
            if output != "-" {
                Console.error(
                    trn(
                        "Wrote {count} workout to {path}", "Wrote {count} workouts to {path}", records.count,
                        ["path": output])
                        + "\n")
            }
        }
    }
}

/// `--since DATE` of `history` and `history export`.
struct HistorySince: ParsableArguments {
    @Option(help: ArgumentHelp("Only workouts started on or after DATE.", valueName: "DATE"))
    var since: String?

    /// Refuses a DATE that is not one (exit 64).
    func validate() throws {
        if let since, start == nil {
            throw ValidationError(
                tr("--since '{value}': expected YYYY-MM-DD, today, yesterday, or 7d / 2w.", ["value": since]))
        }
    }

    /// The instant DATE names, in µs since the Unix epoch; nil without --since.
    var start: Int64? { since.flatMap { HistoryCommand.instant(of: $0, now: WallClock.microseconds()) } }
}

/// What `history export` writes.
enum HistoryFormat: String, ExpressibleByArgument, CaseIterable {
    case fit, csv
}

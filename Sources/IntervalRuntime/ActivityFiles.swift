import IntervalCore

/// The history's workouts as FIT activity files in a folder (docs/fit.md), for `intervalctl history export` and the
/// History page's Export: each with the laps of the plan it ran, when that can still be read.
public enum ActivityFiles {
    /// Writes one activity file per record into `folder` (made if missing), each whole or not at all; their paths.
    public static func write(
        _ records: [HistoryRecord], into folder: String, paths: XDGPaths
    ) throws(FileError) -> [String] {
        try FileBytes.makeDirectories(folder)
        var plans = RecordedPlans(ledger: ProgramLedger(paths: paths))
        var written: [String] = []
        for record in records {
            let path = "\(folder)/\(HistoryExport.fileName(of: record))"
            try FileBytes.replace(path, with: HistoryExport.fitActivity(record, plan: plans.plan(of: record)))
            written.append(path)
        }
        return written
    }

    /// The plans the workouts ran, each program and plan file read once however many workouts the history holds of it.
    private struct RecordedPlans {
        let ledger: ProgramLedger
        /// The programs read so far by name, and the plan files by path; nil for one that cannot be read.
        var programs: [String: Program?] = [:]
        var files: [String: Plan?] = [:]

        /// The plan a workout ran, when it can still be read: its text (a one-line plan), its program's day, or its
        /// file.
        mutating func plan(of record: HistoryRecord) -> Plan? {
            if let text = record.text {
                return try? PlanParser.parse(text, origin: "<history>", defaultName: record.plan)
            }
            if let name = record.program, let day = record.day.flatMap(ProgramDay.init) {
                if programs[name] == nil { programs[name] = .some(try? ledger.program(named: name)) }
                if let plan = programs[name]??.day(day)?.plan { return plan }
            }
            guard !record.origin.isEmpty else { return nil }
            if let known = files[record.origin] { return known }
            let plan = (try? FileBytes.read(record.origin, limit: WorkoutSession.maximumPlanTextBytes)).flatMap {
                try? PlanParser.parse(bytes: $0, origin: record.origin, defaultName: record.plan)
            }
            files[record.origin] = .some(plan)
            return plan
        }
    }
}

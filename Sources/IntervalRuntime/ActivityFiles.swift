import IntervalCore

/// The history's workouts as FIT activity files in a folder (docs/fit.md), for `intervalctl history export` and the
/// History page's Export: each with the laps of the plan it ran, when that can still be read.
public enum ActivityFiles {
    /// Writes one activity file per record into `folder` (made if missing), each whole or not at all; their paths.
    public static func write(
        _ records: [HistoryRecord], into folder: String, paths: XDGPaths
    ) throws(FileError) -> [String] {
        try FileBytes.makeDirectories(folder)
        var written: [String] = []
        for record in records {
            let path = "\(folder)/\(HistoryExport.fileName(of: record))"
            try FileBytes.replace(path, with: HistoryExport.fitActivity(record, plan: plan(of: record, paths: paths)))
            written.append(path)
        }
        return written
    }

    /// The plan a workout ran, when it can still be read: its text (a one-line plan), its program's day, or its file.
    public static func plan(of record: HistoryRecord, paths: XDGPaths) -> Plan? {
        if let text = record.text {
            return try? PlanParser.parse(text, origin: "<history>", defaultName: record.plan)
        }
        if let program = record.program, let day = record.day.flatMap(ProgramDay.init),
            let plan = try? ProgramLedger(paths: paths).program(named: program).day(day)?.plan
        {
            return plan
        }
        guard !record.origin.isEmpty,
            let bytes = try? FileBytes.read(record.origin, limit: WorkoutSession.maximumPlanTextBytes)
        else { return nil }
        return try? PlanParser.parse(bytes: bytes, origin: record.origin, defaultName: record.plan)
    }
}

import Glibc
import IntervalCore
import IntervalRuntime

/// Installs, reads and removes programs' reminders (``ProgramReminder``) as unit files in
/// `$XDG_CONFIG_HOME/systemd/user`, and tells the session's systemd through ``SystemdUserManager``: a reload, then
/// the timer enabled and started. Nothing of ours runs between reminders: systemd's timer starts the service.
public struct ProgramReminders: Sendable {
    /// `$XDG_CONFIG_HOME/systemd/user`, where `systemctl --user edit` writes too.
    public let unitDirectory: String

    public init(paths: XDGPaths) {
        unitDirectory = paths.configHome + "/systemd/user"
    }

    /// Why a reminder could not be set or removed, as the person reads it.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        /// systemd could not read the calendar expression.
        public var isRefusedCalendar = false
        /// The session has no systemd user manager to reach.
        public var isUnreachable = false

        public init(description: String, isRefusedCalendar: Bool = false, isUnreachable: Bool = false) {
            (self.description, self.isRefusedCalendar, self.isUnreachable) = (
                description, isRefusedCalendar, isUnreachable
            )
        }
    }

    private static let fileLimit = 64 * 1024

    /// The calendar expression of `program`'s reminder, nil when it has none.
    public func calendar(of program: String) -> String? {
        guard
            let bytes = try? FileBytes.read(
                path(ProgramReminder.unitStem(program: program) + ".timer"), limit: Self.fileLimit)
        else { return nil }
        return ProgramReminder.calendar(inTimerFile: String(decoding: bytes, as: UTF8.self))
    }

    /// Writes the reminder's units and has systemd run its timer; the timer's next elapse (µs since the epoch), if
    /// systemd gives one. Whatever fails (systemd refuses the calendar expression, or there is no systemd to ask), the
    /// reminder that was there before, if any, is put back, and the failure says why in words: nothing is half set.
    public func install(_ reminder: ProgramReminder, intervalctl: String) throws(Failure) -> UInt64? {
        let files = [
            (path(reminder.timerName), reminder.timerFile()),
            (path(reminder.serviceName), reminder.serviceFile(intervalctl: intervalctl)),
        ]
        let previous = files.map { (try? FileBytes.read($0.0, limit: Self.fileLimit)) }
        let manager = try connect()
        // Back to what was there: the earlier reminder's files, or none.
        func putBack() {
            for ((file, _), bytes) in zip(files, previous) {
                if let bytes { _ = try? FileBytes.replace(file, with: bytes) } else { _ = try? FileBytes.remove(file) }
            }
            try? manager.reload()
        }
        do throws(Failure) {
            try write { () throws(FileError) in
                try FileBytes.makeDirectories(unitDirectory)
                for (file, text) in files { try FileBytes.replace(file, with: Array(text.utf8)) }
            }
            return try enable(reminder, on: manager)
        } catch {
            putBack()
            throw error
        }
    }

    /// Has systemd load and run the reminder's timer, whose files are written; its next elapse.
    private func enable(_ reminder: ProgramReminder, on manager: SystemdUserManager) throws(Failure) -> UInt64? {
        let refusal = try talk { () throws(BusError) -> String? in
            try manager.reload()
            let unit = try manager.load(reminder.timerName)
            let state = try manager.property(
                "LoadState", of: SystemdUserManager.unitInterface, at: unit, signature: "s"
            ) { reply throws(BusError) in try reply.readString() }
            guard state == "loaded" else {
                return try manager.property(
                    "LoadError", of: SystemdUserManager.unitInterface, at: unit, signature: "(ss)"
                ) { reply throws(BusError) in
                    _ = try reply.enterContainer("r", contents: "ss")
                    _ = try reply.readString()
                    return try reply.readString()
                }
            }
            try manager.enable([reminder.timerName])
            try manager.restart(reminder.timerName)
            return nil
        }
        if let refusal {
            throw Failure(
                description: tr(
                    "systemd refused the calendar expression '{calendar}': {reason} ('systemd-analyze calendar' shows how it reads one)",
                    ["calendar": reminder.calendar, "reason": refusal]),
                isRefusedCalendar: true)
        }
        return try talk { () throws(BusError) -> UInt64? in
            let unit = try manager.load(reminder.timerName)
            // RestartUnit answers once its job is queued; the timer has its next elapse once the job has run, which
            // takes milliseconds. Up to 3 s, then what systemd says is what is told.
            for _ in 0..<300 {
                let state = try manager.property(
                    "ActiveState", of: SystemdUserManager.unitInterface, at: unit, signature: "s"
                ) { reply throws(BusError) in try reply.readString() }
                if state == "active" { break }
                usleep(10_000)
            }
            let next = try manager.property(
                "NextElapseUSecRealtime", of: SystemdUserManager.timerInterface, at: unit, signature: "t"
            ) { reply throws(BusError) in try reply.readUInt64() }
            return next == 0 || next == UInt64.max ? nil : next
        }
    }

    /// Stops and removes `program`'s reminder, and any Later still waiting; whether it had one.
    @discardableResult
    public func remove(program: String) throws(Failure) -> Bool {
        let stem = ProgramReminder.unitStem(program: program)
        let files = [path(stem + ".timer"), path(stem + ".service")]
        let had = files.contains { access($0, F_OK) == 0 }
        let manager = try connect()
        do throws(Failure) {
            try talk { () throws(BusError) in
                for later in try manager.units(matching: ProgramReminder.laterPattern(program: program)) {
                    try manager.stop(later)
                }
                guard had else { return }
                try manager.stop(stem + ".timer")
                try manager.disable([stem + ".timer"])
            }
        } catch  where error.isUnreachable {
            // No systemd runs the timer, so there is nothing to stop: the files are all there is to remove.
        }
        guard had else { return false }
        try write { () throws(FileError) in
            for file in files where access(file, F_OK) == 0 { try FileBytes.remove(file) }
        }
        try? manager.reload()
        return true
    }

    /// Later: the reminder again in `after` µs, through a transient timer (gone once it has elapsed).
    public func remindLater(program: String, intervalctl: String, wallSeconds: Int64, after: UInt64) throws(Failure) {
        let manager = try connect()
        try talk { () throws(BusError) in
            try manager.startTransientTimer(
                ProgramReminder.laterTimerName(program: program, wallSeconds: wallSeconds),
                description: "Interval Timer: reminder of the training program \(program), later",
                after: after, command: ProgramReminder.command(intervalctl: intervalctl, program: program))
        }
    }

    /// "Reminder: Mon,Wed,Fri 18:00 (next: Mon 2026-11-30 18:00)": what setting one says.
    public static func setText(_ calendar: String, next: UInt64?) -> String {
        let when = next.map { " " + tr("(next: {time})", ["time": localTime(microseconds: $0)]) } ?? ""
        return tr("Reminder: {calendar}", ["calendar": calendar]) + when
    }

    /// "Mon 2026-11-30 18:00", in the local time zone and the day names of the locale.
    static func localTime(microseconds: UInt64) -> String {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%a %Y-%m-%d %H:%M", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Helpers

    private func path(_ unit: String) -> String { unitDirectory + "/" + unit }

    private func connect() throws(Failure) -> SystemdUserManager {
        do {
            return try SystemdUserManager()
        } catch {
            throw Failure(
                description: tr(
                    "cannot reach the session's systemd ({error}); reminders need a systemd user session",
                    ["error": error.description]),
                isUnreachable: true)
        }
    }

    /// Runs `body`'s calls to systemd; a failure is said in words, and a session without a systemd user manager (the
    /// bus has no one to start for it, or what it starts exits at once) is told as that, not as the bus's error.
    private func talk<Value>(_ body: () throws(BusError) -> Value) throws(Failure) -> Value {
        do {
            return try body()
        } catch {
            if let name = error.name,
                name == BusErrorName.serviceUnknown || name == BusErrorName.nameHasNoOwner
                    || name.hasPrefix(BusErrorName.spawnPrefix)
            {
                throw Failure(
                    description: tr(
                        "this session has no systemd user manager, which reminders need; nothing was changed"),
                    isUnreachable: true)
            }
            throw Failure(
                description: tr(
                    "the session's systemd did not do it: {error}",
                    ["error": error.message ?? error.description]))
        }
    }

    private func write(_ body: () throws(FileError) -> Void) throws(Failure) {
        do {
            try body()
        } catch {
            throw Failure(description: error.description)
        }
    }
}

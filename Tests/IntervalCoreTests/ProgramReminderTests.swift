import IntervalCore
import Testing

/// A reminder's unit files (docs/programs.md): names systemd accepts for any program name, an `ExecStart=` that
/// survives spaces, quotes and `%`, and calendar text that cannot write a line of its own.
struct ProgramReminderTests {
    @Test(arguments: [
        ("c25k", "intervald-remind-c25k"),
        ("my_plan-2", "intervald-remind-my_plan-2"),
        ("5k to 10k", "intervald-remind-5k\\x20to\\x2010k"),
        ("läufe", "intervald-remind-l\\xc3\\xa4ufe"),
        (".hidden", "intervald-remind-\\x2ehidden"),
    ])
    func unitNamesEscapeWhatSystemdWouldRefuse(program: String, stem: String) {
        #expect(ProgramReminder.unitStem(program: program) == stem)
    }

    @Test func theUnitFilesSayWhenAndWhatRuns() throws {
        let reminder = try ProgramReminder(program: "c25k", calendar: "  Mon,Wed,Fri 18:00 ")
        #expect(reminder.calendar == "Mon,Wed,Fri 18:00")
        #expect(reminder.timerName == "intervald-remind-c25k.timer")
        let timer = reminder.timerFile()
        #expect(timer.contains("\n[Timer]\nOnCalendar=Mon,Wed,Fri 18:00\nPersistent=true\n"))
        #expect(timer.contains("\n[Install]\nWantedBy=timers.target\n"))
        #expect(ProgramReminder.calendar(inTimerFile: timer) == "Mon,Wed,Fri 18:00")
        let service = reminder.serviceFile(intervalctl: "/home/a \"b\"/100%/intervalctl")
        #expect(service.contains("\nType=oneshot\n"))
        #expect(
            service.contains(
                #"ExecStart="/home/a \"b\"/100%%/intervalctl" "program" "remind" "--now" "c25k""# + "\n"))
        #expect(
            ProgramReminder.laterTimerName(program: "c25k", wallSeconds: 1_800_000_000)
                == "intervald-remind-c25k.later-1800000000.timer")
    }

    @Test(arguments: [
        ("", 1), ("   ", 1), ("Mon 18:00\nExecStartPre=/bin/false", 10), ("Mon 18:00 %h", 11), ("Mon\\x20", 4),
        ("Mon\t18:00", 4),
    ])
    func whatCannotGoIntoALineIsRefusedWhereItIs(calendar: String, column: Int) {
        #expect(throws: ProgramReminder.Refusal.self) { try ProgramReminder(program: "c25k", calendar: calendar) }
        do {
            _ = try ProgramReminder(program: "c25k", calendar: calendar)
        } catch {
            #expect(error.column == column, "\(error)")
        }
    }

    @Test func execStartEscapesWhatSystemdWouldReadOtherwise() {
        let reminder = try? ProgramReminder(program: "c25k", calendar: "Mon 18:00")
        let service = reminder?.serviceFile(intervalctl: "/opt/a\tb\u{1B}c\\d/intervalctl") ?? ""
        #expect(service.contains(#"ExecStart="/opt/a\tb\u001bc\\d/intervalctl" "program""#), "\(service)")
        let dollar = try? ProgramReminder(program: "$HOME", calendar: "Mon 18:00")
        #expect(
            dollar?.serviceFile(intervalctl: "/usr/bin/intervalctl").contains(#" "--now" "$$HOME""# + "\n") == true)
    }

    @Test func aProgramNameWithALineBreakHasNoReminder() {
        #expect(throws: ProgramReminder.Refusal.self) {
            try ProgramReminder(program: "a\nExecStart=/bin/false", calendar: "Mon 18:00")
        }
    }
}

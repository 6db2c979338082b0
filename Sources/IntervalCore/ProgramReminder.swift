/// A training program's reminder (docs/programs.md): a systemd user timer `intervald-remind-NAME.timer` whose
/// calendar expression systemd reads (`OnCalendar=`, `Persistent=`), and the service it starts, which runs
/// `intervalctl program remind --now NAME`: the daemon then shows the next day with Start and Later. Later is a
/// transient timer an hour away, `intervald-remind-NAME.later-SECONDS.timer`. The unit files' text only; writing them
/// and telling systemd is IntervalBus's `ProgramReminders`.
public struct ProgramReminder: Sendable, Equatable {
    /// The program's name, as commands take it: `c25k`.
    public var program: String
    /// When, as systemd's calendar expression: `Mon,Wed,Fri 18:00`.
    public var calendar: String

    /// A calendar expression refused before systemd sees it: empty, or with a character that a unit file's line
    /// cannot carry as it is (a control character, `%` or `\`). `column` counts characters from 1.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public var column: Int
        public var description: String
    }

    /// Refuses what cannot go into a unit file's line; whether systemd understands it is systemd's to say.
    public init(program: String, calendar: String) throws(Refusal) {
        let trimmed = String(calendar.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !trimmed.isEmpty else {
            throw Refusal(column: 1, description: tr("expected a calendar expression, as in 'Mon,Wed,Fri 18:00'"))
        }
        for (offset, scalar) in trimmed.unicodeScalars.enumerated()
        where scalar.properties.generalCategory == .control || scalar == "%" || scalar == "\\" {
            throw Refusal(
                column: offset + 1,
                description: tr(
                    "column {column}: a calendar expression cannot hold {character}",
                    [
                        "column": String(offset + 1),
                        "character": "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4),
                    ]))
        }
        // A program's name comes from its file's; one with a line break would write lines of its own.
        guard !program.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Refusal(column: 0, description: tr("a program whose name holds a control character has no reminder"))
        }
        self.program = program
        self.calendar = trimmed
    }

    static let prefix = "intervald-remind-"

    /// `intervald-remind-c25k`: the program's name with what a unit name cannot hold escaped as systemd-escape does.
    public static func unitStem(program: String) -> String {
        var stem = prefix
        for byte in program.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80,
                character.isLetter || character.isNumber || "_-:".contains(character)
                    || (character == "." && !stem.hasSuffix("-"))
            {
                stem.append(character)
            } else {
                stem += "\\x" + String(byte, radix: 16).leftPadded(to: 2)
            }
        }
        return stem
    }

    public var timerName: String { Self.unitStem(program: program) + ".timer" }
    public var serviceName: String { Self.unitStem(program: program) + ".service" }

    /// The glob of the transient timers that Later started for `program`.
    public static func laterPattern(program: String) -> String { unitStem(program: program) + ".later-*.timer" }

    /// Later's timer (and its service, the same name ending `.service`), unique per press.
    public static func laterTimerName(program: String, wallSeconds: Int64) -> String {
        unitStem(program: program) + ".later-\(wallSeconds).timer"
    }

    /// The command line the reminder's service runs.
    public static func command(intervalctl: String, program: String) -> [String] {
        [intervalctl, "program", "remind", "--now", program]
    }

    public func timerFile() -> String {
        """
        # Written by intervalctl program remind \(program) --on (intervald). Change it so, end it with --off.
        [Unit]
        Description=Interval Timer: reminder of the training program \(program)

        [Timer]
        OnCalendar=\(calendar)
        Persistent=true

        [Install]
        WantedBy=timers.target

        """
    }

    public func serviceFile(intervalctl: String) -> String {
        let command = Self.command(intervalctl: intervalctl, program: program).map(Self.quoted).joined(separator: " ")
        return """
            # Written by intervalctl program remind (intervald): shows the next day of \(program) with Start and Later.
            [Unit]
            Description=Interval Timer: reminder of the training program \(program)

            [Service]
            Type=oneshot
            ExecStart=\(command)

            """
    }

    /// The calendar expression of a timer file this type wrote; nil for any other text.
    public static func calendar(inTimerFile text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("OnCalendar=") {
            return String(line.dropFirst("OnCalendar=".count))
        }
        return nil
    }

    /// One word of `ExecStart=` in systemd's quoting: a JSON string literal (systemd unescapes the same C escapes,
    /// `\uXXXX` too) with `%` and `$` doubled, as specifiers and environment variables begin with them.
    static func quoted(_ word: String) -> String {
        ["%", "$"].reduce(word.jsonQuoted) { text, sign in
            text.split(separator: sign, omittingEmptySubsequences: false).joined(separator: sign + sign)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}

import Testing

@testable import IntervalCore

@Suite struct PlanDiagnosticTests {
    /// Each invalid input with its exact diagnostic: line, column and message.
    @Test(
        arguments: [
            ("30sx run", "1:3: error: unknown duration unit 'sx' (expected ms, s, m or h)"),
            ("30 run", "1:3: error: missing duration unit after '30' (expected ms, s, m or h)"),
            ("30s1m run", "1:5: error: duration units must go from largest to smallest, as in 1h5m or 1m30s"),
            ("0s run", "1:1: error: duration must be greater than zero"),
            ("0.5ms run", "1:1: error: a step must last at least 1 ms"),
            ("-5s run", "1:1: error: negative numbers are not allowed (durations and counts must be positive)"),
            ("1:5 run", "1:3: error: expected two digits from 00 to 59 after ':'"),
            ("1:60 run", "1:3: error: expected two digits from 00 to 59 after ':'"),
            ("1:00:00:00 run", "1:1: error: a clock duration has at most three parts (h:mm:ss)"),
            ("1:30s run", "1:5: error: a m:ss or h:mm:ss duration takes no unit"),
            ("30s", "1:4: error: expected a kind after the duration, such as run, walk or rest"),
            ("30srun", "1:3: error: unknown duration unit 'srun' (expected ms, s, m or h)"),
            ("30s Run", "1:5: error: invalid kind 'Run' (a kind is a lowercase word such as run, walk or rest)"),
            ("30s 9run", "1:5: error: expected a kind after the duration, such as run, walk or rest"),
            ("30s run walk", "1:9: error: expected ',', ';' or a new line before 'walk'"),
            ("30s run \"Easy", "1:9: error: unterminated label (expected a closing '\"' on the same line)"),
            ("30s run \"\"", "1:9: error: empty label"),
            (
                "30s run @",
                "1:10: error: expected a pace after '@', such as 5:30/km, 9:00/mi, 10 km/h, 6 mph or 3.2 m/s"
            ),
            (
                "30s run @ 5",
                "1:12: error: missing unit after '5' (expected a pace unit such as /km, W for a power or bpm for a range "
                    + "of heart rates)"
            ),
            ("30s run @ 5.5", "1:14: error: missing pace unit (expected /km, /mi, km/h, mph or m/s)"),
            ("30s run @ 5 kmh", "1:13: error: unknown pace unit 'kmh' (expected /km, /mi, km/h, mph or m/s)"),
            ("30s run @ 5:30 mph", "1:16: error: a pace written as m:ss needs /km or /mi, not 'mph'"),
            ("30s run @ 0 m/s", "1:11: error: pace must be greater than zero"),
            (
                "run 30s",
                "1:1: error: unknown directive 'run' (expected name or countdown; a step starts with its duration, as in '30s run')"
            ),
            ("\"Easy\"", "1:1: error: a label must follow a duration and a kind, as in '30s run \"Easy\"'"),
            ("@ 5:30/km", "1:1: error: a pace must follow a step, as in '4m run @ 5:30/km'"),
            ("(30s run)", "1:1: error: a group needs a repeat count or 'for' before it, as in '3x(30s run, 30s walk)'"),
            ("3x 30s run", "1:4: error: expected '(' or '{' after '3x'"),
            ("3x(30s run}", "1:11: error: expected ')' to close the group opened at 1:3, found '}'"),
            ("3x(30s run", "1:11: error: expected ')' to close the group opened at 1:3"),
            ("30s run)", "1:8: error: unexpected ')' (no group is open here)"),
            ("3x()", "1:3: error: empty group (expected at least one step inside)"),
            ("0x(30s run)", "1:1: error: repeat count must be at least 1"),
            ("100001x(30s run)", "1:1: error: repeat count 100001 is larger than the limit of 100000"),
            ("99999999999x(30s run)", "1:1: error: repeat count 99999999999 is larger than the limit of 100000"),
            ("", "1:1: error: the plan has no steps (expected a step such as '30s run')"),
            ("# only a comment\n", "2:1: error: the plan has no steps (expected a step such as '30s run')"),
            (
                "for (30s run)",
                "1:5: error: expected a duration or a distance after 'for', as in 'for 45m (...)' or 'for 5km (...)'"
            ),
            ("for 5km(30s run)", "1:5: error: 'for' with a distance needs a pace ('@ 5:30/km') on every step inside"),
            ("for 0km(30s run @ 5:00/km)", "1:5: error: distance must be greater than zero"),
            ("for 45m 30s run", "1:9: error: expected '(' or '{' after 'for 45m'"),
            ("30s run\nname \"x\"", "2:1: error: 'name' must come before the first step"),
            ("name \"a\"\nname \"b\"\n30s run", "2:1: error: 'name' is given twice (first at 1:1)"),
            ("3x(name \"a\", 30s run)", "1:4: error: 'name' is only allowed at the top of a plan, not inside a group"),
            ("name x\n30s run", "1:6: error: expected a quoted name after 'name', as in name \"Tabata\""),
            ("countdown\n30s run", "1:10: error: expected a duration after 'countdown', as in 'countdown 3s'"),
            (
                "30s run, \u{1}",
                "1:10: error: unexpected control character 0x01 (expected a step such as '30s run', a repeat such as '3x(...)' or a directive)"
            ),
            (
                "30s run\n  ~",
                "2:3: error: unexpected '~' (expected a step such as '30s run', a repeat such as '3x(...)' or a directive)"
            ),
            ("30s løb", "1:6: error: expected ',', ';' or a new line before character 'ø' (U+00F8)"),
            ("countdown 0.5ms\n30s run", "1:11: error: countdown must be at least 1 ms"),
            ("30s run\r\n30sx walk\r\n", "2:3: error: unknown duration unit 'sx' (expected ms, s, m or h)"),
            ("8d run", "1:2: error: unknown duration unit 'd' (expected ms, s, m or h)"),
            ("169h run", "1:1: error: the plan lasts longer than the limit of 7 days"),
            ("100000x(100000x(1s run))", "1:1: error: the plan lasts longer than the limit of 7 days"),
            ("for 169h(1m run)", "1:5: error: the plan lasts longer than the limit of 7 days"),
            ("84h run\n84h run\n1ms walk", "3:1: error: the plan lasts longer than the limit of 7 days"),
        ] as [(String, String)])
    func located(text: String, expected: String) throws {
        let found = try #require(diagnostic(text))
        #expect("\(found.line):\(found.column): error: \(found.message)" == expected)
    }

    @Test func renderedWithOriginLineAndCaret() throws {
        let text = "name \"Galloway\"\n5m walk\n4x { 30sx run; 30s walk }\n"
        let found = try #require(diagnostic(text, origin: "galloway.plan"))
        #expect(
            found.description == """
                galloway.plan:3:8: error: unknown duration unit 'sx' (expected ms, s, m or h)
                4x { 30sx run; 30s walk }
                       ^
                """)
    }

    @Test func caretKeepsTabsAndCountsCharactersNotBytes() throws {
        let found = try #require(diagnostic("30s run \"Løb\"\n\t30sx walk"))
        #expect(found.line == 2)
        #expect(found.column == 4)
        #expect(found.description.hasSuffix("\t30sx walk\n\t  ^"))
        let wide = try #require(diagnostic("30s run \"Løb🏃\" walk"))
        #expect(wide.column == 16)
    }

    @Test func longLinesAreShownAsAWindowAroundTheColumn() throws {
        let text = String(repeating: "30s run, ", count: 10_000) + "30s ?"
        let found = try #require(diagnostic(text))
        #expect(found.column == 90_005)
        #expect(found.sourceLine.count <= PlanDiagnostic.maximumShownLineWidth + 2)
        #expect(found.description.hasSuffix("30s ?\n" + String(repeating: " ", count: found.caretColumn - 1) + "^"))
    }

    @Test func binaryInputIsReportedNotCrashed() throws {
        let bytes: [UInt8] = [0xFF, 0xFE, 0x00, 0x41]
        #expect(throws: PlanDiagnostic.self) {
            try PlanParser.parse(bytes: bytes, origin: "blob", defaultName: "x")
        }
        do {
            _ = try PlanParser.parse(bytes: bytes, origin: "blob", defaultName: "x")
        } catch {
            #expect(error.headline.hasPrefix("blob:1:1: error: unexpected byte 0xFF"))
        }
    }
}

@Suite struct PlanDiagnosticSourceLineTests {
    @Test func carriageReturnsAreNotShown() throws {
        let found = try #require(diagnostic("30s run\r\n30sx walk\r\n"))
        #expect(found.sourceLine == "30sx walk")
    }
}

/// The window says what is wrong in words and marks the place in the field itself (docs/window.md).
@Suite struct PlanDiagnosticInWordsTests {
    @Test func theSentenceIsTheMessageCapitalisedWithNoLocation() throws {
        let found = try #require(diagnostic("8x(30s run, 30sx walk)"))
        #expect(found.sentence == "Unknown duration unit 'sx' (expected ms, s, m or h).")
    }

    @Test func theMarkedBytesAreTheCharacterPointedAtOrTheLastOne() throws {
        let text = "8x(30s run, 30sx walk)"
        let found = try #require(diagnostic(text))
        let marked = found.markedBytes(in: text)
        #expect(Array(Array(text.utf8)[marked]) == Array("s".utf8))
        #expect(marked == 14..<15)
        // Past the end (something missing there): the last character.
        let open = "2x(1m run"
        let missing = try #require(diagnostic(open))
        #expect(missing.markedBytes(in: open) == 8..<9)
        // A multi-byte character before the place counts in bytes.
        let accented = "30s run \"Café\", 30sx walk"
        let after = try #require(diagnostic(accented))
        #expect(String(decoding: Array(accented.utf8)[after.markedBytes(in: accented)], as: UTF8.self) == "s")
    }
}

import Testing

@testable import IntervalCore

@Suite struct StatusTextTests {
    /// Segment 23 of 56 of a 40-minute plan, 11.2 s left in it, 14:48.3 elapsed.
    static let running = TimerStatus(
        state: .running, planName: "Galloway run/walk 30:30", planDuration: 2_400_000_000, segmentIndex: 22,
        segmentCount: 56, segmentKind: "run", segmentLabel: "Run", segmentDuration: 30_000_000, nextLabel: "Walk",
        elapsed: 888_300_000, segmentRemaining: 11_200_000, segmentElapsed: 18_800_000, remaining: 1_511_700_000
    )

    /// In a step the person ends, 2:37.4 into it: no time left, the step and the workout count up, the plan's timed
    /// steps wait.
    static let holding = TimerStatus(
        state: .running, planName: "Track", planDuration: 600_000_000, segmentIndex: 0, segmentCount: 14,
        segmentKind: "warmup", segmentLabel: "Warm up", segmentDuration: 0, nextLabel: "Run", elapsed: 157_400_000,
        segmentRemaining: 0, open: true, segmentElapsed: 157_400_000, remaining: 600_000_000, planOpenSteps: 2
    )

    @Test func textLine() {
        #expect(
            StatusText.line(Self.running)
                == "running · Galloway run/walk 30:30 · Run 0:12 left (23/56) · next Walk · 14:48/40:00")
        var paused = Self.running
        paused.state = .paused
        #expect(StatusText.line(paused).hasPrefix("paused · Galloway"))
        #expect(StatusText.line(.idle) == "idle")
    }

    @Test func lastSegmentHasNoNext() {
        var last = Self.running
        last.segmentIndex = 55
        last.nextLabel = ""
        #expect(StatusText.line(last) == "running · Galloway run/walk 30:30 · Run 0:12 left (56/56) · 14:48/40:00")
        #expect(StatusText.tooltip(last).contains("\nLast one\n"))
    }

    @Test func remainingRoundsUpElapsedRoundsDown() {
        var status = Self.running
        status.segmentRemaining = 1
        status.elapsed = 59_999_999
        #expect(StatusText.remaining(status) == "0:01")
        #expect(StatusText.elapsed(status) == "0:59")
        status.segmentRemaining = 12_000_000
        #expect(StatusText.remaining(status) == "0:12")
        status.segmentRemaining = 0
        #expect(StatusText.remaining(status) == "0:00")
        status.elapsed = 3_725_000_000
        #expect(StatusText.elapsed(status) == "1:02:05")
    }

    @Test func progress() {
        #expect(StatusText.percent(Self.running) == 37)
        #expect(abs(StatusText.progress(Self.running) - 0.370125) < 1e-9)
        // The share of the plan's time done, from what is left of it: the steps the person ended add to the
        // workout's time, not to the plan's.
        var over = Self.running
        over.elapsed = over.planDuration * 2
        #expect(abs(StatusText.progress(over) - 0.370125) < 1e-9)
        over.remaining = 0
        #expect(StatusText.progress(over) == 1)
        var empty = Self.running
        empty.planDuration = 0
        #expect(StatusText.progress(empty) == 0)
        #expect(StatusText.percent(.idle) == 0)
    }

    @Test func nextSecondWhileRunningOnly() {
        #expect(StatusText.microsecondsUntilNextSecond(Self.running) == 200_000)
        var whole = Self.running
        whole.segmentRemaining = 12_000_000
        #expect(StatusText.microsecondsUntilNextSecond(whole) == 1_000_000)
        var paused = Self.running
        paused.state = .paused
        #expect(StatusText.microsecondsUntilNextSecond(paused) == nil)
        #expect(StatusText.microsecondsUntilNextSecond(.idle) == nil)
    }

    @Test func shownStatusesCompareAsPrinted() {
        var later = Self.running
        later.segmentRemaining -= 150_000
        later.elapsed += 150_000
        later.remaining -= 150_000
        #expect(StatusText.shown(later) == StatusText.shown(Self.running))
        later.segmentRemaining -= 100_000
        later.elapsed += 100_000
        later.remaining -= 100_000
        #expect(StatusText.shown(later) != StatusText.shown(Self.running))
    }

    // MARK: Templates

    @Test func templateFields() throws {
        let template = try StatusTemplate(
            "{state}|{plan}|{kind}|{label}|{remaining}|{elapsed}|{duration}|{index}|{count}|{next}|{progress}")
        #expect(
            template.render(Self.running)
                == "running|Galloway run/walk 30:30|run|Run|0:12|14:48|40:00|23|56|Walk|37")
        #expect(template.render(.idle) == "idle||||||||||")
        #expect(try StatusTemplate("{text}").render(Self.running) == StatusText.line(Self.running))
    }

    @Test func templateBraceEscapes() throws {
        #expect(try StatusTemplate("{{{label}}} {{x}}").render(Self.running) == "{Run} {x}")
        #expect(try StatusTemplate("").render(Self.running) == "")
        #expect(try StatusTemplate("plain ünïcode 🏃").render(Self.running) == "plain ünïcode 🏃")
    }

    @Test func templateErrors() {
        #expect(throws: StatusTemplateError(.unknownField("lable"), column: 4)) { try StatusTemplate("Go {lable}") }
        #expect(throws: StatusTemplateError(.unknownField(""), column: 1)) { try StatusTemplate("{}") }
        #expect(throws: StatusTemplateError(.unclosedBrace, column: 8)) { try StatusTemplate("{{x}}  {label") }
        #expect(throws: StatusTemplateError(.loneClosingBrace, column: 7)) { try StatusTemplate("{kind}}") }
        let message = StatusTemplateError(.unknownField("lable"), column: 4).description
        #expect(message.contains("{lable}"))
        #expect(
            message.contains(
                "{state} {plan} {kind} {label} {remaining} {elapsed} {duration} {index} {count} {next} {progress}"))
    }

    @Test func templateEscapesValuesOnly() throws {
        var status = Self.running
        status.segmentLabel = "Sprint <fast> & hard"
        let template = try StatusTemplate("<b>{label}</b>")
        #expect(template.render(status, escaping: StatusText.pangoEscaped) == "<b>Sprint &lt;fast&gt; &amp; hard</b>")
    }

    @Test func anOpenStepCountsUpAndHasNoTimeLeft() {
        let status = Self.holding
        #expect(
            StatusText.line(status)
                == "running · Track · Warm up 2:37, until Done (1/14) · next Run · 2:37/10:00 + 2 open steps")
        #expect(StatusText.percent(status) == 0)
        #expect(StatusText.value(.remaining, of: status) == "2:37")
        // The next second it shows, 2:38, is 0.6 s away: counting up changes on whole seconds of the step.
        #expect(StatusText.microsecondsUntilNextSecond(status) == 600_000)
        let json = StatusText.json(status, text: "T")
        #expect(json.contains(#""segment_remaining_us":null,"segment_elapsed_us":157400000,"open":true"#))
        #expect(StatusText.tooltip(status).contains("Warm up · 2:37, until Done · segment 1 of 14"))
        var paused = status
        paused.state = .paused
        #expect(StatusText.microsecondsUntilNextSecond(paused) == nil)
    }

    /// A strap heard: "♥ 142" ends the line, `heart_rate` is its bpm in JSON and `{heart_rate}` in a template.
    @Test func theHeartRateIsShownWhileAStrapIsHeard() {
        var status = Self.running
        status.heartRate = 142
        #expect(StatusText.line(status).hasSuffix(" · 14:48/40:00 · ♥ 142"))
        #expect(StatusText.json(status, text: "T").contains(#""heart_rate":142,"#))
        #expect(StatusText.value(.heartRate, of: status) == "142")
        #expect(!StatusText.line(Self.running).contains("♥") && StatusText.value(.heartRate, of: Self.running) == "")
    }

    /// A treadmill heard: its speed and distance end the line (its incline too once it is not flat), `machine` holds
    /// every reading in JSON, null where it reports none, and `{speed}`, `{machine_distance}` fill a template.
    @Test func aTreadmillsSpeedAndDistanceAreShown() {
        var status = Self.running
        status.heartRate = 142
        status.machineReading = MachineReading(speed: 12, distance: 350, incline: 0)
        #expect(StatusText.line(status).hasSuffix(" · 14:48/40:00 · ♥ 142 · 12.0 km/h · 350 m"))
        #expect(
            StatusText.json(status, text: "T").contains(
                #""machine":{"speed":12.0,"distance":350,"incline":0.0,"power":null,"cadence":null},"#))
        #expect(StatusText.value(.speed, of: status) == "12.0")
        #expect(StatusText.value(.machineDistance, of: status) == "350")
        #expect(StatusText.value(.power, of: status) == "")
        status.machineReading = MachineReading(speed: 9.5, distance: 12_345, incline: -1.5)
        #expect(StatusText.line(status).hasSuffix(" · 9.5 km/h · 12.35 km · -1.5 %"))
    }

    /// A bike heard: its power and cadence end the line (not its speed), and `{power}` fills a template; a bike that
    /// stands still says 0 W, not nothing.
    @Test func aBikesPowerAndCadenceAreShown() {
        var status = Self.running
        status.machineReading = MachineReading(speed: 31.2, distance: 4200, power: 210, cadence: 89.5)
        #expect(StatusText.line(status).hasSuffix(" · 14:48/40:00 · 210 W · 90 rpm"))
        #expect(StatusText.value(.power, of: status) == "210")
        #expect(StatusText.value(.speed, of: status) == "31.2")
        #expect(
            StatusText.json(status, text: "T").contains(
                #""machine":{"speed":31.2,"distance":4200,"incline":null,"power":210,"cadence":89.5},"#))
        status.machineReading = MachineReading(speed: 0, power: 0, cadence: 0)
        #expect(StatusText.line(status).hasSuffix(" · 0 W · 0 rpm"))
        #expect(StatusText.json(status, text: "T").contains(#""power":0,"#))
    }

    /// Decimals in the reader's language: "12,0 km/h", "1,25 km".
    @Test func theMachinesDecimalsAreTheReaders() {
        var status = Self.running
        status.machineReading = MachineReading(speed: 12, distance: 1250)
        let (line, speed) = Localization.using(LocalizationTests.german) {
            (StatusText.line(status), StatusText.value(.speed, of: status))
        }
        #expect(line.hasSuffix(" · 12,0 km/h · 1,25 km") && speed == "12,0")
        // JSON's numbers stay JSON's.
        #expect(Localization.using(LocalizationTests.german) { StatusText.json(status, text: "") }.contains("12.0,"))
    }

    // MARK: JSON and waybar

    @Test func json() {
        #expect(
            StatusText.json(Self.running, text: "T")
                == #"{"state":"running","plan_name":"Galloway run/walk 30:30","plan_duration_us":2400000000,"#
                + #""segment_index":22,"segment_count":56,"segment_kind":"run","segment_label":"Run","#
                + #""segment_duration_us":30000000,"next_label":"Walk","elapsed_us":888300000,"#
                + #""segment_remaining_us":11200000,"segment_elapsed_us":18800000,"open":false,"inhibited":"","#
                + #""heart_rate":null,"machine":null,"position":"23/56","remaining":"0:12","elapsed":"14:48","#
                + #""duration":"40:00","progress":0.3701,"text":"T"}"#)
        #expect(
            StatusText.json(.idle, text: "idle")
                == #"{"state":"idle","plan_name":"","plan_duration_us":0,"segment_index":0,"segment_count":0,"#
                + #""segment_kind":"","segment_label":"","segment_duration_us":0,"next_label":"","elapsed_us":0,"#
                + #""segment_remaining_us":0,"segment_elapsed_us":0,"open":false,"inhibited":"","heart_rate":null,"#
                + #""machine":null,"position":"","#
                + #""remaining":"","elapsed":"","duration":"","progress":0.0,"#
                + #""text":"idle"}"#)
    }

    @Test func jsonEscapesStrings() {
        var status = Self.running
        status.planName = "a\"b\\c\nd\u{01}é\u{2028}"
        #expect(StatusText.json(status, text: "").contains(#""plan_name":"a\"b\\c\nd\u0001é\u2028""#))
    }

    @Test func waybar() {
        #expect(
            StatusOutput(style: .waybar).render(Self.running)
                == #"{"text":"Run 0:12","tooltip":"Galloway run/walk 30:30 · running\n"#
                + #"Run · 0:12 left · segment 23 of 56\nNext: Walk\n14:48 of 40:00 · 37 %","#
                + #""class":["running","kind-run"],"percentage":37}"#)
        #expect(
            StatusOutput(style: .waybar).render(.idle)
                == #"{"text":"","tooltip":"intervald: idle","class":["idle"],"percentage":0}"#)
        #expect(StatusOutput(style: .waybar, idleText: "⏱").render(.idle).hasPrefix(#"{"text":"⏱","#))
        var status = Self.running
        status.planName = "Fast & <furious>"
        #expect(
            StatusOutput(style: .waybar).render(status).contains(#""tooltip":"Fast &amp; &lt;furious&gt; · running"#))
    }

    @Test func outputStyles() throws {
        let template = try StatusTemplate("{label} {remaining}")
        #expect(StatusOutput().render(Self.running) == StatusText.line(Self.running))
        #expect(StatusOutput(template: template).render(Self.running) == "Run 0:12")
        #expect(StatusOutput(template: template).render(.idle) == " ")
        #expect(StatusOutput(template: template, idleText: "").render(.idle) == "")
        #expect(StatusOutput(idleText: "-").render(.idle) == "-")
        #expect(StatusOutput(style: .json, template: template).render(Self.running).hasSuffix(#""text":"Run 0:12"}"#))
        #expect(
            StatusOutput(style: .waybar, template: template).render(Self.running).hasPrefix(#"{"text":"Run 0:12","#))
    }
}

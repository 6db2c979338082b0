import IntervalTestSupport
import Testing

@testable import IntervalCore

/// The words in another language come from the catalog, through the same code as English (docs/reference.md §9). A
/// small German catalog stands in for gettext's; the real catalogs are checked by scripts/update-po and the integration
/// tests.
@Suite struct LocalizationTests {
    static let german = Localization.Catalog(
        singular: { germanWords[$0] ?? $0 },
        plural: { singular, plural, count in
            let forms = germanPlurals[singular] ?? (singular, plural)
            return count == 1 ? forms.0 : forms.1
        },
        decimalSeparator: ",")
    static let germanWords = [
        "en": "de", "Run": "Laufen", "Walk": "Gehen", "Warm-up": "Aufwärmen", "Cool-down": "Abwärmen",
        "Stop": "Beenden",
        "Pause": "Anhalten", "Skip": "Überspringen", "Next: {next} {time}": "Danach: {next} {time}",
        "round {number} of {count}": "Runde {number} von {count}", "{current}, {time}": "{current}, {time}",
        "running": "läuft", "{current} {remaining} left ({position})": "{current} noch {remaining} ({position})",
        "next {next}": "danach {next}", "Next: {next}": "Danach: {next}",
        "Week {week}, Day {day}": "Woche {week}, Tag {day}", "Distance": "Strecke", "Total": "Gesamt",
        "step {number} ({name})": "Schritt {number} ({name})",
    ]
    static let germanPlurals = [
        "{count} second": ("{count} Sekunde", "{count} Sekunden"),
        "{count} minute": ("{count} Minute", "{count} Minuten"),
        "{count} segment": ("{count} Abschnitt", "{count} Abschnitte"),
    ]

    @Test func aCueIsInTheCatalogsLanguageWithItsButtons() throws {
        let galloway = try plan("5m walk \"Warm-up\", 6x(4x(30s run, 30s walk)), 5m walk")
        let run = try #require(galloway.segment(at: 5 * 60_000_000))
        let note = try #require(
            Localization.using(Self.german) {
                WorkoutPresenter.notification(
                    for: .segmentStarted(run, next: galloway.segment(after: run)), plan: galloway, style: CueStyle())
            })
        #expect(note.summary == "Laufen · 30 s")
        #expect(note.body == "Danach: Gehen 30 s · Runde 1 von 6")
        #expect(
            Localization.using(Self.german) { note.actions.map(\.label) } == ["Beenden", "Anhalten", "Überspringen"])
        // The bus, hooks and --json keep the plan's own label.
        #expect(run.label == "Run")
    }

    /// The screen said "Warm-up" where `segment_label`, `{label}` and FIT step names said "Warmup": one spelling.
    @Test func theHyphenatedKindsAreSpelledOneWayOnTheBusAndOnScreen() throws {
        let parsed = try plan("5m warmup, 1m run, 5m cooldown")
        let labels = parsed.segments.map(\.label)
        #expect(labels == ["Warm-up", "Run", "Cool-down"])
        #expect(labels.map(Localization.label) == labels)
        #expect(
            Localization.using(Self.german) { labels.map(Localization.label) } == ["Aufwärmen", "Laufen", "Abwärmen"])
    }

    /// `intervalctl history`'s totals listed kind ids ("walk 0:13, run 0:01") where the window said "Gehen, Laufen".
    @Test func aHistorysTimePerKindNamesTheKindsInTheUsersLanguage() {
        let kinds: [String: Int64] = ["run": 1_000_000, "walk": 13_000_000, "warmup": 400_000]
        #expect(
            Localization.using(Self.german) { HistoryTotals.text(ofTimePerKind: kinds) }
                == "Gehen 0:13, Laufen 0:01, Aufwärmen 0:00")
        #expect(HistoryTotals.text(ofTimePerKind: [:]) == "")
    }

    /// A plan's page showed "Easy jog (Aufwärmen) @ 7:00/km", plan syntax in a title.
    @Test func aPlansRowsSayAStepInWords() throws {
        let parsed = try plan(#"10m warmup "Easy jog" @ 7:00/km, 1m run"#)
        let rows = Localization.using(Self.german) { PlanReport.rows(for: parsed) }
        #expect(
            rows == [
                .step(title: "Easy jog · Aufwärmen · 7:00/km", duration: "10:00"),
                .step(title: "Laufen", duration: "1:00"),
            ])
    }

    /// The workout page and the history named a one-line plan by its text, English kinds and all: "8x(30s run, 30s
    /// walk)" on a German desktop.
    @Test func aOneLinePlanIsNamedInWordsAndANamedPlanByItsName() {
        let named = Localization.using(Self.german) {
            ["8x(30s run, 30s walk)", "5m walk \"Warm-up\", 2x(1m run)", "Galloway 30:30", "8x(30s run"].map(
                PlanReport.readableName)
        }
        #expect(
            named == [
                "8 × (Laufen 0:30, Gehen 0:30)", "Aufwärmen 5:00, 2 × (Laufen 1:00)", "Galloway 30:30", "8x(30s run",
            ])
    }

    /// The notification said "Danach: Vollgas" and the window "Danach: All out".
    @Test func theWindowShowsTheLabelsAsTheNotificationSaysThem() throws {
        var status = TimerStatus.idle
        (status.state, status.segmentKind, status.segmentLabel, status.nextLabel) = (.running, "run", "Run", "Walk")
        (status.segmentCount, status.segmentDuration, status.segmentRemaining) = (2, 30_000_000, 30_000_000)
        let shown = try #require(
            Localization.using(Self.german) { WorkoutDisplay(status, age: 0, restKinds: ["walk"]) })
        #expect(shown.title == "Laufen")
        #expect(shown.next == "Danach: Gehen")
    }

    /// History said "Week 1, Day 1" in German: the record keeps the name the (English) daemon gave the day.
    @Test func aProgramDayInTheHistoryIsNamedInTheReadersLanguage() {
        let record = HistoryRecord(
            id: "1", plan: "Couch to 5K · Week 1, Day 1", origin: "", start: "", end: "", startWall: 0,
            plannedDuration: 1, doneDuration: 1, segmentsDone: 1, timePerKind: [:], result: .finished, reason: nil,
            program: ProgramDayReference(
                program: "c25k", title: "Couch to 5K", day: ProgramDay(week: 1, number: 1), following: nil))
        #expect(Localization.using(Self.german) { record.displayName } == "Couch to 5K · Woche 1, Tag 1")
        var plain = record
        plain.program = nil
        #expect(Localization.using(Self.german) { plain.displayName } == "Couch to 5K · Week 1, Day 1")
    }

    @Test func labelsTheUserWroteAreShownAsWritten() throws {
        let own = try plan("30s laufen, 30s run \"Bergauf\", 30s run")
        let labels = Localization.using(Self.german) { own.segments.map(\.displayLabel) }
        #expect(labels == ["Laufen", "Bergauf", "Laufen"])
        let english = try plan("5m warmup \"Warm-up\"")
        #expect(Localization.using(Self.german) { english.segments.map(\.displayLabel) } == ["Aufwärmen"])
    }

    @Test func spokenPhrasesUseThePluralFormsAndTheLanguageIsTheCatalogs() throws {
        let phrase = Localization.using(Self.german) { SpokenCues.phrase(label: "Run", microseconds: 90_000_000) }
        #expect(phrase == "Laufen, 1 Minute 30 Sekunden")
        #expect(Localization.using(Self.german) { SpokenCues.words(microseconds: 1_000_000) } == "1 Sekunde")
        #expect(Localization.using(Self.german) { Localization.language } == "de")
        #expect(Localization.language == "en")
    }

    /// The voice's side of docs/reference.md §9: each phrase also in English, for a voice that has none of the user's
    /// language.
    final class Voice: WorkoutOutput {
        var spoken = SpokenCues()
        var plain = SpokenCues()
        var said: [[String]] = []
        var timedAsPlain = true

        func handle(_ moment: WorkoutMoment) {
            let phrases = spoken.actionsWithEnglish(for: moment)
            timedAsPlain = timedAsPlain && phrases.actions == plain.actions(for: moment)
            for (phrase, english) in zip(phrases.actions.cues, phrases.english) { said.append([phrase.text, english]) }
        }
    }

    @Test func eachPhraseComesWithItsEnglishAndIsTimedOnce() throws {
        let clock = ManualTimerSource()
        let voice = Voice()
        let session = WorkoutSession(timer: clock, wallClock: { clock.now }, outputs: [voice])
        try Localization.using(Self.german) {
            try session.start("10s run, 1m walk", origin: "", replace: false)
            clock.advance(by: 70_000_000)
        }
        #expect(
            voice.said == [
                ["Laufen, 10 Sekunden", "Run, 10 seconds"], ["Gehen, 1 Minute", "Walk, 1 minute"],
                ["Workout done, 1 Minute 10 Sekunden", "Workout done, 1 minute 10 seconds"],
            ])
        #expect(voice.timedAsPlain, "the English pass changes no phrase's timing, nor what was already timed")

        let english = Voice()
        let plain = WorkoutSession(timer: clock, wallClock: { clock.now }, outputs: [english])
        try plain.start("10s run", origin: "", replace: false)
        clock.advance(by: 10_000_000)
        #expect(
            english.said == [
                ["Run, 10 seconds", "Run, 10 seconds"], ["Workout done, 10 seconds", "Workout done, 10 seconds"],
            ])
        #expect(english.timedAsPlain)
    }

    @Test func aVoiceOfTheLanguageIsFoundByItsPrimarySubtag() {
        let espeak = ["af", "de", "en-GB-x-rp", "en-US", "es-419", "fr-FR"]
        #expect(SpokenCues.hasVoice(for: "de", among: espeak))
        #expect(SpokenCues.hasVoice(for: "de_AT", among: espeak))
        #expect(SpokenCues.hasVoice(for: "FR", among: espeak))
        #expect(SpokenCues.hasVoice(for: "es", among: espeak))
        #expect(!SpokenCues.hasVoice(for: "tlh", among: espeak))
        #expect(!SpokenCues.hasVoice(for: "", among: espeak))
        #expect(SpokenCues.hasVoice(for: "tlh", among: []), "a synthesizer that lists no voices is not judged")
    }

    @Test func numbersInTextUseTheDecimalSeparatorButNeverInJSON() throws {
        let paced = try plan("4x(4m run @ 5:30/km, 1m walk @ 10:00/km)")
        let report = Localization.using(Self.german) { PlanReport.text(for: paced) }
        #expect(report.contains("Strecke"))
        #expect(report.contains("3,31 km (2,06 mi)"))
        #expect(!report.contains("3.31"))
        #expect(Localization.using(Self.german) { TimeText.spoken(microseconds: 1_500_000) } == "1,5 s")

        let status = StatusTextTests.running
        #expect(
            Localization.using(Self.german) { StatusText.line(status) }
                == "läuft · Galloway run/walk 30:30 · Laufen noch 0:12 (23/56) · danach Gehen · 14:48/40:00")
        let json = Localization.using(Self.german) { StatusOutput(style: .json).render(status) }
        #expect(json == StatusOutput(style: .json).render(status))
        #expect(json.contains(#""text":"running · Galloway"#))
    }

    /// The calculator shows "10,51" in German and reads it back, as it reads "10,5" and "10.5" typed there; in English
    /// the comma stays what the plan language makes of it (a separator of items, so an error).
    @Test func aDecimalTypedOrShownInTheUsersFormIsReadAsThePlanLanguageReadsIt() throws {
        let shown = Localization.using(Self.german) { PlanReport.format2(10.51) }
        #expect(shown == "10,51")
        for typed in [shown, "10,5", "10.5"] {
            let read = Localization.using(Self.german) { Localization.decimalInput(typed) }
            let given = try PlanParser.parseRun("\(read)km in 55:00", origin: "<calc>")
            #expect(RunCalculation(given)?.pace != nil, "\(typed) read as \(read)")
        }
        #expect(Localization.decimalInput("10,5") == "10,5")
        #expect(throws: PlanDiagnostic.self) { try PlanParser.parseRun("10,5km in 55:00", origin: "<calc>") }
    }

    @Test func placeholdersAreFilledWhereverTheTranslationPutsThem() {
        let reordered = Localization.Catalog(
            singular: { $0 == "Start {plan}" ? "{plan} starten" : $0 }, plural: Localization.Catalog.english.plural,
            decimalSeparator: ".")
        #expect(Localization.using(reordered) { tr("Start {plan}", ["plan": "Tabata"]) } == "Tabata starten")
        #expect(tr("Start {plan}", ["plan": "{plan}"]) == "Start {plan}")
        #expect(tr("Next: {next} {time}", ["next": "{time}", "time": "30 s"]) == "Next: {time} 30 s")
        #expect(tr("expected '(' or '{' after {head}", ["head": "'3x'"]) == "expected '(' or '{' after '3x'")
        #expect(trn("{count} segment", "{count} segments", 1) == "1 segment")
        #expect(trn("{count} segment", "{count} segments", 0) == "0 segments")
    }
}

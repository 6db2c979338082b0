/// Every sentence a person reads or hears goes through here (docs/reference.md §9): ``tr(_:_:)`` and ``trn(_:_:_:_:)``
/// mark the English text (the gettext msgid, extracted by `scripts/update-po`) and give the user's language. The core
/// has no C module: the executables install gettext's lookups (``Localization/install(_:)``, from IntervalRuntime's
/// `Gettext`) before any thread starts; until then, and in the core's tests, the text is English.
///
/// Placeholders are named, `{name}`, so that a translation may reorder them; ``tr(_:_:)`` fills them.
public enum Localization {
    /// How the text of one language is looked up.
    public struct Catalog: Sendable {
        /// The translation of a msgid, or the msgid.
        public var singular: @Sendable (String) -> String
        /// The translation of a msgid and its plural for a count, or the English form.
        public var plural: @Sendable (String, String, Int) -> String
        /// The decimal separator of the user's `LC_NUMERIC`, for text output only.
        public var decimalSeparator: String

        public init(
            singular: @escaping @Sendable (String) -> String,
            plural: @escaping @Sendable (String, String, Int) -> String,
            decimalSeparator: String
        ) {
            self.singular = singular
            self.plural = plural
            self.decimalSeparator = decimalSeparator
        }

        public static let english = Catalog(
            singular: { $0 }, plural: { singular, plural, count in count == 1 ? singular : plural },
            decimalSeparator: ".")
    }

    /// Set once by ``install(_:)``, before any other thread exists; read-only after that.
    nonisolated(unsafe) private static var installed = Catalog.english

    /// The catalog of ``using(_:_:)`` on this thread or task, over the installed one.
    @TaskLocal private static var scoped: Catalog?

    public static var catalog: Catalog { scoped ?? installed }

    /// `body`'s value with every ``tr(_:_:)`` in it answering from `catalog` (a test's language, English).
    public static func using<Value>(_ catalog: Catalog, _ body: () throws -> Value) rethrows -> Value {
        try $scoped.withValue(catalog, operation: body)
    }

    /// `body`'s value with every ``tr(_:_:)`` in it answering English: machine output (`--json`) built from the same
    /// texts is byte-identical in every locale (docs/reference.md §9).
    public static func inEnglish<Value>(_ body: () throws -> Value) rethrows -> Value {
        try using(.english, body)
    }

    /// Makes `catalog` the one every ``tr(_:_:)`` uses. Call first thing in `main`, before any thread starts (tests
    /// use ``using(_:_:)``).
    public static func install(_ catalog: Catalog) {
        installed = catalog
    }

    /// The ISO 639 code of the language the text is in ("de"; "en" untranslated): what the voice is asked to speak.
    public static var language: String {
        // TRANSLATORS: the ISO 639-1 code of your language (de, fr, es); the voice is asked to speak it.
        tr("en")
    }

    /// `text` with each `{name}` replaced by its value.
    /// In one pass over `text`: a value that itself looks like a placeholder (a plan named "{time}") stays as it is.
    static func fill(_ text: String, _ values: KeyValuePairs<String, String>) -> String {
        fill(text) { name in values.first(where: { $0.key == name })?.value }
    }

    /// `text` with each `{name}` replaced by `value(name)`, where that is not nil.
    static func fill(_ text: String, value: (Substring) -> String?) -> String {
        guard text.contains("{") else { return text }
        var filled = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            filled += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}"), let value = value(rest[afterOpen..<close])
            else {
                filled.append("{")
                rest = rest[afterOpen...]
                continue
            }
            filled += value
            rest = rest[rest.index(after: close)...]
        }
        return filled + rest
    }

    /// A decimal number as text output shows it: "1.5" becomes "1,5" in German. Never for input or machine output.
    public static func decimal(_ text: String) -> String {
        let separator = catalog.decimalSeparator
        return separator == "." ? text : text.replacing(".", with: separator)
    }

    /// A number a person typed, or ``decimal(_:)`` wrote into a field, as the plan language reads it: "10,5" becomes
    /// "10.5" where the user's separator is the comma; the dot is read as it is everywhere.
    public static func decimalInput(_ text: String) -> String {
        let separator = catalog.decimalSeparator
        return separator == "." ? text : text.replacing(separator, with: ".")
    }
}

/// Marks `english` for translation where it is written, for a table built before the user's language is known;
/// ``tr(_:_:)`` translates it where it is shown.
public func trLater(_ english: String) -> String { english }

/// The user's language for `english`, a msgid, with its `{name}` placeholders filled.
public func tr(_ english: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
    Localization.fill(Localization.catalog.singular(english), values)
}

/// The user's language for the form of `singular`/`plural` that `count` takes, with `{count}` and the other
/// placeholders filled.
public func trn(_ singular: String, _ plural: String, _ count: Int, _ values: KeyValuePairs<String, String> = [:])
    -> String
{
    let text = Localization.catalog.plural(singular, plural, count)
    return Localization.fill(text) { name in
        values.first(where: { $0.key == name })?.value ?? (name == "count" ? String(count) : nil)
    }
}

extension Localization {
    /// The common English labels of steps (a kind capitalised, or a bundled plan's label) shown in the user's
    /// language (docs/reference.md §9); any other label is the user's own word and is shown as written.
    public static func label(_ label: String) -> String {
        commonLabels[label] ?? label
    }

    /// A kind by its display name, everywhere a kind is shown by itself (totals, the finish page, the history's
    /// legend): its default label in the user's language, "Warm-up" for `warmup`, "Laufen" for `run` in German; a kind
    /// of one's own as its default label writes it.
    public static func kindName(_ kind: String) -> String {
        label(Step.defaultLabel(for: kind))
    }

    /// A plan's name as the reader reads it: the bundled plans' names in the user's language ("Couch to 5K — Woche 1"),
    /// as their labels are; any other name is its author's and is shown as written. The bus, hooks, `--json` and the
    /// history file keep the name the plan gives.
    public static func planName(_ name: String) -> String {
        bundledPlanNames[name] ?? name
    }

    private static var bundledPlanNames: [String: String] {
        [
            "Couch to 5K — week 1": tr("Couch to 5K — week 1"),
            "Galloway run/walk 1:1": tr("Galloway run/walk 1:1"),
            "Galloway run/walk 3:1": tr("Galloway run/walk 3:1"),
            "Galloway run/walk 30:30": tr("Galloway run/walk 30:30"),
            "Paced 5K intervals": tr("Paced 5K intervals"),
        ]
    }

    private static var commonLabels: [String: String] {
        [
            "Run": tr("Run"), "Walk": tr("Walk"), "Work": tr("Work"), "Rest": tr("Rest"), "Jog": tr("Jog"),
            "Sprint": tr("Sprint"), "Easy": tr("Easy"), "Hard": tr("Hard"), "Recover": tr("Recover"),
            "Recovery": tr("Recovery"), "Warmup": tr("Warm-up"), "Warm-up": tr("Warm-up"),
            "Cooldown": tr("Cool-down"), "Cool-down": tr("Cool-down"), "Brisk walk": tr("Brisk walk"),
            "Walk break": tr("Walk break"), "Set break": tr("Set break"), "All out": tr("All out"),
            "Stretch": tr("Stretch"), "Bike": tr("Bike"), "Row": tr("Row"), "Swim": tr("Swim"),
        ]
    }
}

extension Plan {
    /// The name as a person reads it: a bundled plan's in the user's language (``Localization/planName(_:)``).
    public var displayName: String { Localization.planName(name) }
}

extension Segment {
    /// The label as a person reads or hears it: a common English one in the user's language (docs/reference.md §9). The
    /// bus, hooks and `--json` keep ``label``.
    public var displayLabel: String { Localization.label(label) }
}

/// Parses the plan language of docs/reference.md §1: one grammar for plan files and one-line plans.
///
/// A hand-written recursive-descent parser over UTF-8 bytes: each error names what was expected at the exact
/// column, nesting is checked before recursing (no stack overflow on `((((…`), and every limit has its own message.
public enum PlanParser {
    /// Parses `text`; `origin` names it in diagnostics (a path, `<inline>` or `<stdin>`), `defaultName` names the
    /// plan when it has no `name` directive.
    public static func parse(_ text: String, origin: String, defaultName: String) throws(PlanDiagnostic) -> Plan {
        try parse(bytes: Array(text.utf8), origin: origin, defaultName: defaultName)
    }

    /// Parses raw bytes, which need not be valid UTF-8: anything outside labels and comments is reported.
    public static func parse(bytes: [UInt8], origin: String, defaultName: String) throws(PlanDiagnostic) -> Plan {
        var parser = PlanTextParser(text: bytes, origin: origin)
        return try parser.parsePlan(defaultName: defaultName)
    }

    /// Parses `text` and records what the editor keeps of it (``PlanDraft``): each item's own words and where it
    /// lies, and every comment.
    /// Whether `word` is a kind: a lowercase letter, then lowercase letters, digits, `_` and `-`.
    static func isKind(_ word: String) -> Bool {
        guard let first = word.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
        return word.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    static func outline(_ text: String) throws(PlanDiagnostic) -> PlanOutline {
        var parser = PlanTextParser(text: Array(text.utf8), origin: "<editor>")
        parser.outlining = true
        _ = try parser.parsePlan(defaultName: "")
        return PlanOutline(
            name: parser.name, countdown: parser.countdownText, items: parser.finishedOutline,
            comments: parser.comments, headerEnd: parser.headerEnd, text: parser.text)
    }
}

/// What ``PlanParser/outline(_:)`` saw: offsets are bytes of `text`.
struct PlanOutline {
    struct Item {
        enum Content {
            case step(PlanDraft.Step)
            /// `head` is `6x` or `for 45m`; `bodyStart` is the offset of its `(` or `{`.
            case group(head: String, bodyStart: Int, children: [Item])
        }
        var start: Int
        var end: Int
        var content: Content
    }
    var name: String?
    var countdown: String?
    var items: [Item]
    var comments: [(offset: Int, text: String)]
    /// Where the last directive ended (0 when there is none).
    var headerEnd: Int
    var text: [UInt8]
}

/// The parser of the plan language and its family (programs, `intervalctl calc`), over UTF-8 bytes.
struct PlanTextParser {
    let text: [UInt8]
    let origin: String
    var position = 0
    var depth = 0
    var name: String?
    var countdown: Int64?
    var directiveOffsets: [String: Int] = [:]
    /// Default labels by kind: capitalising is Unicode work, and large plans repeat a few kinds.
    var defaultLabels: [String: String] = [:]
    var sawStep = false
    /// What is not wrong but may not be what the author meant (`400m`: minutes, not metres).
    var notes: [PlanDiagnostic] = []
    /// Whether to record an outline (``PlanParser/outline(_:)``); a plain parse keeps nothing of it.
    var outlining = false
    var countdownText: String?
    var comments: [(offset: Int, text: String)] = []
    var headerEnd = 0
    /// The items of each group being parsed, innermost last; `finishedOutline` holds the last group's when it closes.
    var outlineLevels: [[PlanOutline.Item]] = []
    var finishedOutline: [PlanOutline.Item] = []
    /// The item just parsed, until `parseItems` places it.
    var parsedOutline: PlanOutline.Item.Content?
    /// The depth at which directives may stand: 0 in a plan, 1 in a program's day.
    var directiveDepth = 0
    /// Parsing a program's day, where `name` is not allowed (the day is named by its week and number).
    var inProgramDay = false

    init(text: [UInt8], origin: String) {
        self.text = text
        self.origin = origin
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    // MARK: Structure

    mutating func parsePlan(defaultName: String) throws(PlanDiagnostic) -> Plan {
        let (items, offsets) = try parseItems(closing: nil, openedAt: 0)
        guard !items.isEmpty else {
            throw error(at: position, tr("the plan has no steps (expected a step such as '30s run')"))
        }
        let root = try makeGroup(.once, items, offsets, at: 0, countAt: 0)
        // A name from a file name may hold control characters, which the `name` directive refuses: escape them.
        return Plan(name: name ?? defaultName.terminalEscaped, countdown: countdown, root: root, notes: notes)
    }

    /// Items up to `closing` (or the end of the text at the top level), with where each starts.
    mutating func parseItems(closing: UInt8?, openedAt: Int) throws(PlanDiagnostic) -> ([PlanNode], [Int]) {
        var items: [PlanNode] = []
        var offsets: [Int] = []
        if outlining { outlineLevels.append([]) }
        while true {
            skipBlankAndSeparators()
            guard let byte = peek() else {
                if let closing { throw unclosed(closing, openedAt: openedAt, found: nil) }
                finishOutlineLevel()
                return (items, offsets)
            }
            if byte == UInt8(ascii: ")") || byte == UInt8(ascii: "}") {
                if byte == closing {
                    position += 1
                    finishOutlineLevel()
                    return (items, offsets)
                }
                if let closing { throw unclosed(closing, openedAt: openedAt, found: byte) }
                throw error(
                    at: position,
                    tr(
                        "unexpected '{found}' (no group is open here)",
                        ["found": String(Character(Unicode.Scalar(byte)))]))
            }
            let itemStart = position
            if let item = try parseItem(topLevel: depth == directiveDepth) {
                items.append(item)
                offsets.append(itemStart)
                if outlining, let content = parsedOutline {
                    outlineLevels[outlineLevels.count - 1].append(
                        PlanOutline.Item(start: itemStart, end: position, content: content))
                }
            } else if outlining {
                headerEnd = position
            }
            skipSpacesAndComment()
            if let next = peek(), !isSeparator(next), next != UInt8(ascii: ")"), next != UInt8(ascii: "}") {
                throw error(
                    at: position,
                    tr("expected ',', ';' or a new line before {found}", ["found": describeToken(at: position)]))
            }
        }
    }

    mutating func finishOutlineLevel() {
        if outlining { finishedOutline = outlineLevels.popLast() ?? [] }
    }

    /// One item, or nil for a header directive.
    mutating func parseItem(topLevel: Bool) throws(PlanDiagnostic) -> PlanNode? {
        let start = position
        guard let byte = peek() else { return nil }
        if isDigit(byte) || byte == UInt8(ascii: ".") {
            if let count = try repeatCount() {
                return try parseRepeat(count: count, at: start)
            }
            return .step(try parseStep())
        }
        if byte == UInt8(ascii: "-"), let next = peek(1), isDigit(next) {
            throw error(at: start, tr("negative numbers are not allowed (durations and counts must be positive)"))
        }
        if isLetter(byte) {
            let word = readWord()
            switch word {
            case "for":
                return try parseBounded()
            case Self.openWord, HeartRateBound.word:
                position = start
                return .step(try parseStep())
            case "name", "countdown":
                try parseDirective(word, at: start, topLevel: topLevel)
                return nil
            default:
                throw error(
                    at: start,
                    tr(
                        "unknown directive '{word}' (expected name or countdown; a step starts with its duration, as in '30s {word}')",
                        ["word": word])
                )
            }
        }
        switch byte {
        case UInt8(ascii: "\""):
            throw error(at: start, tr("a label must follow a duration and a kind, as in '30s run \"Easy\"'"))
        case UInt8(ascii: "@"):
            throw error(at: start, tr("a pace must follow a step, as in '4m run @ 5:30/km'"))
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            throw error(
                at: start, tr("a group needs a repeat count or 'for' before it, as in '3x(30s run, 30s walk)'"))
        default:
            throw error(
                at: start,
                tr(
                    "unexpected {found} (expected a step such as '30s run', a repeat such as '3x(...)' or a directive)",
                    ["found": describeToken(at: start)])
            )
        }
    }

    mutating func parseRepeat(count: Int, at start: Int) throws(PlanDiagnostic) -> PlanNode {
        let (items, offsets, openedAt) = try parseGroupBody(after: "'\(count)x'")
        if outlining { parsedOutline = .group(head: "\(count)x", bodyStart: openedAt, children: finishedOutline) }
        return .group(try makeGroup(.times(count), items, offsets, at: openedAt, countAt: start))
    }

    mutating func parseBounded() throws(PlanDiagnostic) -> PlanNode {
        skipSpacesAndComment()
        let limitStart = position
        if peek() == UInt8(ascii: "-") {
            throw error(at: limitStart, tr("negative numbers are not allowed (durations and counts must be positive)"))
        }
        guard let byte = peek(), isDigit(byte) || byte == UInt8(ascii: ".") else {
            throw error(
                at: limitStart,
                tr("expected a duration or a distance after 'for', as in 'for 45m (...)' or 'for 5km (...)'"))
        }
        let repetition: Repetition
        if let metres = try distance() {
            guard metres > 0 else { throw error(at: limitStart, tr("distance must be greater than zero")) }
            repetition = .forDistance(metres)
        } else {
            let limit = try parseDuration()
            guard limit <= PlanLimits.maximumDuration else {
                throw error(at: limitStart, PlanLimitError.tooLong.message)
            }
            repetition = .forDuration(limit)
        }
        let limitText = String(decoding: text[limitStart..<position], as: UTF8.self)
        let (items, offsets, openedAt) = try parseGroupBody(after: "'for \(limitText)'")
        if outlining {
            parsedOutline = .group(head: "for \(limitText)", bodyStart: openedAt, children: finishedOutline)
        }
        return .group(try makeGroup(repetition, items, offsets, at: openedAt, countAt: limitStart))
    }

    /// `( items )` or `{ items }` after a repeat's head; returns the items, their offsets and where the group opened.
    mutating func parseGroupBody(after head: String) throws(PlanDiagnostic) -> ([PlanNode], [Int], Int) {
        skipBlank()
        let openedAt = position
        let closing: UInt8
        switch peek() {
        case UInt8(ascii: "("): closing = UInt8(ascii: ")")
        case UInt8(ascii: "{"): closing = UInt8(ascii: "}")
        default: throw error(at: position, tr("expected '(' or '{' after {head}", ["head": head]))
        }
        guard depth < PlanLimits.maximumNesting else {
            throw error(
                at: position,
                tr("groups nest deeper than the limit of {limit}", ["limit": "\(PlanLimits.maximumNesting)"]))
        }
        position += 1
        depth += 1
        let (items, offsets) = try parseItems(closing: closing, openedAt: openedAt)
        depth -= 1
        return (items, offsets, openedAt)
    }

    func makeGroup(_ repetition: Repetition, _ items: [PlanNode], _ offsets: [Int], at openedAt: Int, countAt: Int)
        throws(PlanDiagnostic) -> PlanGroup
    {
        do {
            return try PlanGroup(repetition: repetition, children: items)
        } catch {
            switch error {
            case .emptyGroup: throw self.error(at: openedAt, error.message)
            case .tooLongAt(let child): throw self.error(at: offsets[child], error.message)
            default: throw self.error(at: countAt, error.message)
            }
        }
    }

    mutating func parseDirective(_ word: String, at start: Int, topLevel: Bool) throws(PlanDiagnostic) {
        guard topLevel else {
            throw error(
                at: start, tr("'{word}' is only allowed at the top of a plan, not inside a group", ["word": word]))
        }
        guard !sawStep else { throw error(at: start, tr("'{word}' must come before the first step", ["word": word])) }
        if inProgramDay, word == "name" {
            throw error(
                at: start, tr("a day is named by its week and number: 'name' belongs at the top of the program"))
        }
        try once(word, at: start)
        skipSpacesAndComment()
        if word == "name" {
            guard peek() == UInt8(ascii: "\"") else {
                throw error(at: position, tr("expected a quoted name after 'name', as in name \"Tabata\""))
            }
            name = try parseString(what: .name)
        } else {
            let durationStart = position
            guard let byte = peek(), isDigit(byte) || byte == UInt8(ascii: ".") else {
                throw error(at: position, tr("expected a duration after 'countdown', as in 'countdown 3s'"))
            }
            let value = try parseDuration()
            guard value >= PlanLimits.minimumStepDuration else {
                throw error(at: durationStart, tr("countdown must be at least 1 ms"))
            }
            guard value <= PlanLimits.maximumDuration else {
                throw error(at: durationStart, PlanLimits.tooLongMessage)
            }
            countdown = value
            if outlining { countdownText = String(decoding: text[durationStart..<position], as: UTF8.self) }
        }
    }

    // MARK: Steps

    /// The word that starts a step the person ends: `open warmup "Until ready"`.
    static let openWord = "open"

    /// `DURATION KIND ["Label"] [@ PACE]`, where DURATION may be `open`, a distance (`0.4km`, `1mi`) or a heart rate
    /// that ends the step (`hr<120`, `hr>160`).
    mutating func parseStep() throws(PlanDiagnostic) -> Step {
        let durationStart = position
        var duration: Int64 = 0
        var isOpen = false
        var heartRateBound: HeartRateBound?
        let distance = try self.distance()
        if distance != nil {
            guard let metres = distance, metres > 0 else {
                throw error(at: durationStart, tr("a distance must be greater than zero"))
            }
        } else if peek().map(isLetter) == true {
            let word = readLetters()
            if word == HeartRateBound.word {
                heartRateBound = try parseHeartRateBound()
            } else {
                position = durationStart
                guard readWord() == Self.openWord else {
                    throw error(at: durationStart, tr("expected a duration, a distance, a heart rate or 'open'"))
                }
                isOpen = true
            }
        } else {
            duration = try parseDuration()
            guard duration >= PlanLimits.minimumStepDuration else {
                throw error(at: durationStart, tr("a step must last at least 1 ms"))
            }
            guard duration <= PlanLimits.maximumDuration else {
                throw error(at: durationStart, PlanLimits.tooLongMessage)
            }
            noteMinutesThatMayBeMetres(from: durationStart, to: position)
        }
        let durationEnd = position
        // The duration's unit took every letter after the number, so a kind here follows a space.
        skipSpacesAndComment()
        guard let byte = peek(), isLetter(byte) else {
            throw error(at: position, tr("expected a kind after the duration, such as run, walk or rest"))
        }
        let kindStart = position
        let kind = readWord()
        guard PlanParser.isKind(kind) else {
            throw error(
                at: kindStart,
                tr("invalid kind '{kind}' (a kind is a lowercase word such as run, walk or rest)", ["kind": kind]))
        }
        skipSpacesAndComment()
        var label: String?
        if peek() == UInt8(ascii: "\"") {
            label = try parseString(what: .label)
            skipSpacesAndComment()
        }
        var target: StepTarget?
        var targetText = ""
        if peek() == UInt8(ascii: "@") {
            position += 1
            skipSpacesAndComment()
            let targetStart = position
            target = try parseTarget()
            targetText = String(decoding: text[targetStart..<position], as: UTF8.self)
        }
        if outlining {
            parsedOutline = .step(
                PlanDraft.Step(
                    duration: String(decoding: text[durationStart..<durationEnd], as: UTF8.self),
                    kind: kind,
                    label: label ?? "", target: targetText.trimmingSpaces))
        }
        sawStep = true
        if label == nil {
            label = defaultLabels[kind] ?? Step.defaultLabel(for: kind)
            defaultLabels[kind] = label
        }
        if let distance {
            // A distance with a pace is timed; without one (a power or a heart rate says nothing of speed), the person
            // says when it is covered.
            if let pace = target?.pace {
                let time = pace.microseconds(toCover: distance)
                guard time < Double(PlanLimits.maximumDuration) else {
                    throw error(at: durationStart, PlanLimits.tooLongMessage)
                }
                duration = Int64(time)
                guard duration >= PlanLimits.minimumStepDuration else {
                    throw error(at: durationStart, tr("a step must last at least 1 ms"))
                }
            } else {
                isOpen = true
            }
        }
        let length =
            heartRateBound.map(StepLength.heartRate)
            ?? StepLength(time: duration, isOpen: isOpen, distance: distance)
        return Step(kind: kind, label: label, length: length, target: target)
    }

    /// `<120` or `>160` after `hr`: the bound, in whole beats per minute.
    mutating func parseHeartRateBound() throws(PlanDiagnostic) -> HeartRateBound {
        let direction: HeartRateBound.Direction
        switch peek() {
        case UInt8(ascii: "<"): direction = .below
        case UInt8(ascii: ">"): direction = .above
        default:
            throw error(at: position, tr("expected '<' or '>' after 'hr', as in hr<120 walk"))
        }
        position += 1
        let digitsStart = position
        let digitsEnd = scanDigits(from: position)
        guard digitsEnd > digitsStart else {
            throw error(
                at: position, tr("expected a heart rate in beats per minute after 'hr<' or 'hr>', as in hr<120"))
        }
        position = digitsEnd
        if peek() == UInt8(ascii: "."), scanDigits(from: position + 1) > position + 1 {
            throw error(at: digitsStart, tr("a heart rate is a whole number of beats per minute"))
        }
        let digits = String(decoding: text[digitsStart..<digitsEnd], as: UTF8.self)
        guard let bpm = Int(digits), let bound = HeartRateBound(direction, bpm: bpm) else {
            throw error(
                at: digitsStart,
                tr(
                    "a heart rate must be from {lowest} to {highest} beats per minute",
                    ["lowest": "\(HeartRateBound.range.lowerBound)", "highest": "\(HeartRateBound.range.upperBound)"]))
        }
        // `bpm` may follow, as people write it; nothing else may.
        if readLetters() != "bpm", position > digitsEnd {
            throw error(at: digitsEnd, tr("a heart rate takes no unit but bpm, as in hr<120 or hr<120bpm"))
        }
        return bound
    }

    /// `400m` is 400 minutes, which a runner who meant a track's 400 metres does not see: a note says so when a step
    /// of 100 minutes or more is written in minutes alone.
    mutating func noteMinutesThatMayBeMetres(from start: Int, to end: Int) {
        let written = String(decoding: text[start..<end], as: UTF8.self)
        guard written.hasSuffix("m"), let minutes = Double(written.dropLast()), minutes >= 100 else { return }
        let number = String(written.dropLast())
        var note = error(
            at: start,
            tr(
                "{written} is {minutes} minutes; a distance is written {kilometres}km",
                ["written": written, "minutes": number, "kilometres": PlanWriter.number(minutes / 1000) ?? number]))
        note.isNote = true
        notes.append(note)
    }

    /// `"…"` with `\"` and `\\` escapes, on one line, without control characters: labels and names are shown on
    /// terminals and in notifications.
    enum Quoted { case name, label }

    mutating func parseString(what: Quoted) throws(PlanDiagnostic) -> String {
        let opening = position
        position += 1
        var bytes: [UInt8] = []
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if let control = controlCharacter(at: position) {
                throw error(
                    at: position,
                    what == .name
                        ? tr(
                            "control character U+{code} in a name (names are shown on terminals and in notifications)",
                            ["code": hex(control.value, digits: 4)])
                        : tr(
                            "control character U+{code} in a label (labels are shown on terminals and in notifications)",
                            ["code": hex(control.value, digits: 4)])
                )
            }
            position += 1
            if byte == UInt8(ascii: "\"") {
                guard !bytes.isEmpty else {
                    throw error(at: opening, what == .name ? tr("empty name") : tr("empty label"))
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\"), let escaped = peek(),
                escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\")
            {
                position += 1
                bytes.append(escaped)
            } else {
                bytes.append(byte)
            }
        }
        throw error(
            at: opening,
            what == .name
                ? tr("unterminated name (expected a closing '\"' on the same line)")
                : tr("unterminated label (expected a closing '\"' on the same line)"))
    }

    // MARK: Durations, distances, paces

    /// `45s`, `1m30s`, `1h5m`, `250ms`, `1.5h`, `1:30` (m:ss) or `1:02:03` (h:mm:ss), in microseconds; > 0.
    mutating func parseDuration() throws(PlanDiagnostic) -> Int64 {
        let start = position
        let digitsEnd = scanDigits(from: position)
        if digitsEnd < text.count, text[digitsEnd] == UInt8(ascii: ":") {
            return try parseClockDuration()
        }
        var total = 0.0
        var previousRank = Int.max
        repeat {
            let numberStart = position
            guard let number = readNumber() else {
                throw error(at: numberStart, tr("expected a duration such as 30s, 1m30s or 1:30"))
            }
            let unitStart = position
            let unit = readLetters()
            let rank: Int
            switch unit {
            case "h": rank = 3
            case "m", "min": rank = 2
            case "s": rank = 1
            case "ms": rank = 0
            case "":
                throw error(
                    at: unitStart,
                    tr("missing duration unit after '{number}' (expected ms, s, m or h)", ["number": number.text]))
            default:
                throw error(
                    at: unitStart, tr("unknown duration unit '{unit}' (expected ms, s, m or h)", ["unit": unit]))
            }
            guard rank < previousRank else {
                throw error(at: unitStart, tr("duration units must go from largest to smallest, as in 1h5m or 1m30s"))
            }
            previousRank = rank
            total += number.value * [1e3, 1e6, 6e7, 3.6e9][rank]
        } while peek().map(isDigit) == true
        return try checkedDuration(total, at: start)
    }

    mutating func parseClockDuration() throws(PlanDiagnostic) -> Int64 {
        let start = position
        var parts: [(value: Double, start: Int, length: Int)] = []
        while true {
            let partStart = position
            let end = scanDigits(from: position)
            guard end > partStart, end - partStart <= 9 else {
                throw error(at: partStart, tr("expected digits in a m:ss or h:mm:ss duration"))
            }
            parts.append(
                (Double(String(decoding: text[partStart..<end], as: UTF8.self)) ?? 0, partStart, end - partStart))
            position = end
            guard peek() == UInt8(ascii: ":") else { break }
            position += 1
        }
        guard parts.count <= 3 else { throw error(at: start, tr("a clock duration has at most three parts (h:mm:ss)")) }
        for part in parts.dropFirst() where part.length != 2 || part.value >= 60 {
            throw error(at: part.start, tr("expected two digits from 00 to 59 after ':'"))
        }
        if let byte = peek(), isLetter(byte) {
            throw error(at: position, tr("a m:ss or h:mm:ss duration takes no unit"))
        }
        let seconds = parts.reduce(0.0) { $0 * 60 + $1.value }
        return try checkedDuration(seconds * 1e6, at: start)
    }

    func checkedDuration(_ microseconds: Double, at start: Int) throws(PlanDiagnostic) -> Int64 {
        guard microseconds < Double(PlanLimits.maximumDuration) * 1000 else {
            throw error(at: start, PlanLimits.tooLongMessage)
        }
        let rounded = Int64(microseconds.rounded())
        guard rounded > 0 else { throw error(at: start, tr("duration must be greater than zero")) }
        return rounded
    }

    /// A distance such as `5km` or `3.1mi` in metres, or nil (position unchanged) when the text is a duration.
    /// `spaced`: a space may stand between the number and its unit (`5 km`), as people type a distance into the
    /// calculator; plan text keeps them together (`5km`), as every duration and distance of the language.
    mutating func distance(spaced: Bool = false) throws(PlanDiagnostic) -> Double? {
        let start = position
        guard let number = readNumber() else { return nil }
        if spaced { skipSpaces() }
        let unit = readLetters()
        switch unit {
        case "km": return number.value * 1000
        case "mi": return number.value * Pace.metresPerMile
        default:
            position = start
            return nil
        }
    }

    /// After `@`: a pace (``parsePace()``), a power (`200W`, `300-310W`) or a heart-rate range (`130-150bpm`).
    mutating func parseTarget() throws(PlanDiagnostic) -> StepTarget {
        skipSpacesAndComment()
        let start = position
        // Whole numbers, one or a range, then W or bpm; anything else is a pace, read again from the start.
        let lowEnd = scanDigits(from: start)
        guard lowEnd > start else { return .pace(try parsePace()) }
        var highStart: Int?
        var numbersEnd = lowEnd
        if lowEnd < text.count, text[lowEnd] == UInt8(ascii: "-") {
            let end = scanDigits(from: lowEnd + 1)
            guard end > lowEnd + 1 else {
                throw error(at: lowEnd + 1, tr("expected a number after '-', as in 130-150bpm or 300-310W"))
            }
            (highStart, numbersEnd) = (lowEnd + 1, end)
        } else if lowEnd < text.count, text[lowEnd] == UInt8(ascii: ":") {
            return .pace(try parsePace())
        }
        position = numbersEnd
        let fraction = peek() == UInt8(ascii: ".") && scanDigits(from: position + 1) > position + 1
        if fraction { position = scanDigits(from: position + 1) }
        skipSpaces()
        let unitStart = position
        while let byte = peek(), isLetter(byte) || byte == UInt8(ascii: "/") { position += 1 }
        let unit = String(decoding: text[unitStart..<position], as: UTF8.self)
        if fraction {
            guard ["W", "w", "bpm"].contains(unit) || highStart != nil else {
                position = start
                return .pace(try parsePace())
            }
            throw error(at: start, tr("a power or a heart rate is a whole number, as in 200W or 130-150bpm"))
        }
        let numbers = String(decoding: text[start..<numbersEnd], as: UTF8.self)
        // Digits beyond any Int are out of range all the same.
        let low = Int(String(decoding: text[start..<lowEnd], as: UTF8.self)) ?? .max
        let high = highStart.map { Int(String(decoding: text[$0..<numbersEnd], as: UTF8.self)) ?? .max } ?? low
        switch unit {
        case "W", "w":
            guard PowerTarget.range.contains(low), PowerTarget.range.contains(high) else {
                throw error(
                    at: start,
                    tr(
                        "a power must be from {lowest} to {highest} W",
                        ["lowest": "\(PowerTarget.range.lowerBound)", "highest": "\(PowerTarget.range.upperBound)"]))
            }
            guard let power = PowerTarget(low: low, high: high) else { throw lowFirst(at: start, low, high, unit) }
            return .power(power)
        case "bpm":
            guard highStart != nil else {
                throw error(
                    at: start,
                    tr(
                        "a heart-rate target is a range, as in {low}-{high}bpm",
                        ["low": "\(max(low, 35) - 5)", "high": "\(min(low, 245) + 5)"]))
            }
            guard HeartRateBound.range.contains(low), HeartRateBound.range.contains(high) else {
                throw error(
                    at: start,
                    tr(
                        "a heart rate must be from {lowest} to {highest} beats per minute",
                        [
                            "lowest": "\(HeartRateBound.range.lowerBound)",
                            "highest": "\(HeartRateBound.range.upperBound)",
                        ]))
            }
            guard let range = HeartRateRange(low: low, high: high) else { throw lowFirst(at: start, low, high, unit) }
            return .heartRate(range)
        case "" where highStart != nil:
            throw error(
                at: unitStart, tr("missing unit after '{number}' (expected W or bpm)", ["number": numbers]))
        case "":
            throw error(
                at: unitStart,
                tr(
                    "missing unit after '{number}' (expected a pace unit such as /km, W for a power or bpm for a range of heart rates)",
                    ["number": numbers]))
        case _ where highStart != nil:
            throw error(
                at: unitStart, tr("unknown unit '{unit}' for a range (expected W or bpm)", ["unit": unit]))
        default:
            position = start
            return .pace(try parsePace())
        }
    }

    /// A range written high to low (`150-130bpm`): the diagnostic shows it the right way round.
    private func lowFirst(at start: Int, _ low: Int, _ high: Int, _ unit: String) -> PlanDiagnostic {
        error(
            at: start,
            tr("the lower value comes first: {range}", ["range": "\(high)-\(low)\(unit)"]))
    }

    /// After `@`: `5:30/km`, `9:00/mi`, `10 km/h`, `6 mph`, `3.2 m/s`.
    mutating func parsePace() throws(PlanDiagnostic) -> Pace {
        skipSpacesAndComment()
        let start = position
        guard let byte = peek(), isDigit(byte) || byte == UInt8(ascii: ".") else {
            throw error(
                at: position, tr("expected a pace after '@', such as 5:30/km, 9:00/mi, 10 km/h, 6 mph or 3.2 m/s"))
        }
        var seconds: Double?
        var value = 0.0
        let digitsEnd = scanDigits(from: position)
        if digitsEnd < text.count, text[digitsEnd] == UInt8(ascii: ":") {
            let minutes = Double(String(decoding: text[position..<digitsEnd], as: UTF8.self)) ?? 0
            position = digitsEnd + 1
            let secondsStart = position
            let secondsEnd = scanDigits(from: position)
            let secondsValue = Double(String(decoding: text[secondsStart..<secondsEnd], as: UTF8.self)) ?? 60
            guard secondsEnd - secondsStart == 2, secondsValue < 60 else {
                throw error(at: secondsStart, tr("expected two digits from 00 to 59 after ':'"))
            }
            position = secondsEnd
            seconds = minutes * 60 + secondsValue
        } else if let number = readNumber() {
            value = number.value
        }
        let spaceStart = position
        skipSpaces()
        let unitStart = position
        while let byte = peek(), isLetter(byte) || byte == UInt8(ascii: "/") { position += 1 }
        let unit = String(decoding: text[unitStart..<position], as: UTF8.self)
        let metresPerSecond: Double
        switch (unit, seconds) {
        case ("/km", .some(let perKilometre)): metresPerSecond = 1000 / perKilometre
        case ("/mi", .some(let perMile)): metresPerSecond = Pace.metresPerMile / perMile
        case ("/km", nil): metresPerSecond = 1000 / (value * 60)
        case ("/mi", nil): metresPerSecond = Pace.metresPerMile / (value * 60)
        case ("km/h", nil), ("kph", nil): metresPerSecond = value / 3.6
        case ("mph", nil): metresPerSecond = value * Pace.metresPerMile / 3600
        case ("m/s", nil): metresPerSecond = value
        case ("", _):
            throw error(at: spaceStart, tr("missing pace unit (expected /km, /mi, km/h, mph or m/s)"))
        case (_, .some):
            throw error(at: unitStart, tr("a pace written as m:ss needs /km or /mi, not '{unit}'", ["unit": unit]))
        default:
            throw error(
                at: unitStart, tr("unknown pace unit '{unit}' (expected /km, /mi, km/h, mph or m/s)", ["unit": unit]))
        }
        guard metresPerSecond.isFinite, metresPerSecond > 0 else {
            throw error(at: start, tr("pace must be greater than zero"))
        }
        return Pace(metresPerSecond: metresPerSecond)
    }

    // MARK: Repeat heads

    /// If the text here is `N x` / `Nx` / `N×` before a group, consumes it and returns N.
    mutating func repeatCount() throws(PlanDiagnostic) -> Int? {
        let start = position
        let end = scanDigits(from: start)
        guard end > start else { return nil }
        var cursor = end
        while cursor < text.count, text[cursor] == UInt8(ascii: " ") || text[cursor] == UInt8(ascii: "\t") {
            cursor += 1
        }
        let markerLength: Int
        if cursor < text.count, text[cursor] == UInt8(ascii: "x") || text[cursor] == UInt8(ascii: "X") {
            markerLength = 1
        } else if text[cursor...].starts(with: [0xC3, 0x97]) {  // ×
            markerLength = 2
        } else {
            return nil
        }
        let after = cursor + markerLength
        if after < text.count, isLetter(text[after]) || isDigit(text[after]) { return nil }
        let digits = String(decoding: text[start..<end], as: UTF8.self)
        guard end - start <= 9, let count = Int(digits) else {
            throw error(
                at: start,
                tr(
                    "repeat count {count} is larger than the limit of {limit}",
                    ["count": digits, "limit": "\(PlanLimits.maximumRepeatCount)"]))
        }
        guard count >= 1 else { throw error(at: start, PlanLimitError.repeatCountTooSmall.message) }
        guard count <= PlanLimits.maximumRepeatCount else {
            throw error(at: start, PlanLimitError.repeatCountTooLarge(count).message)
        }
        position = after
        return count
    }

    // MARK: Lexical helpers

    func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < text.count ? text[position + ahead] : nil
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
    func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\n") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";")
            || byte == UInt8(ascii: "\r")
    }

    /// The character at `offset` if it could steer a terminal (a C0 or C1 control, DEL, a line or paragraph separator,
    /// a bidirectional override): ASCII controls by their byte, the others by their UTF-8 lead byte (0xC2 or 0xE2).
    func controlCharacter(at offset: Int) -> Unicode.Scalar? {
        let byte = text[offset]
        if byte < 0x20 || byte == 0x7F { return Unicode.Scalar(byte) }
        guard byte == 0xC2 || byte == 0xE2 else { return nil }
        let scalar = String(decoding: text[offset..<min(offset + 3, text.count)], as: UTF8.self).unicodeScalars.first
        return scalar.flatMap { $0.steersTerminal ? $0 : nil }
    }

    func scanDigits(from start: Int) -> Int {
        var end = start
        while end < text.count, isDigit(text[end]) { end += 1 }
        return end
    }

    /// `12` or `1.5`; nil (position unchanged) when no digits are here.
    mutating func readNumber() -> (value: Double, text: String)? {
        let start = position
        var end = scanDigits(from: start)
        if end < text.count, text[end] == UInt8(ascii: "."), end + 1 < text.count, isDigit(text[end + 1]) {
            end = scanDigits(from: end + 1)
        }
        guard end > start, let value = Double(String(decoding: text[start..<end], as: UTF8.self)) else { return nil }
        position = end
        return (value, String(decoding: text[start..<end], as: UTF8.self))
    }

    mutating func readLetters() -> String {
        let start = position
        while let byte = peek(), isLetter(byte) { position += 1 }
        return String(decoding: text[start..<position], as: UTF8.self)
    }

    /// A kind, directive or keyword: letters, digits, `_` and `-`.
    mutating func readWord() -> String {
        let start = position
        while let byte = peek(),
            isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        {
            position += 1
        }
        return String(decoding: text[start..<position], as: UTF8.self)
    }

    mutating func skipSpaces() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    /// Spaces and a trailing comment, not the line break.
    mutating func skipSpacesAndComment() {
        skipSpaces()
        if peek() == UInt8(ascii: "#") {
            let start = position
            while let byte = peek(), byte != UInt8(ascii: "\n") { position += 1 }
            if outlining {
                var end = position
                if end > start, text[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                comments.append((start, String(decoding: text[start..<end], as: UTF8.self)))
            }
        }
    }

    /// Spaces, comments and line breaks.
    mutating func skipBlank() {
        while true {
            skipSpacesAndComment()
            guard let byte = peek(), byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else { return }
            position += 1
        }
    }

    mutating func skipBlankAndSeparators() {
        while true {
            skipSpacesAndComment()
            guard let byte = peek(), isSeparator(byte) else { return }
            position += 1
        }
    }

    /// How to name what stands at `offset` in a message: `'walk'`, `'}'`, `byte 0x00`.
    func describeToken(at offset: Int) -> String {
        guard offset < text.count else { return tr("the end of the plan") }
        let byte = text[offset]
        if isLetter(byte) || isDigit(byte) {
            var end = offset
            while end < text.count,
                isLetter(text[end]) || isDigit(text[end]) || text[end] == UInt8(ascii: "_")
                    || text[end] == UInt8(ascii: "-") || text[end] == UInt8(ascii: ".")
                    || text[end] == UInt8(ascii: ":"),
                end - offset < 40
            {
                end += 1
            }
            return "'\(String(decoding: text[offset..<end], as: UTF8.self))'"
        }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte >= 0x80 {
            let scalar = String(decoding: text[offset..<min(offset + 4, text.count)], as: UTF8.self).unicodeScalars
                .first
            guard let scalar, scalar != "\u{FFFD}" else {
                return tr("byte 0x{code} (the text is not valid UTF-8 here)", ["code": hex(UInt32(byte), digits: 2)])
            }
            let properties = scalar.properties
            if properties.isAlphabetic || properties.isMath || properties.generalCategory == .otherPunctuation {
                return tr(
                    "character '{character}' (U+{code})",
                    ["character": "\(scalar)", "code": hex(scalar.value, digits: 4)])
            }
            return tr("character U+{code}", ["code": hex(scalar.value, digits: 4)])
        }
        return tr("control character 0x{code}", ["code": hex(UInt32(byte), digits: 2)])
    }

    /// Upper-case hexadecimal, zero-padded to `digits`.
    func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(digits - text.count, 0)) + text
    }

    func lineAndColumn(of offset: Int) -> String {
        let diagnostic = PlanDiagnostic.at(offset, in: text, origin: origin, "")
        return "\(diagnostic.line):\(diagnostic.column)"
    }

    /// Remembers where `word` (a directive, or a quantity of `intervalctl calc`) is given; a second time is an error
    /// that points at the first.
    mutating func once(_ word: String, at start: Int) throws(PlanDiagnostic) {
        if let first = directiveOffsets[word] {
            throw error(
                at: start,
                tr("'{word}' is given twice (first at {place})", ["word": word, "place": lineAndColumn(of: first)]))
        }
        directiveOffsets[word] = start
    }

    func error(at offset: Int, _ message: String) -> PlanDiagnostic {
        PlanDiagnostic.at(offset, in: text, origin: origin, message)
    }

    /// The group opened at `openedAt` is not closed by `closing` here: the text ends, or `found` stands instead.
    func unclosed(_ closing: UInt8, openedAt: Int, found: UInt8?) -> PlanDiagnostic {
        let closingText = String(Character(Unicode.Scalar(closing)))
        let place = lineAndColumn(of: openedAt)
        guard let found else {
            return error(
                at: position,
                tr(
                    "expected '{closing}' to close the group opened at {place}",
                    ["closing": closingText, "place": place]))
        }
        return error(
            at: position,
            tr(
                "expected '{closing}' to close the group opened at {place}, found '{found}'",
                ["closing": closingText, "place": place, "found": String(Character(Unicode.Scalar(found)))]))
    }

}

extension PlanLimits {
    static var tooLongMessage: String { PlanLimitError.tooLong.message }
}

extension PlanParser {
    /// Parses what `intervalctl calc` takes: two of a distance (`10mi`, `5km`), a time (`25:00`, `in 1h5m`) and a pace
    /// (`@ 9:00/mi`, `@ 12 km/h`), in any order, with the plan language's own units and diagnostics.
    public static func parseRun(_ text: String, origin: String) throws(PlanDiagnostic) -> RunCalculation.Given {
        var parser = PlanTextParser(text: Array(text.utf8), origin: origin)
        return try parser.parseRun()
    }
}

extension PlanTextParser {
    mutating func parseRun() throws(PlanDiagnostic) -> RunCalculation.Given {
        var given = RunCalculation.Given()
        // The distance's unit decides the answer's; without a distance, the pace's.
        var distanceInMiles: Bool?
        var paceInMiles: Bool?
        skipSpaces()
        while let byte = peek() {
            let start = position
            if byte == UInt8(ascii: "@") {
                position += 1
                try once(tr("pace"), at: start)
                given.pace = try parsePace()
                paceInMiles = endsInMiles(from: start)
            } else if !readLetters().isEmpty {
                guard String(decoding: text[start..<position], as: UTF8.self) == "in" else {
                    throw error(
                        at: start, tr("expected a distance (5km, 10mi), a time (25:00, in 1h) or '@' and a pace"))
                }
                try once(tr("time"), at: start)
                skipSpaces()
                guard peek().map(isDigit) == true else {
                    throw error(at: position, tr("expected a duration such as 30s, 1m30s or 1:30"))
                }
                given.time = try parseDuration()
            } else if let metres = try distance(spaced: true) {
                try once(tr("distance"), at: start)
                guard metres > 0, metres.isFinite else {
                    throw error(at: start, tr("distance must be greater than zero"))
                }
                given.metres = metres
                distanceInMiles = endsInMiles(from: start)
            } else if isDigit(byte) || byte == UInt8(ascii: ".") {
                try once(tr("time"), at: start)
                given.time = try parseDuration()
            } else {
                throw error(at: start, tr("expected a distance (5km, 10mi), a time (25:00, in 1h) or '@' and a pace"))
            }
            skipSpaces()
        }
        guard given.count == 2 else {
            throw error(
                at: given.count < 2 ? position : 0,
                tr(
                    "give two of a distance (5km, 10mi), a time (25:00, in 1h) and a pace (@ 5:00/km); the third is solved"
                ))
        }
        given.miles = distanceInMiles ?? paceInMiles ?? false
        return given
    }

    /// Whether what was read from `start` is in miles (`10mi`, `@ 9:00/mi`, `@ 6 mph`).
    func endsInMiles(from start: Int) -> Bool {
        let read = String(decoding: text[start..<position], as: UTF8.self)
        return read.hasSuffix("mi") || read.hasSuffix("mph")
    }
}

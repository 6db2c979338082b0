/// A plan as the window's editor holds it (docs/window.md, "Editing a plan"): every field in the author's own words
/// (`1:30` stays `1:30`), every comment with the item it stands by, and edits by index path. Its ``text`` is the
/// plan language in the canonical layout, which ``PlanDraft/init(parsing:)`` reads back to the same draft; the draft
/// need not be a valid plan, for the parser of that text is what says what is wrong, and where.
public struct PlanDraft: Sendable, Equatable {
    /// The `name` directive; empty for none (the plan is then named after its file).
    public var name: String
    /// The `countdown` directive's duration; empty for none.
    public var countdown: String
    /// The comments above the items: before, between and after the directives.
    public var headerComments: [String]
    public var items: [Item]
    /// The comments after the last item.
    public var closingComments: [String]

    /// `DURATION KIND ["LABEL"] [@ TARGET]`, each field as written; an empty label or target is none. The one description
    /// of a step's line: the parser's outline reads it, the editor's rows hold it, and ``line`` writes it for the draft
    /// and for ``PlanWriter`` alike.
    public struct Step: Sendable, Equatable {
        public var duration: String
        public var kind: String
        public var label: String
        /// After `@`: a pace, a power or a heart-rate range (`5:00/km`, `200W`, `130-150bpm`).
        public var target: String

        public init(duration: String, kind: String, label: String = "", target: String = "") {
            (self.duration, self.kind, self.label, self.target) = (duration, kind, label, target)
        }

        /// A plan's step as ``PlanWriter`` writes it: the shortest exact duration and target, the label only when it is
        /// not the kind's own.
        public init(_ step: IntervalCore.Step) {
            self.init(
                duration: step.distance.map(PlanWriter.distance) ?? step.heartRateBound?.planText
                    ?? (step.isOpen ? PlanTextParser.openWord : PlanWriter.duration(step.duration)),
                kind: step.kind,
                label: step.label != IntervalCore.Step.defaultLabel(for: step.kind) ? step.label : "",
                target: step.target?.planText ?? "")
        }

        /// `90s run "Uphill" @ 5:00/km`: the fields as they are, the label quoted.
        public var line: String {
            var text = "\(duration) \(kind)"
            if !label.isEmpty { text += " \(PlanWriter.quoted(label))" }
            if !target.isEmpty { text += " @ \(target)" }
            return text
        }

        /// How a step the person ends reads in its row beside its fields: "until Done", "0.4 km, until Done"; nil for a
        /// timed step, or while its fields are not a step.
        public var untilDone: String? {
            // The step alone, not a plan of it: a plan needs some timed time, and this step may have none.
            var parser = PlanTextParser(text: Array(trimmed.line.utf8), origin: "")
            guard let step = try? parser.parseStep(), parser.position == parser.text.count, step.isOpen else {
                return nil
            }
            return PlanReport.length(of: step)
        }

        /// The fields without the spaces typed around them.
        var trimmed: Step {
            Step(
                duration: duration.trimmingSpaces, kind: kind.trimmingSpaces, label: label.trimmingSpaces,
                target: target.trimmingSpaces)
        }
    }

    /// `6x { … }` or `for 45m { … }`.
    public struct Group: Sendable, Equatable {
        /// `6x`, `for 45m` or `for 5km`: what ``repetitionHead(_:)`` makes of what was typed.
        public var repetition: String
        public var items: [Item]
        public var closingComments: [String]

        public init(repetition: String, items: [Item], closingComments: [String] = []) {
            (self.repetition, self.items, self.closingComments) = (repetition, items, closingComments)
        }
    }

    public enum Content: Sendable, Equatable {
        case step(Step)
        case group(Group)
    }

    public struct Item: Sendable, Equatable {
        /// Whole-line comments just above the item.
        public var comments: [String]
        /// A comment at the end of the item's line (a group's: of its head's line).
        public var trailingComment: String?
        public var content: Content

        public init(_ content: Content, comments: [String] = [], trailingComment: String? = nil) {
            (self.content, self.comments, self.trailingComment) = (content, comments, trailingComment)
        }

        public static func step(_ step: Step) -> Item { Item(.step(step)) }
    }

    /// A new plan's draft: its name and one step to start from.
    public init(name: String, items: [Item] = [.step(Step(duration: "30s", kind: "run"))]) {
        self.init(name: name, countdown: "", headerComments: [], items: items, closingComments: [])
    }

    public init(name: String, countdown: String, headerComments: [String], items: [Item], closingComments: [String]) {
        (self.name, self.countdown, self.headerComments, self.items, self.closingComments) = (
            name, countdown, headerComments, items, closingComments
        )
    }

    /// The draft of a valid plan's text, every comment kept; the parser's diagnostic when it is not valid.
    public init(parsing text: String) throws(PlanDiagnostic) {
        let outline = try PlanParser.outline(text)
        var comments = outline.comments.map { comment in
            // A trailing comment has something other than spaces before it on its line.
            var lineStart = comment.offset
            while lineStart > 0, outline.text[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
            let ownLine = outline.text[lineStart..<comment.offset].allSatisfy {
                $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t")
            }
            return Comment(offset: comment.offset, text: comment.text, ownLine: ownLine)
        }[...]
        var header: [String] = []
        while let first = comments.first, first.offset < outline.headerEnd {
            header.append(first.text)
            comments.removeFirst()
        }
        var closing: [String] = []
        let items = Self.items(outline.items, comments: &comments, closing: &closing, end: outline.text.count)
        self.init(
            name: outline.name ?? "", countdown: outline.countdown ?? "", headerComments: header, items: items,
            closingComments: closing)
    }

    private struct Comment {
        var offset: Int
        var text: String
        var ownLine: Bool
    }

    /// Gives each comment before `end` to an item of `outline`: a trailing one to the item it ends the line of (or is
    /// inside), a whole-line one to the item below it; what is left before `end` goes to `closing`.
    private static func items(
        _ outline: [PlanOutline.Item], comments: inout ArraySlice<Comment>, closing: inout [String], end: Int
    ) -> [Item] {
        var items: [Item] = []
        for entry in outline {
            var item: Item
            var leading: [String] = []
            var trailing: [String] = []
            while let comment = comments.first, comment.offset < entry.start {
                if comment.ownLine || items.isEmpty {
                    leading.append(comment.text)
                } else {
                    items[items.count - 1].trailingComment = joined(
                        items[items.count - 1].trailingComment, comment.text)
                }
                comments.removeFirst()
            }
            switch entry.content {
            case .step(let step):
                item = Item(.step(step))
            case .group(let head, let bodyStart, let children):
                // Between the head and its brace: the head's own comment.
                while let comment = comments.first, comment.offset < bodyStart {
                    trailing.append(comment.text)
                    comments.removeFirst()
                }
                var groupClosing: [String] = []
                let inner = Self.items(children, comments: &comments, closing: &groupClosing, end: entry.end)
                item = Item(.group(Group(repetition: head, items: inner, closingComments: groupClosing)))
            }
            // Within a step's line (after its kind or label): its trailing comment.
            while let comment = comments.first, comment.offset < entry.end {
                trailing.append(comment.text)
                comments.removeFirst()
            }
            item.comments = leading
            item.trailingComment = trailing.isEmpty ? nil : trailing.joined(separator: " ")
            items.append(item)
        }
        while let comment = comments.first, comment.offset < end {
            if !comment.ownLine, !items.isEmpty {
                items[items.count - 1].trailingComment = joined(items[items.count - 1].trailingComment, comment.text)
            } else {
                closing.append(comment.text)
            }
            comments.removeFirst()
        }
        return items
    }

    private static func joined(_ first: String?, _ second: String) -> String {
        first.map { "\($0) \(second)" } ?? second
    }

    // MARK: Text

    /// The plan language in the canonical layout: comments, the directives, a blank line, then one item per line,
    /// groups in braces indented by two spaces.
    public var text: String { written().text }

    /// The text, and the line (1-based) each item starts on, by index path: a diagnostic's line names its row.
    public func written() -> (text: String, itemLines: [(path: [Int], line: Int)]) {
        var lines = headerComments
        if !name.trimmingSpaces.isEmpty { lines.append("name \(PlanWriter.quoted(name.trimmingSpaces))") }
        if !countdown.trimmingSpaces.isEmpty { lines.append("countdown \(countdown.trimmingSpaces)") }
        if !lines.isEmpty { lines.append("") }
        var itemLines: [(path: [Int], line: Int)] = []
        Self.write(items, closing: closingComments, path: [], into: &lines, itemLines: &itemLines)
        return (lines.joined(separator: "\n") + "\n", itemLines)
    }

    private static func write(
        _ items: [Item], closing: [String], path: [Int], into lines: inout [String],
        itemLines: inout [(path: [Int], line: Int)]
    ) {
        let indent = String(repeating: "  ", count: path.count)
        for (index, item) in items.enumerated() {
            lines += item.comments.map { indent + $0 }
            itemLines.append((path + [index], lines.count + 1))
            let trailing = item.trailingComment.map { "  " + $0 } ?? ""
            switch item.content {
            case .step(let step):
                lines.append(indent + step.trimmed.line + trailing)
            case .group(let group):
                lines.append("\(indent)\(repetitionHead(group.repetition)) {" + trailing)
                write(
                    group.items, closing: group.closingComments, path: path + [index], into: &lines,
                    itemLines: &itemLines)
                lines.append(indent + "}")
            }
        }
        lines += closing.map { indent + $0 }
    }

    /// A repeat's head from what was typed in its field: `6` or `6x` → `6x`; `45m`, `5km` or `for 45m` → `for 45m`.
    public static func repetitionHead(_ typed: String) -> String {
        let text = typed.trimmingSpaces
        if text.isEmpty || text.hasPrefix("for ") { return text }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let rest = text.dropFirst(digits.count).trimmingSpaces
        if !digits.isEmpty, rest.isEmpty || rest == "x" || rest == "X" || rest == "×" { return "\(digits)x" }
        return "for \(text)"
    }

    /// The index path of the item a diagnostic on `line` is about: the last item that starts on or before it.
    public func path(forLine line: Int) -> [Int]? {
        written().itemLines.last { $0.line <= line }?.path
    }

    // MARK: Edits

    /// The item at `path`, or nil when there is none.
    public func item(at path: [Int]) -> Item? {
        guard let first = path.first, items.indices.contains(first) else { return nil }
        var item = items[first]
        for index in path.dropFirst() {
            guard case .group(let group) = item.content, group.items.indices.contains(index) else { return nil }
            item = group.items[index]
        }
        return item
    }

    /// Replaces the item at `path` (which must exist).
    public mutating func replace(at path: [Int], with item: Item) {
        guard let index = path.last else { return }
        withItems(in: path.dropLast()) { if $0.indices.contains(index) { $0[index] = item } }
    }

    /// Adds `item` just after the item at `path`, in the same group, or at the end of the plan for nil; returns where
    /// it went.
    @discardableResult
    public mutating func add(_ item: Item, at path: [Int]?) -> [Int] {
        guard let path, self.item(at: path) != nil else {
            items.append(item)
            return [items.count - 1]
        }
        let index = path[path.count - 1] + 1
        withItems(in: path.dropLast()) { $0.insert(item, at: index) }
        return Array(path.dropLast()) + [index]
    }

    /// Removes the item at `path` and returns it.
    @discardableResult
    public mutating func remove(at path: [Int]) -> Item? {
        guard let index = path.last, item(at: path) != nil else { return nil }
        return withItems(in: path.dropLast()) { $0.remove(at: index) }
    }

    /// A copy of the item at `path` just after it; returns the copy's path.
    @discardableResult
    public mutating func duplicate(at path: [Int]) -> [Int]? {
        guard let index = path.last, let item = item(at: path) else { return nil }
        withItems(in: path.dropLast()) { $0.insert(item, at: index + 1) }
        return Array(path.dropLast()) + [index + 1]
    }

    /// Moves the item at `path` one place up in the plan as it reads: above its neighbour, into the end of a group
    /// just above it, or out above its own group when it is first in it. Returns its new path.
    @discardableResult
    public mutating func moveUp(at path: [Int]) -> [Int]? {
        guard let index = path.last, let moved = item(at: path) else { return nil }
        let parent = Array(path.dropLast())
        if index == 0 {
            guard !parent.isEmpty else { return nil }
            remove(at: path)
            let parentIndex = parent[parent.count - 1]
            withItems(in: parent.dropLast()) { $0.insert(moved, at: parentIndex) }
            return Array(parent.dropLast()) + [parentIndex]
        }
        let above = parent + [index - 1]
        remove(at: path)
        if case .group(let group)? = item(at: above)?.content {
            withItems(in: above[...]) { $0.append(moved) }
            return above + [group.items.count]
        }
        withItems(in: parent[...]) { $0.insert(moved, at: index - 1) }
        return above
    }

    /// Moves the item at `path` one place down in the plan as it reads: below its neighbour, into the start of a group
    /// just below it, or out below its own group when it is last in it. Returns its new path.
    @discardableResult
    public mutating func moveDown(at path: [Int]) -> [Int]? {
        guard let index = path.last, let moved = item(at: path) else { return nil }
        let parent = Array(path.dropLast())
        let siblings = withItems(in: parent[...]) { $0.count }
        if index == siblings - 1 {
            guard !parent.isEmpty else { return nil }
            remove(at: path)
            let parentIndex = parent[parent.count - 1]
            withItems(in: parent.dropLast()) { $0.insert(moved, at: parentIndex + 1) }
            return Array(parent.dropLast()) + [parentIndex + 1]
        }
        let below = parent + [index + 1]
        if case .group = item(at: below)?.content {
            remove(at: path)
            withItems(in: (parent + [index])[...]) { $0.insert(moved, at: 0) }
            return parent + [index, 0]
        }
        remove(at: path)
        withItems(in: parent[...]) { $0.insert(moved, at: index + 1) }
        return below
    }

    /// Runs `body` on the items of the group at `path` (the top level for an empty path).
    @discardableResult
    private mutating func withItems<Value>(in path: ArraySlice<Int>, _ body: (inout [Item]) -> Value) -> Value {
        Self.withItems(&items, path, body)
    }

    private static func withItems<Value>(
        _ items: inout [Item], _ path: ArraySlice<Int>, _ body: (inout [Item]) -> Value
    ) -> Value {
        guard let first = path.first else { return body(&items) }
        guard items.indices.contains(first), case .group(var group) = items[first].content else {
            var none: [Item] = []
            return body(&none)
        }
        let value = withItems(&group.items, path.dropFirst(), body)
        items[first].content = .group(group)
        return value
    }
}

extension StringProtocol {
    /// Without the spaces, tabs and line breaks at either end.
    public var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

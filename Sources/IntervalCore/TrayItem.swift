/// The workout as a tray item (docs/reference.md §12): a StatusNotifierItem, which KDE Plasma's system tray,
/// xfce4-panel, waybar and GNOME's AppIndicator extension show, with a `com.canonical.dbusmenu` menu. Its names, what
/// it shows and when it refreshes are defined here once, for the bus adapter (`TrayOutput`), its tables and the tests.
public enum TrayItem {
    public static let interface = "org.kde.StatusNotifierItem"
    public static let objectPath = "/StatusNotifierItem"
    /// `Id`: stable across runs, so that hosts remember where the user put the item.
    public static let id = "intervald"
    public static let category = "ApplicationStatus"
    /// The desktop's StatusNotifierWatcher, which the item registers with: its well-known name (its interface's name
    /// too) and its object.
    public static let watcherService = "org.kde.StatusNotifierWatcher", watcherPath = "/StatusNotifierWatcher"
    public static let registerMethod = "RegisterStatusNotifierItem"

    /// The name the item is owned under while a workout exists, as the StatusNotifierItem specification spells it;
    /// releasing it is what removes the item from every host.
    public static func service(pid: Int32) -> String { "org.kde.StatusNotifierItem-\(pid)-1" }

    /// The signals that make hosts read the item again (they re-read a property only after its signal).
    public enum Signal: String, Sendable, CaseIterable {
        case newTitle = "NewTitle", newIcon = "NewIcon", newAttentionIcon = "NewAttentionIcon"
        case newOverlayIcon = "NewOverlayIcon", newToolTip = "NewToolTip", newStatus = "NewStatus"
        case newLabel = "XAyatanaNewLabel"
    }

    /// What a click or a scroll on the item does.
    public enum Click: Sendable, Equatable {
        /// `Activate` (left click): open the window; where there is none, pause or resume.
        case openWindow
        /// `SecondaryActivate` (middle click): pause or resume.
        case pauseOrResume
        /// `ContextMenu`, `Scroll`: nothing; hosts show the menu themselves from `Menu`.
        case nothing
    }

    public static let clicks: [String: Click] = [
        "Activate": .openWindow, "SecondaryActivate": .pauseOrResume, "ContextMenu": .nothing, "Scroll": .nothing,
    ]
}

/// What the tray item shows at one instant.
public struct TrayView: Sendable, Equatable {
    public var tone: WorkoutDisplay.Tone
    /// `Title` and the tooltip's title: "Run · 0:23 — next: Walk 1:00".
    public var title: String
    /// The tooltip's text: "Galloway 30/30 · round 3 of 8".
    public var detail: String
    /// `XAyatanaLabel`: the countdown, "0:23".
    public var label: String
    /// `XAyatanaLabelGuide`: the widest the label gets in this segment ("0:00"), so that the panel keeps its width.
    public var labelGuide: String
    /// What its menu offers: Resume or Pause, Done or Skip.
    public var menu: TrayMenu.State
    public var paused: Bool { menu.paused }

    /// `status` (as of now) in `segment` of `plan`; nil when no workout exists.
    public init?(status: TimerStatus, segment: Segment, plan: Plan, restKinds: Set<String>) {
        guard status.state != .idle else { return nil }
        menu = TrayMenu.State(paused: status.state == .paused, open: segment.isOpen)
        tone = menu.paused ? .paused : ToneColours.tone(ofKind: segment.kind, restKinds: restKinds)
        label = StatusText.remaining(status)
        // An open step counts up, to no known end: its guide is a quarter of an hour's.
        labelGuide = String(
            TimeText.countdown(microseconds: segment.isOpen ? 15 * 60_000_000 : segment.duration)
                .map { $0.isNumber ? "0" : $0 })
        let current = segment.displayLabel
        // A step the person ends counts up: its time is how long it has played, and what ends it is said.
        let time = segment.isOpen ? tr("{time}, until Done", ["time": label]) : label
        if menu.paused {
            title = tr("{current} · {time} — paused", ["current": current, "time": time])
        } else if let next = plan.segment(after: segment) {
            title = tr(
                "{current} · {time} — next: {next} {nextTime}",
                [
                    "current": current, "time": time, "next": next.displayLabel,
                    "nextTime": next.isOpen
                        ? next.distance.map(PlanReport.shortDistanceText) ?? tr("until Done")
                        : TimeText.clock(microseconds: next.duration),
                ])
        } else {
            title = tr("{current} · {time} — last one", ["current": current, "time": time])
        }
        detail = "\(plan.displayName) · \(WorkoutPresenter.position(segment, in: plan))"
    }

    /// `IconName`: the icon of the tone, in the installed icon theme.
    public var iconName: String { TrayIcon.name(tone) }
}

/// When the tray item's countdown refreshes: once a second, a tenth of a second after the shown second changed, so
/// that no refresh (nor the hosts' reads that follow it) falls on a cue's instant or a countdown pip, which are whole
/// seconds before the change. The countdown shows a second's change 100 ms late.
public enum TrayRefresh {
    public static let afterTheSecond: Int64 = 100_000

    /// The next refresh after `now`, for a segment ending at `change`; nil in the segment's last second, whose end the
    /// change itself shows.
    public static func next(after now: ClockInstant, change: ClockInstant) -> ClockInstant? {
        let remaining = change - now
        // The refresh instants are `change - k s + 100 ms` for k ≥ 1, i.e. `remaining = k s - 100 ms`; the next one
        // is the largest below `remaining`.
        let k = (remaining + afterTheSecond - 1) / 1_000_000
        guard k >= 1 else { return nil }
        return change - k * 1_000_000 + afterTheSecond
    }

    /// The next refresh after `now` of a count-up that was at 0 at `start`: just after its next whole second.
    public static func next(after now: ClockInstant, countingUpFrom start: ClockInstant) -> ClockInstant {
        let passed = now - start - afterTheSecond
        let k = passed < 0 ? 0 : passed / 1_000_000 + 1
        return start + k * 1_000_000 + afterTheSecond
    }
}

/// The tray item's menu (`com.canonical.dbusmenu`, docs/reference.md §12): Pause/Resume, Skip, Stop and Open
/// Interval Timer. Its layout never changes; the first item's label follows the workout's state.
public enum TrayMenu {
    public static let interface = "com.canonical.dbusmenu"
    public static let objectPath = "/MenuBar"
    /// The dbusmenu protocol version: 3 and up, libdbusmenu's hosts (waybar, Xfce) use the group calls.
    public static let version: UInt32 = 3
    /// The root item's id.
    public static let root: Int32 = 0

    public enum Entry: Int32, Sendable, CaseIterable {
        case pauseResume = 1, skip, stop, openWindow
    }

    /// What choosing an entry does.
    public enum Action: Sendable, Equatable {
        case control(MediaPlayer.Control)
        case openWindow
    }

    /// An item property's value: dbusmenu's are strings and booleans here.
    public enum Value: Sendable, Equatable {
        case string(String)
        case boolean(Bool)
    }

    public static func action(_ entry: Entry) -> Action {
        switch entry {
        case .pauseResume: .control(.playPause)
        case .skip: .control(.next)
        case .stop: .control(.stop)
        case .openWindow: .openWindow
        }
    }

    /// The properties of item `id` (the root: 0) when the workout is `paused`, in a stable order; nil for an unknown
    /// id.
    /// What the menu's entries depend on.
    public struct State: Sendable, Equatable {
        public var paused = false
        /// A step the person ends plays: Skip reads Done.
        public var open = false

        public init(paused: Bool = false, open: Bool = false) {
            (self.paused, self.open) = (paused, open)
        }
    }

    public static func properties(of id: Int32, menu: State) -> [(name: String, value: Value)]? {
        let paused = menu.paused
        if id == root { return [("children-display", .string("submenu"))] }
        guard let entry = Entry(rawValue: id) else { return nil }
        switch entry {
        case .pauseResume:
            let action: NotificationAction = paused ? .resume : .pause
            return [
                ("label", .string(mnemonicFree(action.label))),
                ("icon-name", .string(paused ? "media-playback-start" : "media-playback-pause")),
            ]
        case .skip:
            return [
                ("label", .string(mnemonicFree((menu.open ? NotificationAction.done : .skip).label))),
                ("icon-name", .string("media-skip-forward")),
            ]
        case .stop:
            return [
                ("label", .string(mnemonicFree(NotificationAction.stop.label))),
                ("icon-name", .string("media-playback-stop")),
            ]
        case .openWindow: return [("label", .string(mnemonicFree(tr("Open Interval Timer"))))]
        }
    }

    /// The item ids under `id`: the root's entries, none under an entry.
    public static func children(of id: Int32) -> [Int32] {
        id == root ? Entry.allCases.map(\.rawValue) : []
    }

    /// dbusmenu reads `_` as a mnemonic mark; a label shows its own as `__`.
    static func mnemonicFree(_ label: String) -> String {
        label.replacing("_", with: "__")
    }
}

/// The StatusNotifierItem's properties (docs/reference.md §12) with their D-Bus types: the getters and the interface
/// table (``TrayItem/interfaceTable``) come from this table. Hosts re-read them after the `New*` signals, never after
/// `PropertiesChanged`.
public enum TrayItemProperty: String, Sendable, CaseIterable {
    case category = "Category", id = "Id", title = "Title", status = "Status", windowID = "WindowId"
    case iconName = "IconName", iconPixmap = "IconPixmap", iconThemePath = "IconThemePath"
    case overlayIconName = "OverlayIconName", overlayIconPixmap = "OverlayIconPixmap"
    case attentionIconName = "AttentionIconName", attentionIconPixmap = "AttentionIconPixmap"
    case attentionMovieName = "AttentionMovieName"
    case toolTip = "ToolTip", itemIsMenu = "ItemIsMenu", menu = "Menu"
    /// Ayatana's, which GNOME's AppIndicator extension shows: a text beside the icon, the text whose width it keeps,
    /// the item's place among the others.
    case label = "XAyatanaLabel", labelGuide = "XAyatanaLabelGuide", orderingIndex = "XAyatanaOrderingIndex"

    public var signature: String {
        switch self {
        case .category, .id, .title, .status, .iconName, .iconThemePath, .overlayIconName, .attentionIconName,
            .attentionMovieName, .label, .labelGuide:
            "s"
        case .windowID: "i"
        case .orderingIndex: "u"
        case .iconPixmap, .overlayIconPixmap, .attentionIconPixmap: "a(iiay)"
        case .toolTip: "(sa(iiay)ss)"
        case .itemIsMenu: "b"
        case .menu: "o"
        }
    }

    /// The signal after which hosts read it again; nil for a constant.
    public var signal: TrayItem.Signal? {
        switch self {
        case .title: .newTitle
        case .status: .newStatus
        case .iconName, .iconPixmap: .newIcon
        case .toolTip: .newToolTip
        case .label, .labelGuide: .newLabel
        case .category, .id, .windowID, .iconThemePath, .overlayIconName, .overlayIconPixmap, .attentionIconName,
            .attentionIconPixmap, .attentionMovieName, .itemIsMenu, .menu, .orderingIndex:
            nil
        }
    }

    public var doc: String {
        switch self {
        case .category: "\"\(TrayItem.category)\"."
        case .id: "\"\(TrayItem.id)\"."
        case .title: "The cue and the time left: \"Run · 0:23 — next: Walk 1:00\" (`NewTitle`)."
        case .status: "\"Active\" (`NewStatus`)."
        case .windowID: "0: no window of the daemon's."
        case .iconName:
            "`org.intervald.Timer1-work`, `-rest` or `-paused` when the icons are installed, else empty (`NewIcon`)."
        case .iconPixmap: "The same icon as ARGB32 pixels, 22, 32 and 48 px square (`NewIcon`)."
        case .iconThemePath: "The installed icon theme directory holding the icons, or empty."
        case .overlayIconName, .attentionIconName, .attentionMovieName: "Empty."
        case .overlayIconPixmap, .attentionIconPixmap: "Empty."
        case .toolTip:
            "The icon's name, no pixmap, `Title` as the title and the plan and where in it as the text "
                + "(\"Galloway 30/30 · round 3 of 8\") (`NewToolTip`)."
        case .itemIsMenu: "false: a left click is `Activate`, the menu is on the right button."
        case .menu: "`\(TrayMenu.objectPath)`, the menu (`\(TrayMenu.interface)`)."
        case .label: "The countdown, \"0:23\", for hosts that draw a label (`XAyatanaNewLabel`)."
        case .labelGuide: "The widest the label gets in this segment, \"0:00\" (`XAyatanaNewLabel`)."
        case .orderingIndex: "0."
        }
    }

    var member: BusInterface.Member {
        .property(name: rawValue, signature: signature, change: signal == nil ? .constant : .readTime, doc: doc)
    }
}

extension TrayItem {
    /// `org.kde.StatusNotifierItem` as a table.
    public static let interfaceTable = BusInterface(
        name: interface, path: objectPath,
        summary: "The tray item, under `org.kde.StatusNotifierItem-PID-1` while a workout exists.",
        members: TrayItemProperty.allCases.map(\.member) + [
            click(
                "Activate",
                "A left click: opens the Interval Timer window; where it is not installed, pauses or resumes."),
            click("SecondaryActivate", "A middle click: pauses or resumes."),
            click("ContextMenu", "Does nothing: hosts show `Menu`."),
            .method(
                name: "Scroll", arguments: [.init("delta", "i"), .init("orientation", "s")], results: [],
                doc: "Does nothing."),
            .method(
                name: "ProvideXdgActivationToken", arguments: [.init("token", "s")], results: [],
                doc: "Does nothing (Plasma on Wayland sends it before `Activate`)."),
            .signal(name: Signal.newTitle.rawValue, arguments: [], doc: "`Title` changed: each second."),
            .signal(name: Signal.newIcon.rawValue, arguments: [], doc: "The icon changed: work, rest or paused."),
            .signal(name: Signal.newAttentionIcon.rawValue, arguments: [], doc: "Never sent."),
            .signal(name: Signal.newOverlayIcon.rawValue, arguments: [], doc: "Never sent."),
            .signal(name: Signal.newToolTip.rawValue, arguments: [], doc: "`ToolTip` changed: each second."),
            .signal(
                name: Signal.newStatus.rawValue, arguments: [.init("status", "s")], doc: "Sent as the item appears."),
            .signal(
                name: Signal.newLabel.rawValue, arguments: [.init("label", "s"), .init("guide", "s")],
                doc: "The countdown label changed: each second."),
        ])

    /// A method of a click on the item, at the pointer's screen position.
    private static func click(_ name: String, _ doc: String) -> BusInterface.Member {
        .method(name: name, arguments: [.init("x", "i"), .init("y", "i")], results: [], doc: doc)
    }
}

extension TrayMenu {
    /// `com.canonical.dbusmenu` as a table.
    public static let interfaceTable = BusInterface(
        name: interface, path: objectPath,
        summary: "The tray item's menu: Pause/Resume, Skip, Stop, Open Interval Timer (ids 1 to 4).",
        members: [
            .property(name: "Version", signature: "u", change: .constant, doc: "\(version)."),
            .property(name: "TextDirection", signature: "s", change: .constant, doc: "\"ltr\" or \"rtl\"."),
            .property(name: "Status", signature: "s", change: .constant, doc: "\"normal\"."),
            .property(name: "IconThemePath", signature: "as", change: .constant, doc: "Empty."),
            .method(
                name: "GetLayout",
                arguments: [.init("parentId", "i"), .init("recursionDepth", "i"), .init("propertyNames", "as")],
                results: [.init("revision", "u"), .init("layout", "(ia{sv}av)")],
                doc: "The items under `parentId`, `recursionDepth` deep (-1: all)."),
            .method(
                name: "GetGroupProperties", arguments: [.init("ids", "ai"), .init("propertyNames", "as")],
                results: [.init("properties", "a(ia{sv})")], doc: "The properties of `ids` (all items if empty)."),
            .method(
                name: "GetProperty", arguments: [.init("id", "i"), .init("name", "s")],
                results: [.init("value", "v")], doc: "One property of one item."),
            .method(
                name: "Event",
                arguments: [
                    .init("id", "i"), .init("eventId", "s"), .init("data", "v"), .init("timestamp", "u"),
                ], results: [], doc: "`clicked` on an item does what it says; other events do nothing."),
            .method(
                name: "EventGroup", arguments: [.init("events", "a(isvu)")], results: [.init("idErrors", "ai")],
                doc: "Several `Event`s; answers the ids that are no item."),
            .method(
                name: "AboutToShow", arguments: [.init("id", "i")], results: [.init("needUpdate", "b")],
                doc: "false: the layout is always current."),
            .method(
                name: "AboutToShowGroup", arguments: [.init("ids", "ai")],
                results: [.init("updatesNeeded", "ai"), .init("idErrors", "ai")],
                doc: "None needs an update; answers the ids that are no item."),
            .signal(
                name: "ItemsPropertiesUpdated",
                arguments: [.init("updatedProps", "a(ia{sv})"), .init("removedProps", "a(ias)")],
                doc: "Pause became Resume, or back."),
            .signal(
                name: "LayoutUpdated", arguments: [.init("revision", "u"), .init("parent", "i")],
                doc: "Sent with `ItemsPropertiesUpdated`, for hosts that only re-read the layout."),
            .signal(
                name: "ItemActivationRequested", arguments: [.init("id", "i"), .init("timestamp", "u")],
                doc: "Never sent."),
        ])
}

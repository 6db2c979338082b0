import CSystemd
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// The workout as a tray item (docs/reference.md §12): a StatusNotifierItem at `/StatusNotifierItem` and its dbusmenu
/// at `/MenuBar`, owned as `org.kde.StatusNotifierItem-PID-1` while a workout exists and registered with the
/// `org.kde.StatusNotifierWatcher` of the desktop, now and whenever a watcher appears later. Releasing the name at the
/// end removes the item from every host.
///
/// An output of the session after the instant. Between changes, while a watcher has taken the item, it refreshes the
/// countdown once a second (``TrayRefresh``), off the cues' instants, with the `New*` signals that make hosts read it
/// again. Everything runs on the daemon's queue, which owns the connection.
public final class TrayOutput: WorkoutOutput, @unchecked Sendable {
    private let service: String
    private let logger: Logger
    private let refreshTimer: any TimerSource
    private let exported: ExportedTray
    /// The two objects, while a workout exists.
    private var objects: [BusObject] = []
    /// Watches for a watcher that appears later.
    private var watcherMatch: BusSlot?
    private let watcherContext: Unmanaged<WatcherContext>
    /// When the current segment ends, while running.
    private var nextChange: ClockInstant?
    /// In a step the person ends: the instant its count-up was at 0 (pauses left out).
    private var countUpStart: ClockInstant?
    /// A watcher took the item: some host may show it. Without one, nothing can, and the countdown is not refreshed
    /// between changes (no wake-ups for nobody).
    private var watched = false

    /// The daemon's connection, which the objects' handler holds.
    private var bus: Bus { exported.bus }
    /// Sends what was queued outside of sd-bus's own processing.
    private var flush: () -> Void { exported.flush }

    /// The item on the daemon's connection. Call on the server's queue; `refreshTimer` fires there.
    public init(
        server: TimerBusServer, session: WorkoutSession, restKinds: Set<String>, refreshTimer: any TimerSource,
        logger: Logger
    ) throws(BusError) {
        service = TrayItem.service(pid: getpid())
        self.logger = logger
        self.refreshTimer = refreshTimer
        exported = ExportedTray(session: session, server: server, restKinds: restKinds, logger: logger)
        watcherContext = Unmanaged.passRetained(WatcherContext())
        watcherContext.takeUnretainedValue().output = self
        // Every stored property is set: from here a throw runs `deinit`, which releases the context (releasing it here
        // too freed it twice, a crash when a signal interrupted the match's call at start-up).
        watcherMatch = try bus.matchNameOwnerChanged(
            of: TrayItem.watcherService,
            callback: { message, userdata, _ in
                guard let message, let userdata,
                    let change = BusMessage(borrowing: message).readNameOwnerChange(),
                    change.name == TrayItem.watcherService
                else { return 0 }
                let context = Unmanaged<WatcherContext>.fromOpaque(userdata).takeUnretainedValue()
                context.output?.watcherChanged(present: !change.newOwner.isEmpty)
                return 0
            }, userdata: watcherContext.toOpaque())
    }

    deinit {
        refreshTimer.disarm()
        watcherMatch = nil
        watcherContext.release()
    }

    public func handle(_ moment: WorkoutMoment) {
        if case .countdown = moment.event { return }
        guard moment.status.state != .idle, moment.segment != nil else {
            withdraw()
            return
        }
        if objects.isEmpty { appear() }
        nextChange = moment.nextChange
        // A step the person ends counts up from where its time began.
        countUpStart =
            moment.status.open && moment.status.state == .running
            ? moment.now - Int64(clamping: moment.status.segmentElapsed) : nil
        exported.show(moment.status)
        flush()
        armRefresh()
    }

    /// Exports the objects, owns the name and registers with the watcher.
    private func appear() {
        do {
            objects = try [TrayItem.interfaceTable, TrayMenu.interfaceTable].map { (interface) throws(BusError) in
                try BusObject(interface, on: bus, handler: exported, logger: logger, afterReply: flush)
            }
            try bus.requestNameAsync(service)
        } catch {
            logger.warning("Failed to show the tray item, ignoring.", metadata: ["error": "\(error)"])
            objects = []
            return
        }
        register()
    }

    /// Takes the item off every host now: before this output is dropped (the tray turned off in the settings).
    public func close() {
        withdraw()
    }

    private func withdraw() {
        refreshTimer.disarm()
        nextChange = nil
        countUpStart = nil
        watched = false
        guard !objects.isEmpty else { return }
        objects = []
        exported.hide()
        do {
            try bus.releaseNameAsync(service)
        } catch {
            logger.debug("Failed to release the tray item's name, ignoring.", metadata: ["error": "\(error)"])
        }
        flush()
    }

    /// `RegisterStatusNotifierItem(service)`, never starting a watcher that is not running.
    private func register() {
        do {
            let call = try bus.newMethodCall(
                destination: TrayItem.watcherService, path: TrayItem.watcherPath,
                interface: TrayItem.watcherService, member: TrayItem.registerMethod)
            try call.setAutoStart(false)
            try call.append(service)
            try bus.callAsync(call) { [weak self, logger] result in
                switch result {
                case .success:
                    logger.debug("Registered the tray item.")
                    self?.watcherTookTheItem()
                case .failure(let error):
                    logger.debug("No tray item watcher took the item.", metadata: ["error": "\(error)"])
                }
            }
        } catch {
            logger.debug("Failed to register the tray item, ignoring.", metadata: ["error": "\(error)"])
        }
        flush()
    }

    fileprivate func watcherChanged(present: Bool) {
        guard present else {
            logger.debug("The tray item watcher left.")
            watched = false
            refreshTimer.disarm()
            return
        }
        guard !objects.isEmpty else { return }
        logger.debug("A tray item watcher appeared; registering.")
        register()
    }

    /// Shows the countdown as it is now to the hosts, and refreshes it from here on.
    private func watcherTookTheItem() {
        guard !objects.isEmpty, !watched else { return }
        watched = true
        refresh()
    }

    private func armRefresh() {
        let now = refreshTimer.now
        let next =
            if let countUpStart { TrayRefresh.next(after: now, countingUpFrom: countUpStart) } else {
                nextChange.flatMap { TrayRefresh.next(after: now, change: $0) }
            }
        guard watched, let next else {
            refreshTimer.disarm()
            return
        }
        refreshTimer.arm(at: next) { [weak self] in self?.refresh() }
    }

    private func refresh() {
        exported.showNow()
        flush()
        armRefresh()
    }
}

/// The output as the watcher match's callback sees it.
private final class WatcherContext {
    weak var output: TrayOutput?
}

/// The icon theme the item's icons are installed in: `IconName` and `IconThemePath` when so, the pixmaps always.
struct TrayIcons {
    /// `PREFIX/share/icons`, when this executable's prefix has the tray icons; nil for a build-tree binary.
    let themePath: String?

    static func installed() -> TrayIcons {
        let relative = "share/icons/hicolor/scalable/apps/\(TrayIcon.name(.work)).svg"
        return TrayIcons(
            themePath: InstallPrefix.existing(relative).map {
                String($0.dropLast(relative.count - "share/icons".count))
            })
    }

    func name(_ tone: WorkoutDisplay.Tone) -> String { themePath == nil ? "" : TrayIcon.name(tone) }

    /// `IconPixmap` of each tone, rendered once.
    static let pixmaps: [WorkoutDisplay.Tone: [(size: Int, pixels: [UInt8])]] = Dictionary(
        uniqueKeysWithValues: WorkoutDisplay.Tone.allCases.map { tone in
            (tone, TrayIcon.pixmapSizes.map { ($0, TrayIcon.pixmap(tone, size: $0)) })
        })
}

// MARK: - The objects' handler

/// What the two interfaces read and call; held by the output, weakly by the objects.
private final class ExportedTray: BusObjectHandler {
    weak var session: WorkoutSession?
    let bus: Bus
    let restKinds: Set<String>
    let icons: TrayIcons
    let logger: Logger
    /// Sends what was queued outside of sd-bus's own processing.
    let flush: () -> Void
    /// What the item shows, announced with the `New*` signals as it changes.
    private(set) var shown: TrayView?
    /// The menu's layout revision, raised when the first item's label changes.
    private var revision: UInt32 = 1

    init(session: WorkoutSession, server: TimerBusServer, restKinds: Set<String>, logger: Logger) {
        self.session = session
        bus = server.bus
        flush = { [weak driver = server.driver] in driver?.updateInterest() }
        self.restKinds = restKinds
        icons = TrayIcons.installed()
        self.logger = logger
    }

    /// Shows the workout as of `status`, announcing what changed.
    func show(_ status: TimerStatus) {
        guard let scheduler = session?.scheduler, let segment = scheduler.current,
            let view = TrayView(status: status, segment: segment, plan: scheduler.plan, restKinds: restKinds)
        else { return }
        let before = shown
        shown = view
        var signals: [TrayItem.Signal] = []
        if before == nil { signals.append(.newStatus) }
        if before?.tone != view.tone { signals.append(.newIcon) }
        if before?.title != view.title || before?.detail != view.detail { signals += [.newTitle, .newToolTip] }
        if before?.label != view.label || before?.labelGuide != view.labelGuide { signals.append(.newLabel) }
        do throws(BusError) {
            for signal in signals { try emit(signal, view) }
            if let before, before.menu != view.menu { try announceMenuChange(view.menu) }
        } catch {
            logger.debug("Failed to update the tray item, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    /// Shows the workout as it is now.
    func showNow() {
        guard let status = session?.status else { return }
        show(status)
    }

    func hide() {
        shown = nil
    }

    private func emit(_ signal: TrayItem.Signal, _ view: TrayView) throws(BusError) {
        let message = try bus.newSignal(
            path: TrayItem.objectPath, interface: TrayItem.interface, member: signal.rawValue)
        switch signal {
        case .newStatus: try message.append("Active")
        case .newLabel:
            try message.append(view.label)
            try message.append(view.labelGuide)
        case .newTitle, .newIcon, .newAttentionIcon, .newOverlayIcon, .newToolTip: break
        }
        try bus.send(message)
    }

    /// Pause became Resume, or Skip Done, or back: `ItemsPropertiesUpdated` for hosts that patch their menu,
    /// `LayoutUpdated` for those that fetch it again.
    private func announceMenuChange(_ menu: TrayMenu.State) throws(BusError) {
        let updated = try bus.newSignal(
            path: TrayMenu.objectPath, interface: TrayMenu.interface, member: "ItemsPropertiesUpdated")
        try updated.openContainer("a", contents: "(ia{sv})")
        for entry in [TrayMenu.Entry.pauseResume, .skip] {
            try appendItem(entry.rawValue, names: [], menu: menu, to: updated)
        }
        try updated.closeContainer()
        try updated.openContainer("a", contents: "(ias)")
        try updated.closeContainer()
        try bus.send(updated)
        revision &+= 1
        let layout = try bus.newSignal(
            path: TrayMenu.objectPath, interface: TrayMenu.interface, member: "LayoutUpdated")
        try layout.append(revision)
        try layout.append(TrayMenu.root)
        try bus.send(layout)
    }

    // MARK: Calls

    func handle(_ call: BusCall) throws(BusCallError) {
        do throws(BusError) {
            if call.interface == TrayItem.interface {
                try click(call)
            } else {
                try menuCall(call)
            }
        } catch {
            throw BusCallError(error)
        }
    }

    private func click(_ call: BusCall) throws(BusError) {
        switch TrayItem.clicks[call.member] {
        case .openWindow:
            // Where the window is not installed, the click pauses or resumes instead.
            WindowLauncher.open(on: bus, logger: logger) { [weak session] in session?.perform(.playPause) }
        case .pauseOrResume: session?.perform(.playPause)
        case .nothing, nil: break
        }
        call.reply()
    }

    private func menuCall(_ call: BusCall) throws(BusError) {
        let message = call.message
        let menu = shown?.menu ?? TrayMenu.State()
        switch call.member {
        case "GetLayout":
            let parent = try message.readInt32()
            let depth = try message.readInt32()
            let names = try message.readStringArray()
            guard TrayMenu.properties(of: parent, menu: menu) != nil else { throw Self.unknownItem(parent) }
            call.reply { reply throws(BusError) in
                try reply.append(revision)
                try appendNode(parent, depth: depth, names: names, menu: menu, to: reply)
            }
        case "GetGroupProperties":
            let ids = try message.readInt32Array()
            let names = try message.readStringArray()
            let wanted = ids.isEmpty ? [TrayMenu.root] + TrayMenu.children(of: TrayMenu.root) : ids
            call.reply { reply throws(BusError) in
                try reply.openContainer("a", contents: "(ia{sv})")
                for id in wanted where TrayMenu.properties(of: id, menu: menu) != nil {
                    try appendItem(id, names: names, menu: menu, to: reply)
                }
                try reply.closeContainer()
            }
        case "GetProperty":
            let id = try message.readInt32()
            let name = try message.readString()
            guard let value = TrayMenu.properties(of: id, menu: menu)?.first(where: { $0.name == name })?.value
            else { throw BusError(errno: EINVAL, function: "GetProperty", message: "Item \(id) has no \(name).") }
            call.reply { reply throws(BusError) in try reply.appendVariant(value) }
        case "Event":
            let id = try message.readInt32()
            let event = try message.readString()
            guard let entry = Self.entry(id) else { throw Self.unknownItem(id) }
            perform(event, on: entry)
            call.reply()
        case "EventGroup":
            var unknown: [Int32] = []
            try message.enterContainer("a", contents: "(isvu)")
            while try message.enterContainer("r", contents: "isvu") {
                let id = try message.readInt32()
                let event = try message.readString()
                try message.skip("vu")
                try message.exitContainer()
                if let entry = Self.entry(id) { perform(event, on: entry) } else { unknown.append(id) }
            }
            try message.exitContainer()
            call.reply { reply throws(BusError) in try reply.append(unknown) }
        case "AboutToShow":
            let id = try message.readInt32()
            guard TrayMenu.properties(of: id, menu: menu) != nil else { throw Self.unknownItem(id) }
            call.reply { reply throws(BusError) in try reply.append(false) }
        case "AboutToShowGroup":
            let unknown = try message.readInt32Array().filter { TrayMenu.properties(of: $0, menu: menu) == nil }
            call.reply { reply throws(BusError) in
                try reply.append([Int32]())
                try reply.append(unknown)
            }
        default:
            call.reply()
        }
    }

    private static func entry(_ id: Int32) -> TrayMenu.Entry? { TrayMenu.Entry(rawValue: id) }

    private static func unknownItem(_ id: Int32) -> BusError {
        BusError(errno: EINVAL, function: "dbusmenu", message: "No menu item \(id).")
    }

    private func perform(_ event: String, on entry: TrayMenu.Entry) {
        guard event == "clicked" else { return }
        logger.debug("Tray menu.", metadata: ["item": "\(entry)"])
        switch TrayMenu.action(entry) {
        case .control(let control): session?.perform(control)
        case .openWindow: WindowLauncher.open(on: bus, logger: logger)
        }
    }

    /// `(ia{sv}av)`: the item, its properties (those in `names`, all if empty) and its children `depth` deep (-1: all).
    private func appendNode(
        _ id: Int32, depth: Int32, names: [String], menu: TrayMenu.State, to message: BusMessage
    ) throws(BusError) {
        try message.openContainer("r", contents: "ia{sv}av")
        try message.append(id)
        try appendProperties(id, names: names, menu: menu, to: message)
        try message.openContainer("a", contents: "v")
        if depth != 0 {
            for child in TrayMenu.children(of: id) {
                try message.openContainer("v", contents: "(ia{sv}av)")
                try appendNode(child, depth: depth - 1, names: names, menu: menu, to: message)
                try message.closeContainer()
            }
        }
        try message.closeContainer()
        try message.closeContainer()
    }

    /// `(ia{sv})`.
    private func appendItem(_ id: Int32, names: [String], menu: TrayMenu.State, to message: BusMessage) throws(BusError)
    {
        try message.openContainer("r", contents: "ia{sv}")
        try message.append(id)
        try appendProperties(id, names: names, menu: menu, to: message)
        try message.closeContainer()
    }

    private func appendProperties(
        _ id: Int32, names: [String], menu: TrayMenu.State, to message: BusMessage
    ) throws(BusError) {
        try message.openContainer("a", contents: "{sv}")
        for (name, value) in TrayMenu.properties(of: id, menu: menu) ?? []
        where names.isEmpty || names.contains(name) {
            try message.openContainer("e", contents: "sv")
            try message.append(name)
            try message.appendVariant(value)
            try message.closeContainer()
        }
        try message.closeContainer()
    }

    // MARK: Properties

    func appendProperty(_ property: String, of interface: String, to reply: BusMessage) throws(BusCallError) {
        do throws(BusError) {
            if interface == TrayMenu.interface {
                try appendMenuProperty(property, to: reply)
                return
            }
            guard let known = TrayItemProperty(rawValue: property) else {
                throw BusError(errno: EINVAL, function: "get", name: BusErrorName.unknownProperty)
            }
            try appendItemProperty(known, to: reply)
        } catch {
            throw BusCallError(error.name ?? BusErrorName.invalidArgs, "\(error)")
        }
    }

    private func appendMenuProperty(_ property: String, to reply: BusMessage) throws(BusError) {
        switch property {
        case "Version": try reply.append(TrayMenu.version)
        case "TextDirection": try reply.append("ltr")
        case "Status": try reply.append("normal")
        case "IconThemePath": try reply.append([String]())
        default: throw BusError(errno: EINVAL, function: "get", name: BusErrorName.unknownProperty)
        }
    }

    private func appendItemProperty(_ property: TrayItemProperty, to reply: BusMessage) throws(BusError) {
        let tone = shown?.tone ?? .work
        switch property {
        case .category: try reply.append(TrayItem.category)
        case .id: try reply.append(TrayItem.id)
        case .title: try reply.append(shown?.title ?? "")
        case .status: try reply.append("Active")
        case .windowID: try reply.append(Int32(0))
        case .iconName: try reply.append(icons.name(tone))
        case .iconPixmap: try reply.appendPixmaps(TrayIcons.pixmaps[tone] ?? [])
        case .iconThemePath: try reply.append(icons.themePath ?? "")
        case .overlayIconName, .attentionIconName, .attentionMovieName: try reply.append("")
        case .overlayIconPixmap, .attentionIconPixmap: try reply.appendPixmaps([])
        case .toolTip:
            try reply.openContainer("r", contents: "sa(iiay)ss")
            try reply.append(icons.name(tone))
            try reply.appendPixmaps([])
            try reply.append(shown?.title ?? "")
            try reply.append(shown?.detail ?? "")
            try reply.closeContainer()
        case .itemIsMenu: try reply.append(false)
        case .menu: try reply.append(objectPath: TrayMenu.objectPath)
        case .label: try reply.append(shown?.label ?? "")
        case .labelGuide: try reply.append(shown?.labelGuide ?? "")
        case .orderingIndex: try reply.append(UInt32(0))
        }
    }
}

extension BusMessage {
    /// `a(iiay)`: each pixmap's width, height and ARGB32 bytes.
    fileprivate func appendPixmaps(_ pixmaps: [(size: Int, pixels: [UInt8])]) throws(BusError) {
        try openContainer("a", contents: "(iiay)")
        for pixmap in pixmaps {
            try openContainer("r", contents: "iiay")
            try append(Int32(pixmap.size))
            try append(Int32(pixmap.size))
            try append(bytes: pixmap.pixels)
            try closeContainer()
        }
        try closeContainer()
    }

    /// A dbusmenu property's value as a variant.
    fileprivate func appendVariant(_ value: TrayMenu.Value) throws(BusError) {
        switch value {
        case .string(let text):
            try openContainer("v", contents: "s")
            try append(text)
        case .boolean(let flag):
            try openContainer("v", contents: "b")
            try append(flag)
        }
        try closeContainer()
    }
}

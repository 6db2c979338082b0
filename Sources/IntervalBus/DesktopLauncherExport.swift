import Glibc
import IntervalCore
import Logging

/// Starting a workout from the desktop (docs/reference.md §8) on the daemon's connection: `org.freedesktop.Application`
/// (the D-Bus-activatable desktop entry and its actions), `org.gnome.Shell.SearchProvider2` (GNOME Shell's overview
/// search) and `org.kde.krunner1` (KRunner). Each call is read here and forwarded to the delegate; its answer is sent
/// when the delegate gives it. Everything runs on the server's queue.
public final class DesktopLauncherExport {
    private let handler: LauncherHandler
    private let objects: [BusObject]

    /// Exports the three interfaces on the server's connection. Call on the server's queue.
    public init(server: TimerBusServer, delegate: any DesktopLauncherDelegate, logger: Logger) throws(BusError) {
        let handler = LauncherHandler(delegate: delegate, bus: server.bus, logger: logger)
        self.handler = handler
        objects = try [
            DesktopLauncher.applicationInterfaceTable, DesktopLauncher.searchProviderInterfaceTable,
            DesktopLauncher.runnerInterfaceTable,
        ].map { (interface) throws(BusError) in
            try BusObject(
                interface, on: server.bus, handler: handler, logger: logger,
                afterReply: { [weak driver = server.driver] in driver?.updateInterest() })
        }
    }
}

/// Reads each call's arguments and forwards it to the delegate; the reply is sent once the delegate answers.
private final class LauncherHandler: BusObjectHandler {
    weak var delegate: (any DesktopLauncherDelegate)?
    /// A search result or a KRunner match that started opens the window on this connection.
    private let bus: Bus
    private let logger: Logger

    init(delegate: any DesktopLauncherDelegate, bus: Bus, logger: Logger) {
        self.delegate = delegate
        self.bus = bus
        self.logger = logger
    }

    func handle(_ call: BusCall) throws(BusCallError) {
        guard let delegate else { throw .unavailable }
        do throws(BusError) {
            try handle(call, call.message, delegate)
        } catch {
            throw BusCallError(error)
        }
    }

    private func handle(_ call: BusCall, _ message: BusMessage, _ delegate: any DesktopLauncherDelegate)
        throws(BusError)
    {
        switch (call.interface, call.member) {
        case (DesktopLauncher.applicationInterface, "Activate"),
            (DesktopLauncher.searchProviderInterface, "LaunchSearch"):
            perform(.activate, call, delegate)
        case (DesktopLauncher.applicationInterface, "Open"):
            // No MIME types are declared, so desktops do not send files; a caller that does gets the plans offered.
            perform(.activate, call, delegate)
        case (DesktopLauncher.applicationInterface, "ActivateAction"):
            let name = try message.readString()
            let parameter = try message.readFirstStringOfVariants()
            do throws(TimerCommandError) {
                perform(try DesktopLauncher.request(action: name, parameter: parameter), call, delegate)
            } catch let failure {
                delegate.report(failure)
                call.fail(BusCallError(failure))
            }
        case (DesktopLauncher.searchProviderInterface, "GetInitialResultSet"):
            search(try message.readStringArray(), call, delegate)
        case (DesktopLauncher.searchProviderInterface, "GetSubsearchResultSet"):
            _ = try message.readStringArray()
            search(try message.readStringArray(), call, delegate)
        case (DesktopLauncher.searchProviderInterface, "GetResultMetas"):
            // GNOME Shell wants one meta per identifier, in order, or it drops them all.
            let identifiers = try message.readStringArray()
            let results = identifiers.map(PlanSearch.Result.init(identifier:))
            delegate.describe(results.compactMap { $0 }) { descriptions in
                var described = descriptions.makeIterator()
                call.reply { reply throws(BusError) in
                    try reply.openContainer("a", contents: "a{sv}")
                    for (identifier, result) in zip(identifiers, results) {
                        let description = result == nil ? nil : described.next() ?? nil
                        try reply.appendResultMeta(
                            identifier: identifier, description ?? PlanSearch.Description.unavailable)
                    }
                    try reply.closeContainer()
                }
            }
        case (DesktopLauncher.searchProviderInterface, "ActivateResult"), (DesktopLauncher.runnerInterface, "Run"):
            let identifier = try message.readString()
            guard let result = PlanSearch.Result(identifier: identifier) else {
                let unknown =
                    call.interface == DesktopLauncher.runnerInterface ? "No such match." : "No such search result."
                return call.fail(BusCallError(TimerCommandError(.invalidPlan, unknown)))
            }
            delegate.perform(.start(result)) { [bus, logger] outcome in
                if case .success = outcome { WindowLauncher.open(on: bus, logger: logger) }
                call.answer(outcome)
            }
        case (DesktopLauncher.runnerInterface, "Actions"):
            call.reply { reply throws(BusError) in
                try reply.openContainer("a", contents: "(sss)")
                try reply.closeContainer()
            }
        case (DesktopLauncher.runnerInterface, "Match"):
            let typed = try message.readString()
            guard let query = PlanSearch.query([typed]) else { return replyMatches([], query: "", to: call) }
            delegate.search(query) { hits in replyMatches(hits, query: query, to: call) }
        case (DesktopLauncher.runnerInterface, "Teardown"):
            call.reply()
        default:
            call.fail(BusCallError(BusErrorName.unknownMethod, "Unknown method \(call.member)."))
        }
    }

    private func perform(
        _ request: DesktopLauncher.Request, _ call: BusCall, _ delegate: any DesktopLauncherDelegate
    ) {
        delegate.perform(request, answer: call.answer)
    }

    private func search(_ terms: [String], _ call: BusCall, _ delegate: any DesktopLauncherDelegate) {
        guard let query = PlanSearch.query(terms) else {
            return call.reply { reply throws(BusError) in try reply.append([String]()) }
        }
        delegate.search(query) { hits in
            call.reply { reply throws(BusError) in try reply.append(hits.map(\.result.identifier)) }
        }
    }
}

private func replyMatches(_ hits: [PlanSearch.Hit], query: String, to call: BusCall) {
    call.reply { reply throws(BusError) in
        try reply.openContainer("a", contents: "(sssida{sv})")
        for hit in hits { try reply.appendRunnerMatch(hit, query: query) }
        try reply.closeContainer()
    }
}

extension BusMessage {
    /// One `a{sv}` of `GetResultMetas`: the fields GNOME Shell reads (`id`, `name`, `description`, `gicon`).
    fileprivate func appendResultMeta(identifier: String, _ description: PlanSearch.Description) throws(BusError) {
        try openContainer("a", contents: "{sv}")
        try appendEntry("id", "s") { message throws(BusError) in try message.append(identifier) }
        try appendEntry("name", "s") { message throws(BusError) in try message.append(description.name) }
        try appendEntry("description", "s") { message throws(BusError) in try message.append(description.detail) }
        try appendEntry("gicon", "s") { message throws(BusError) in try message.append(DesktopIdentity.iconName) }
        try closeContainer()
    }

    /// One `(sssida{sv})` of KRunner's `Match`: id, text, icon, the match's category (100, exact, when the query is
    /// the plan's or program's name; 30, possible, otherwise), its relevance, and the detail as `subtext`.
    fileprivate func appendRunnerMatch(_ hit: PlanSearch.Hit, query: String) throws(BusError) {
        let exact: Bool
        switch hit.result {
        case .named(let name), .program(let name): exact = name.lowercased() == query.lowercased()
        case .inline: exact = true
        }
        try openContainer("r", contents: "sssida{sv}")
        try append(hit.result.identifier)
        try append(hit.description.name)
        try append(DesktopIdentity.iconName)
        try append(Int32(exact ? 100 : 30))
        try append(exact ? 1.0 : 0.7)
        try openContainer("a", contents: "{sv}")
        try appendEntry("subtext", "s") { message throws(BusError) in try message.append(hit.description.detail) }
        try closeContainer()
        try closeContainer()
    }
}

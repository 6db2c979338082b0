import CBusShims
import CSystemd
import IntervalCore
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// What the desktop's requests (``DesktopLauncherExport``) are forwarded to: the daemon. Called on the connection's
/// queue; each `answer` is called once, on that queue, and may be called later (after work off the queue).
public protocol DesktopLauncherDelegate: AnyObject {
    /// Carries out `request`; answers with why it could not (shown to the person as a notification too).
    func perform(
        _ request: DesktopLauncher.Request, answer: @escaping (Result<Void, TimerCommandError>) -> Void)
    /// Shows the person why a request could not be carried out (a malformed action).
    func report(_ failure: TimerCommandError)
    /// The results for what was typed (``PlanSearch/query(_:)``), best first.
    func search(_ query: String, answer: @escaping ([PlanSearch.Hit]) -> Void)
    /// What to show for each of `results`, in their order; nil for one that no longer stands for a plan.
    func describe(_ results: [PlanSearch.Result], answer: @escaping ([PlanSearch.Description?]) -> Void)
}

/// Starting a workout from the desktop (spec §8) on the daemon's connection: `org.freedesktop.Application` (the
/// D-Bus-activatable desktop entry and its actions), `org.gnome.Shell.SearchProvider2` (GNOME Shell's overview
/// search) and `org.kde.krunner1` (KRunner). Each call is read here and forwarded to the delegate; its answer is
/// sent when the delegate gives it. Everything runs on the server's queue.
public final class DesktopLauncherExport {
    private let slots: [BusSlot]

    /// Exports the three interfaces on the server's connection. Call on the server's queue.
    public init(server: TimerBusServer, delegate: any DesktopLauncherDelegate, logger: Logger) throws(BusError) {
        let exported = ExportedLauncher(
            delegate: delegate, logger: logger, flush: { [weak driver = server.driver] in driver?.updateInterest() })
        slots = try [
            (DesktopLauncher.applicationPath, IB_LAUNCHER_APPLICATION),
            (DesktopLauncher.searchProviderPath, IB_LAUNCHER_SEARCH_PROVIDER),
            (DesktopLauncher.runnerPath, IB_LAUNCHER_RUNNER),
        ].map { (path, interface) throws(BusError) in try export(exported, interface, at: path, on: server.bus) }
    }
}

/// What the C vtables' userdata points to; one retain per exported interface, released in its destroy callback.
private final class ExportedLauncher {
    weak var delegate: (any DesktopLauncherDelegate)?
    let logger: Logger
    let flush: () -> Void

    init(delegate: any DesktopLauncherDelegate, logger: Logger, flush: @escaping () -> Void) {
        self.delegate = delegate
        self.logger = logger
        self.flush = flush
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> ExportedLauncher? {
        context.map { Unmanaged<ExportedLauncher>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Reads `call`'s arguments and forwards it; the reply is sent once the delegate answers.
    func handle(_ method: ib_launcher_method, _ call: BusMessage, delegate: any DesktopLauncherDelegate)
        throws(BusError)
    {
        switch method {
        case IB_APPLICATION_ACTIVATE:
            perform(.activate, call, delegate)
        case IB_APPLICATION_OPEN:
            // No MIME types are declared, so desktops do not send files; a caller that does gets the plans offered.
            perform(.activate, call, delegate)
        case IB_APPLICATION_ACTIVATE_ACTION:
            let name = try call.readString()
            let parameter = try call.readFirstStringOfVariants()
            do throws(TimerCommandError) {
                perform(try DesktopLauncher.request(action: name, parameter: parameter), call, delegate)
            } catch let failure {
                delegate.report(failure)
                reply(to: call, failure: failure)
            }
        case IB_SEARCH_GET_INITIAL_RESULT_SET:
            search(try call.readStringArray(), call, delegate)
        case IB_SEARCH_GET_SUBSEARCH_RESULT_SET:
            _ = try call.readStringArray()
            search(try call.readStringArray(), call, delegate)
        case IB_SEARCH_GET_RESULT_METAS:
            // GNOME Shell wants one meta per identifier, in order, or it drops them all.
            let identifiers = try call.readStringArray()
            let results = identifiers.map(PlanSearch.Result.init(identifier:))
            delegate.describe(results.compactMap { $0 }) { [self] descriptions in
                var described = descriptions.makeIterator()
                reply(to: call) { reply throws(BusError) in
                    try reply.openContainer("a", contents: "a{sv}")
                    for (identifier, result) in zip(identifiers, results) {
                        let description = result == nil ? nil : described.next() ?? nil
                        try reply.appendResultMeta(
                            identifier: identifier, description ?? PlanSearch.Description.unavailable)
                    }
                    try reply.closeContainer()
                }
            }
        case IB_SEARCH_ACTIVATE_RESULT:
            let identifier = try call.readString()
            guard let result = PlanSearch.Result(identifier: identifier) else {
                return reply(to: call, failure: TimerCommandError(.invalidPlan, "No such search result."))
            }
            perform(.start(result), call, delegate)
        case IB_SEARCH_LAUNCH_SEARCH:
            perform(.activate, call, delegate)
        case IB_RUNNER_ACTIONS:
            reply(to: call) { reply throws(BusError) in
                try reply.openContainer("a", contents: "(sss)")
                try reply.closeContainer()
            }
        case IB_RUNNER_MATCH:
            let typed = try call.readString()
            guard let query = PlanSearch.query([typed]) else { return replyNoMatches(to: call) }
            delegate.search(query) { [self] hits in
                reply(to: call) { reply throws(BusError) in
                    try reply.openContainer("a", contents: "(sssida{sv})")
                    for hit in hits { try reply.appendRunnerMatch(hit, query: query) }
                    try reply.closeContainer()
                }
            }
        case IB_RUNNER_RUN:
            let identifier = try call.readString()
            guard let result = PlanSearch.Result(identifier: identifier) else {
                return reply(to: call, failure: TimerCommandError(.invalidPlan, "No such match."))
            }
            perform(.start(result), call, delegate)
        case IB_RUNNER_TEARDOWN:
            reply(to: call) { _ throws(BusError) in }
        default:
            reply(to: call, failure: TimerCommandError(.invalidState, "Unknown method."))
        }
    }

    private func perform(
        _ request: DesktopLauncher.Request, _ call: BusMessage, _ delegate: any DesktopLauncherDelegate
    ) {
        delegate.perform(request) { [self] outcome in
            switch outcome {
            case .success: reply(to: call) { _ throws(BusError) in }
            case .failure(let failure): reply(to: call, failure: failure)
            }
        }
    }

    private func search(_ terms: [String], _ call: BusMessage, _ delegate: any DesktopLauncherDelegate) {
        guard let query = PlanSearch.query(terms) else {
            return reply(to: call) { reply throws(BusError) in try reply.append([String]()) }
        }
        delegate.search(query) { [self] hits in
            reply(to: call) { reply throws(BusError) in try reply.append(hits.map(\.result.identifier)) }
        }
    }

    private func replyNoMatches(to call: BusMessage) {
        reply(to: call) { reply throws(BusError) in
            try reply.openContainer("a", contents: "(sssida{sv})")
            try reply.closeContainer()
        }
    }

    /// Sends `call`'s method return, filled by `fill`; a failure to build or send it is logged.
    private func reply(to call: BusMessage, _ fill: (BusMessage) throws(BusError) -> Void) {
        do throws(BusError) {
            let reply = try call.newMethodReturn()
            try fill(reply)
            try reply.send()
        } catch {
            logger.debug("Failed to answer a desktop request, ignoring.", metadata: ["error": "\(error)"])
        }
        flush()
    }

    private func reply(to call: BusMessage, failure: TimerCommandError) {
        if ib_reply_error(call.pointer, failure.busErrorName, failure.message) < 0 {
            logger.debug("Failed to answer a desktop request, ignoring.")
        }
        flush()
    }
}

private func export(
    _ exported: ExportedLauncher, _ interface: ib_launcher_interface, at path: String, on bus: Bus
) throws(BusError) -> BusSlot {
    var handlers = ib_launcher_handlers(
        call: { context, method, call, error in
            guard let exported = ExportedLauncher.from(context), let delegate = exported.delegate, let call else {
                return sd_bus_error_set(error, "org.freedesktop.DBus.Error.Failed", "The timer is shutting down.")
            }
            do throws(BusError) {
                try exported.handle(method, BusMessage(borrowing: call), delegate: delegate)
                return 1
            } catch let failure {
                return sd_bus_error_set(error, "org.freedesktop.DBus.Error.InvalidArgs", "\(failure)")
            }
        },
        release: { context in
            guard let context else { return }
            Unmanaged<ExportedLauncher>.fromOpaque(context).release()
        }
    )
    let context = Unmanaged.passRetained(exported).toOpaque()
    var slot: OpaquePointer?
    do throws(BusError) {
        try sdCall("sd_bus_add_object_vtable") {
            ib_launcher_add_object(bus.pointer, &slot, path, interface, &handlers, context)
        }
    } catch {
        // ib_launcher_add_object does not call release on failure.
        Unmanaged<ExportedLauncher>.fromOpaque(context).release()
        throw error
    }
    return try BusSlot(owningResult: slot, function: "sd_bus_add_object_vtable")
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
    /// the plan's name; 30, possible, otherwise), its relevance, and the detail as `subtext`.
    fileprivate func appendRunnerMatch(_ hit: PlanSearch.Hit, query: String) throws(BusError) {
        let exact: Bool
        switch hit.result {
        case .named(let name): exact = name.lowercased() == query.lowercased()
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

import Dispatch
import Foundation
import IntervalBus
import IntervalCore
import IntervalTestSupport
import Testing

/// Every object the daemon exports, introspected on a real session bus and compared with its table
/// (``BusInterface/exported``): methods with their arguments, properties with their types and change signals, signals
/// with their arguments. In ``TimerBusTests``'s serialized suite: all of them own `org.intervald.Timer1`.
extension TimerBusTests {
    /// A delegate for the desktop's interfaces that is never asked anything here.
    final class Launcher: DesktopLauncherDelegate {
        func perform(
            _ request: DesktopLauncher.Request, answer: @escaping (Result<Void, TimerCommandError>) -> Void
        ) { answer(.success(())) }
        func report(_ failure: TimerCommandError) {}
        func search(_ query: String, answer: @escaping ([PlanSearch.Hit]) -> Void) { answer([]) }
        func describe(_ results: [PlanSearch.Result], answer: @escaping ([PlanSearch.Description?]) -> Void) {
            answer(results.map { _ in nil })
        }
    }

    @Test func everyExportedObjectIntrospectsAsItsTableSays() throws {
        try serve(Stand()) { server in
            let (session, _) = ManualTimerSource.session()
            let launcher = Launcher()
            let exports = try queue.sync {
                let tray = try TrayOutput(
                    server: server, session: session, restKinds: [], refreshTimer: ManualTimerSource(now: 0),
                    logger: logger)
                // The tray item is exported while a workout exists.
                session.outputs = [tray]
                _ = try session.start("1m run", origin: "", replace: false)
                return (
                    try MediaPlayerOutput(server: server, session: session, logger: logger),
                    try DesktopLauncherExport(server: server, delegate: launcher, logger: logger), tray
                )
            }
            defer { queue.sync { withExtendedLifetime(exports) {} } }
            let bus = try Bus.openUser(description: "IntrospectionTests")
            var found: [String] = []
            for path in try Self.objectPaths(on: bus, under: "/") {
                let xml = try Self.introspect(path, on: bus)
                for interface in IntrospectedInterface.parse(xml)
                where !interface.name.hasPrefix("org.freedesktop.DBus.") {
                    found.append(interface.name)
                    guard let table = BusInterface.exported.first(where: { $0.name == interface.name }) else {
                        Issue.record("\(interface.name) at \(path) has no table")
                        continue
                    }
                    #expect(table.path == path, "\(interface.name)")
                    #expect(interface.members == table.members.map(IntrospectedInterface.undocumented), "\(table.name)")
                }
            }
            #expect(found.sorted() == BusInterface.exported.map(\.name).sorted())
        }
    }

    static func introspect(_ path: String, on bus: Bus) throws -> String {
        let call = try bus.newMethodCall(
            destination: BusNames.service, path: path, interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect")
        return try bus.call(call).readString()
    }

    /// `path` and every object below it, from the `<node name="…"/>` children of each introspection.
    static func objectPaths(on bus: Bus, under path: String) throws -> [String] {
        var paths = [path]
        for child in IntrospectedInterface.children(in: try introspect(path, on: bus)) {
            paths += try objectPaths(on: bus, under: path == "/" ? "/\(child)" : "\(path)/\(child)")
        }
        return paths
    }
}

/// An `<interface>` element of an introspection document, as the rows of a ``BusInterface`` without their docs.
struct IntrospectedInterface {
    var name: String
    var members: [BusInterface.Member]

    static func undocumented(_ member: BusInterface.Member) -> BusInterface.Member {
        switch member {
        case .method(let name, let arguments, let results, _):
            .method(name: name, arguments: arguments, results: results, doc: "")
        case .property(let name, let signature, let change, _):
            .property(name: name, signature: signature, change: change, doc: "")
        case .signal(let name, let arguments, _): .signal(name: name, arguments: arguments, doc: "")
        }
    }

    /// The child nodes named in `xml`.
    static func children(in xml: String) -> [String] {
        lines(xml).filter { $0.hasPrefix("<node name=") }.map { attribute("name", in: $0) }
    }

    /// The interfaces of `xml`, in document order. sd-bus writes one element per line, with a property's
    /// `EmitsChangedSignal` annotation as a child element of the property (`const`, `false`, or none).
    static func parse(_ xml: String) -> [IntrospectedInterface] {
        var interfaces: [IntrospectedInterface] = []
        var member: (kind: String, name: String, inputs: [BusInterface.Argument], outputs: [BusInterface.Argument])?
        var property: (name: String, type: String, change: BusInterface.PropertyChange)?
        for text in lines(xml) {
            if text.hasPrefix("<interface ") {
                interfaces.append(IntrospectedInterface(name: attribute("name", in: text), members: []))
            } else if text.hasPrefix("<method ") || text.hasPrefix("<signal ") {
                member = (text.hasPrefix("<method ") ? "method" : "signal", attribute("name", in: text), [], [])
            } else if text.hasPrefix("<arg "), member != nil {
                let argument = BusInterface.Argument(attribute("name", in: text), attribute("type", in: text))
                if attribute("direction", in: text) == "out" {
                    member?.outputs.append(argument)
                } else {
                    member?.inputs.append(argument)
                }
            } else if text.hasPrefix("<property ") {
                property = (attribute("name", in: text), attribute("type", in: text), .emitsChange)
            } else if text.contains("org.freedesktop.DBus.Property.EmitsChangedSignal"), property != nil {
                property?.change = attribute("value", in: text) == "const" ? .constant : .readTime
            }
            let closes = text.hasSuffix("/>") && !text.hasPrefix("<arg ") && !text.hasPrefix("<annotation ")
            if let open = member, text == "</method>" || text == "</signal>" || (closes && text.contains(open.name)) {
                interfaces[interfaces.count - 1].members.append(
                    open.kind == "method"
                        ? .method(name: open.name, arguments: open.inputs, results: open.outputs, doc: "")
                        : .signal(name: open.name, arguments: open.inputs, doc: ""))
                member = nil
            }
            if let open = property, text == "</property>" || (closes && text.contains(open.name)) {
                interfaces[interfaces.count - 1].members.append(
                    .property(name: open.name, signature: open.type, change: open.change, doc: ""))
                property = nil
            }
        }
        return interfaces
    }

    private static func lines(_ xml: String) -> [String] {
        xml.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func attribute(_ name: String, in element: String) -> String {
        guard let start = element.range(of: " \(name)=\""),
            let end = element.range(of: "\"", range: start.upperBound..<element.endIndex)
        else { return "" }
        return String(element[start.upperBound..<end.lowerBound])
    }
}

import Dispatch
import IntervalBus
import IntervalCore
import Testing

/// The MPRIS player's C vtables against the property table, on a real session bus (in ``TimerBusTests``'s serialized
/// suite: both own `org.intervald.Timer1`).
extension TimerBusTests {
    @Test func theMediaPlayerVtablesIntrospectAsTheTableSays() throws {
        try serve(Stand()) { server in
            let session = WorkoutSession(timer: ManualTimerSource(), wallClock: { 0 })
            let player = try queue.sync { try MediaPlayerOutput(server: server, session: session, logger: logger) }
            defer { queue.sync { withExtendedLifetime(player) {} } }
            let bus = try Bus.openUser(description: "MediaPlayerBusTests")
            let call = try bus.newMethodCall(
                destination: BusNames.service, path: MediaPlayer.objectPath,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            let xml = try bus.call(call).readString()
            for interface in [MediaPlayer.rootInterface, MediaPlayer.playerInterface] {
                let expected = MediaPlayerProperty.allCases.filter { $0.interface == interface }.map {
                    IntrospectedProperty(
                        name: $0.rawValue, type: $0.signature, access: "read",
                        emitsChangedSignal: $0.change != .readTime)
                }
                #expect(IntrospectedProperty.parse(xml, interface: interface) == expected, "\(interface)")
            }
        }
    }
}

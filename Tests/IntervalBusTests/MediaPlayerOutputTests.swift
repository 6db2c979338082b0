import Dispatch
import IntervalCore
import IntervalTestSupport
import Testing

@testable import IntervalBus

/// ``MediaPlayerOutput`` itself on a real session bus: a real ``WorkoutSession`` on the virtual clock feeds it on the
/// server's connection, and a second connection reads the player back as a desktop would (the name's owner,
/// `Get`, the `PropertiesChanged` and `Seeked` signals, a `Previous` call). In ``TimerBusTests``'s serialized suite:
/// the server owns `org.intervald.Timer1`.
extension TimerBusTests {
    @Test func theMediaPlayerFollowsTheWorkoutAsADesktopReadsIt() throws {
        try serve(Stand()) { server in
            let (session, clock) = ManualTimerSource.session()
            let player = try queue.sync { try MediaPlayerOutput(server: server, session: session, logger: logger) }
            queue.sync { session.outputs = [player] }
            defer { queue.sync { session.outputs.removeAll() } }
            let desktop = try PlayerListener()
            #expect(try !desktop.nameHasOwner(), "no player lingers while there is no workout")

            _ = try queue.sync {
                try session.start("name \"Drill\"\n2x(10s run, 10s walk)", origin: "", replace: false)
            }
            #expect(desktop.waitUntil { try desktop.nameHasOwner() }, "the name is owned while a workout exists")
            #expect(try desktop.playbackStatus() == "Playing")
            let run = try desktop.trackID()
            #expect(run == MediaPlayer.trackID(segmentIndex: 0))
            #expect(desktop.waitUntil { desktop.signals.count == 1 })

            queue.sync { clock.advance(by: 3_000_000) }
            try queue.sync { try session.pause() }
            #expect(try desktop.playbackStatus() == "Paused")
            try queue.sync { try session.resume() }
            #expect(try desktop.playbackStatus() == "Playing")
            #expect(desktop.waitUntil { desktop.signals.count == 4 })

            queue.sync { clock.advance(by: 7_000_000) }  // past the run: the walk is the track now
            let walk = try desktop.trackID()
            #expect(walk != run)
            #expect(walk == MediaPlayer.trackID(segmentIndex: 1))
            #expect(desktop.waitUntil { desktop.signals.count == 5 })

            queue.sync { clock.advance(by: 4_000_000) }
            try desktop.callPlayer("Previous")  // the walk again, from its start
            #expect(desktop.waitUntil { desktop.signals.count == 6 })
            #expect(try desktop.trackID() == walk)

            queue.sync { session.stop(.user) }
            #expect(desktop.waitUntil { try !desktop.nameHasOwner() }, "the name is released after the stop")
            #expect(desktop.waitUntil { desktop.signals.count == 7 })
            #expect(
                desktop.signals == [
                    "PropertiesChanged PlaybackStatus,Metadata",  // the start
                    "PropertiesChanged PlaybackStatus",  // paused
                    "PropertiesChanged PlaybackStatus", "Seeked 3000000",  // resumed where it was
                    "PropertiesChanged Metadata",  // the walk
                    "Seeked 0",  // Previous: the same track from its start
                    "PropertiesChanged PlaybackStatus,Metadata",  // stopped
                ])
            queue.sync { withExtendedLifetime(player) {} }
        }
    }

    /// A desktop's view of the player, on a connection of its own: what it calls, and the signals of the player's
    /// object that it hears, in order (the properties each `PropertiesChanged` names, each `Seeked`'s position).
    final class PlayerListener {
        let bus: Bus
        private(set) var signals: [String] = []
        private var slot: BusSlot?

        init() throws {
            bus = try Bus.openUser(description: "MediaPlayerOutputTests")
            slot = try bus.matchSignal(
                sender: nil, path: MediaPlayer.objectPath, interface: nil, member: nil,
                callback: { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    let listener = Unmanaged<PlayerListener>.fromOpaque(userdata).takeUnretainedValue()
                    listener.heard(BusMessage(borrowing: message))
                    return 0
                },
                userdata: Unmanaged.passUnretained(self).toOpaque())
        }

        private func heard(_ message: BusMessage) {
            do throws(BusError) {
                switch message.member {
                case MediaPlayer.seekedSignal?:
                    signals.append("Seeked \(try message.readInt64())")
                case "PropertiesChanged"?:
                    guard try message.readString() == MediaPlayer.playerInterface else { return }
                    let names = try message.readChangedPropertyNames()
                    signals.append("PropertiesChanged " + names.joined(separator: ","))
                default:
                    signals.append("unexpected \(message.member ?? "?")")
                }
            } catch {
                Issue.record("an unreadable signal: \(error)")
            }
        }

        /// Handles what has come in until `condition` holds, for at most five seconds.
        func waitUntil(_ condition: () throws -> Bool) -> Bool {
            let deadline = DispatchTime.now() + .seconds(5)
            while DispatchTime.now() < deadline {
                do {
                    while try bus.process() {}
                    if try condition() { return true }
                    try bus.wait(timeout: .milliseconds(20))
                } catch {
                    Issue.record("\(error)")
                    return false
                }
            }
            return false
        }

        func nameHasOwner() throws -> Bool {
            let call = try bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner")
            try call.append(MediaPlayer.service)
            return try bus.call(call).readBool()
        }

        func callPlayer(_ method: String) throws {
            let call = try bus.newMethodCall(
                destination: MediaPlayer.service, path: MediaPlayer.objectPath, interface: MediaPlayer.playerInterface,
                member: method)
            _ = try bus.call(call)
        }

        /// `Get` of a property of `org.mpris.MediaPlayer2.Player`, the reply at its variant.
        private func get(_ property: String, contents: String) throws -> BusMessage {
            let call = try bus.newMethodCall(
                destination: MediaPlayer.service, path: MediaPlayer.objectPath,
                interface: "org.freedesktop.DBus.Properties", member: "Get")
            try call.append(MediaPlayer.playerInterface)
            try call.append(property)
            let reply = try bus.call(call)
            try reply.enterContainer("v", contents: contents)
            return reply
        }

        func playbackStatus() throws -> String {
            try get("PlaybackStatus", contents: "s").readString()
        }

        /// `Metadata`'s `mpris:trackid`, if it has one.
        func trackID() throws -> String? {
            let metadata = try get("Metadata", contents: "a{sv}")
            try metadata.enterContainer("a", contents: "{sv}")
            var found: String?
            while try metadata.enterContainer("e", contents: "sv") {
                if try metadata.readString() == "mpris:trackid" {
                    try metadata.enterContainer("v", contents: "o")
                    found = try metadata.readString(type: "o")
                    try metadata.exitContainer()
                } else {
                    try metadata.skip("v")
                }
                try metadata.exitContainer()
            }
            return found
        }
    }
}

import Dispatch
import IntervalBus
import IntervalCore
import Testing

/// Leaving the bus name without dropping a call (idle exit), on a real session bus; in ``TimerBusTests``'s serialized
/// suite: it owns `org.intervald.Timer1`.
extension TimerBusTests {
    @Test func aStartRoutedBeforeTheNameIsReleasedIsServedAndTheNameTakenAgain() throws {
        let stand = Stand()
        try serve(stand) { server in
            let client = try Bus.openUser(description: "NameReleaseTests")
            try queue.sync {
                // Sent while the server's queue is busy, as when the idle timer fires.
                let start = try client.newMethodCall(
                    destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                    member: TimerMethods.Start.name)
                try start.append("1s run")
                try start.append("")
                try start.append(false)
                try client.send(start)
                // The bus daemon handles one connection's messages in order: once it answers this, it has routed
                // the Start to the name's owner.
                _ = try client.call(
                    client.newMethodCall(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "GetId"))
                try server.releaseNameServingQueuedCalls()
                #expect(stand.startedPlans == ["1s run"])
                try server.reacquireName()
            }
            let read = try TimerBusClient(logger: logger).status()
            #expect(read == stand.current, "the name is owned again and served")
        }
    }
}

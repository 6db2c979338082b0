import IntervalCore

/// The session's systemd user manager (`org.freedesktop.systemd1` on the user bus): the calls a program's reminder
/// needs (docs/programs.md). Each call waits for its reply on a connection of its own, so it is made off any queue a
/// cue waits on; the connection belongs to the thread that made this object.
public final class SystemdUserManager {
    private let bus: Bus
    private static let destination = "org.freedesktop.systemd1"
    private static let path = "/org/freedesktop/systemd1"
    private static let manager = "org.freedesktop.systemd1.Manager"
    static let unitInterface = "org.freedesktop.systemd1.Unit"
    static let timerInterface = "org.freedesktop.systemd1.Timer"
    /// `NoSuchUnit`: what stopping a unit that is not loaded answers.
    static let noSuchUnit = "org.freedesktop.systemd1.NoSuchUnit"

    public init() throws(BusError) {
        bus = try Bus.openUser(description: "intervald-systemd")
    }

    private func call(
        _ member: String, path: String = path, interface: String = manager,
        _ fill: (BusMessage) throws(BusError) -> Void = { _ in }
    ) throws(BusError) -> BusMessage {
        let message = try bus.newMethodCall(
            destination: Self.destination, path: path, interface: interface, member: member)
        try fill(message)
        // A reload can take a while on a busy session; sd-bus's default of 25 s is the bound.
        return try bus.call(message)
    }

    /// `Reload`: reads the unit files again; answered once done.
    public func reload() throws(BusError) {
        _ = try call("Reload")
    }

    /// `EnableUnitFiles(names, runtime false, force true)`: the `[Install]` section's links.
    public func enable(_ names: [String]) throws(BusError) {
        _ = try call("EnableUnitFiles") { message throws(BusError) in
            try message.append(names)
            try message.append(false)
            try message.append(true)
        }
    }

    /// `DisableUnitFiles(names, runtime false)`.
    public func disable(_ names: [String]) throws(BusError) {
        _ = try call("DisableUnitFiles") { message throws(BusError) in
            try message.append(names)
            try message.append(false)
        }
    }

    /// `RestartUnit(name, "replace")`: starts it, or starts it again with what a reload changed.
    public func restart(_ name: String) throws(BusError) {
        _ = try call("RestartUnit") { message throws(BusError) in
            try message.append(name)
            try message.append("replace")
        }
    }

    /// `StopUnit(name, "replace")`; a unit that is not loaded is already stopped.
    public func stop(_ name: String) throws(BusError) {
        do {
            _ = try call("StopUnit") { message throws(BusError) in
                try message.append(name)
                try message.append("replace")
            }
        } catch  where error.name == Self.noSuchUnit {}
    }

    /// `LoadUnit(name)`: the unit's object path, loading it if it is not.
    public func load(_ name: String) throws(BusError) -> String {
        try call("LoadUnit") { message throws(BusError) in try message.append(name) }.readString(type: "o")
    }

    /// The names of the loaded units that match the glob `pattern` (`ListUnitsByPatterns`).
    public func units(matching pattern: String) throws(BusError) -> [String] {
        let reply = try call("ListUnitsByPatterns") { message throws(BusError) in
            try message.append([String]())
            try message.append([pattern])
        }
        var names: [String] = []
        guard try reply.enterContainer("a", contents: "(ssssssouso)") else { return names }
        while try reply.enterContainer("r", contents: "ssssssouso") {
            names.append(try reply.readString())
            try reply.skip("sssssouso")
            try reply.exitContainer()
        }
        try reply.exitContainer()
        return names
    }

    /// Reads property `name` of `interface` at `path` (`org.freedesktop.DBus.Properties.Get`) with `read`, given the
    /// reply positioned inside its variant of `signature`.
    public func property<Value>(
        _ name: String, of interface: String, at path: String, signature: String,
        _ read: (BusMessage) throws(BusError) -> Value
    ) throws(BusError) -> Value {
        let reply = try call("Get", path: path, interface: "org.freedesktop.DBus.Properties") {
            message throws(BusError) in
            try message.append(interface)
            try message.append(name)
        }
        _ = try reply.enterContainer("v", contents: signature)
        return try read(reply)
    }

    /// `StartTransientUnit`: a timer `timer` that elapses once, `after` µs from now, and starts a service of its name
    /// (ending `.service`) that runs `command`; both go away once done.
    public func startTransientTimer(
        _ timer: String, description: String, after: UInt64, command: [String]
    ) throws(BusError) {
        guard timer.hasSuffix(".timer"), let program = command.first else { return }
        let service = String(timer.dropLast(".timer".count)) + ".service"
        _ = try call("StartTransientUnit") { message throws(BusError) in
            try message.append(timer)
            try message.append("fail")
            try message.openContainer("a", contents: "(sv)")
            try message.appendProperty("Description", "s") { message throws(BusError) in
                try message.append(description)
            }
            try message.appendProperty("TimersMonotonic", "a(st)") { message throws(BusError) in
                try message.openContainer("a", contents: "(st)")
                try message.openContainer("r", contents: "st")
                try message.append("OnActiveSec")
                try message.append(after)
                try message.closeContainer()
                try message.closeContainer()
            }
            try message.appendProperty("RemainAfterElapse", "b") { message throws(BusError) in
                try message.append(false)
            }
            try message.closeContainer()
            // The auxiliary unit: the service the timer starts.
            try message.openContainer("a", contents: "(sa(sv))")
            try message.openContainer("r", contents: "sa(sv)")
            try message.append(service)
            try message.openContainer("a", contents: "(sv)")
            try message.appendProperty("Description", "s") { message throws(BusError) in
                try message.append(description)
            }
            try message.appendProperty("Type", "s") { message throws(BusError) in try message.append("oneshot") }
            try message.appendProperty("ExecStart", "a(sasb)") { message throws(BusError) in
                try message.openContainer("a", contents: "(sasb)")
                try message.openContainer("r", contents: "sasb")
                try message.append(program)
                try message.append(command)
                try message.append(false)
                try message.closeContainer()
                try message.closeContainer()
            }
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
        }
    }
}

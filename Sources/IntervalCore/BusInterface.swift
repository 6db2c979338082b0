/// One D-Bus interface that intervald exports, as a table: its methods, properties and signals with their types and a
/// line of documentation each. The bus adapter builds the object's sd-bus vtable from it (`BusObject` in
/// IntervalBus), a test compares every exported object's introspection with it, and docs/dbus-interfaces.md is
/// rendered from it; adding an interface is its table plus its handlers.
public struct BusInterface: Sendable, Equatable {
    /// A method's or a signal's argument.
    public struct Argument: Sendable, Equatable {
        public let name, signature: String

        public init(_ name: String, _ signature: String) {
            self.name = name
            self.signature = signature
        }
    }

    /// How a property announces that it changed.
    public enum PropertyChange: String, Sendable, Equatable {
        /// Never changes while the object is exported.
        case constant
        /// `PropertiesChanged` carries the new value.
        case emitsChange
        /// A value read at the instant of the call, with no change signal (introspected with
        /// `org.freedesktop.DBus.Property.EmitsChangedSignal="false"`).
        case readTime
    }

    public enum Member: Sendable, Equatable {
        case method(name: String, arguments: [Argument], results: [Argument], doc: String)
        case property(name: String, signature: String, change: PropertyChange, doc: String)
        case signal(name: String, arguments: [Argument], doc: String)

        public var name: String {
            switch self {
            case .method(let name, _, _, _), .property(let name, _, _, _), .signal(let name, _, _): name
            }
        }

        public var doc: String {
            switch self {
            case .method(_, _, _, let doc), .property(_, _, _, let doc), .signal(_, _, let doc): doc
            }
        }
    }

    /// The interface's name, e.g. `org.intervald.Timer1`.
    public let name: String
    /// The object path it is exported at.
    public let path: String
    /// What the interface is for, in a sentence.
    public let summary: String
    /// The members in the order of their introspection.
    public let members: [Member]

    public init(name: String, path: String, summary: String, members: [Member]) {
        self.name = name
        self.path = path
        self.summary = summary
        self.members = members
    }

    public var methods: [Member] { members.filter { if case .method = $0 { true } else { false } } }
    public var properties: [Member] { members.filter { if case .property = $0 { true } else { false } } }
    public var signals: [Member] { members.filter { if case .signal = $0 { true } else { false } } }

    /// A method of no arguments and no results.
    public static func method(_ name: String, _ doc: String) -> Member {
        .method(name: name, arguments: [], results: [], doc: doc)
    }

    /// Every interface the daemon exports, in the order of docs/dbus-interfaces.md.
    public static let exported: [BusInterface] = [
        BusNames.timerInterface, MediaPlayer.rootInterfaceTable, MediaPlayer.playerInterfaceTable,
        DesktopLauncher.applicationInterfaceTable, DesktopLauncher.searchProviderInterfaceTable,
        DesktopLauncher.runnerInterfaceTable, TrayItem.interfaceTable, TrayMenu.interfaceTable,
    ]
}

/// The D-Bus error names intervald answers with or recognises, in one place: its own (``TimerCommandError/Code``) and
/// the standard ones of the D-Bus specification.
public enum BusErrorName {
    public static let failed = standard("Failed"), invalidArgs = standard("InvalidArgs")
    public static let unknownMethod = standard("UnknownMethod"), unknownProperty = standard("UnknownProperty")
    public static let serviceUnknown = standard("ServiceUnknown"), nameHasNoOwner = standard("NameHasNoOwner")
    public static let noReply = standard("NoReply"), timeout = standard("Timeout"), timedOut = standard("TimedOut")
    public static let disconnected = standard("Disconnected")
    /// The prefix of the bus daemon's activation failures (`…Spawn.ChildExited`, `…Spawn.ExecFailed`, …).
    public static let spawnPrefix = standard("Spawn.")

    private static func standard(_ name: String) -> String { "org.freedesktop.DBus.Error." + name }
}

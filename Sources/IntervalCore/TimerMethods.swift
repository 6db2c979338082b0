/// A method of `org.intervald.Timer1` (docs/reference.md §3), described once by a type: its name, its arguments as
/// the type's fields, its reply, the refusals it may answer with, and a line of documentation. The interface's
/// introspection (``BusNames/timerInterface``), the daemon's decoding and dispatch (`TimerBusServer`) and the
/// client's encoding (`TimerBusClient.call(_:)`) all come from it: adding a method is its type here, listed in
/// ``TimerMethods/all``, the daemon's handler and the CLI command.
public protocol TimerMethod: Sendable {
    associatedtype Reply: TimerMethodReply
    /// The method's D-Bus name.
    static var name: String { get }
    /// The arguments in the order of the call's signature.
    static var arguments: [TimerCallField<Self>] { get }
    /// The refusals (`org.intervald.Timer1.Error.*`) the method answers with.
    static var refusals: [TimerCommandError.Code] { get }
    /// What the method does, for docs/dbus-interfaces.md.
    static var doc: String { get }
    /// A call with every argument at its empty value, which decoding fills in.
    init()
    /// Hands a decoded call to the daemon's timer, which answers it by calling `answer` once.
    static func perform(
        _ call: Self, on timer: any TimerBusDelegate, answer: @escaping (Result<Reply, TimerCommandError>) -> Void)
}

/// What a ``TimerMethod`` answers: its values as the type's fields.
public protocol TimerMethodReply: Sendable, Equatable {
    static var results: [TimerCallField<Self>] { get }
    init()
}

/// The reply of a method that answers nothing but success.
public struct NoReply: TimerMethodReply {
    public static let results: [TimerCallField<NoReply>] = []
    public init() {}
}

extension Result where Success == NoReply, Failure == TimerCommandError {
    /// The outcome of a command that answers nothing.
    init(_ outcome: Result<Void, TimerCommandError>) { self = outcome.map { NoReply() } }

    /// The outcome of running `command`.
    init(running command: () throws(TimerCommandError) -> Void) {
        self = Result<Void, TimerCommandError> { () throws(TimerCommandError) in try command() }.map { NoReply() }
    }
}

/// A value of an argument or a result, of one of the D-Bus types the methods use.
public enum TimerCallValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case boolean(Bool)
    case strings([String])

    public var description: String {
        switch self {
        case .string(let text): text
        case .boolean(let flag): "\(flag)"
        case .strings(let texts): "\(texts)"
        }
    }

    /// The D-Bus type signature of a value.
    public enum Signature: String, Sendable {
        case string = "s"
        case boolean = "b"
        case strings = "as"
    }
}

/// One argument of a method (or one value of a reply): its name, its D-Bus type, and the field of `Owner` that holds
/// it.
public struct TimerCallField<Owner>: Sendable {
    public let name: String
    public let signature: TimerCallValue.Signature
    /// A check of a string argument's length in bytes, run with the call's other arguments before the text is copied
    /// (a plan text of a gigabyte is refused without a copy); nil for none.
    public let checkSize: (@Sendable (Int, Owner) throws(TimerCommandError) -> Void)?
    private let read: @Sendable (Owner) -> TimerCallValue
    private let write: @Sendable (inout Owner, TimerCallValue) -> Bool

    /// The field's value in `owner`.
    public func value(of owner: Owner) -> TimerCallValue { read(owner) }

    /// Stores `value` into `owner`; false when it is not of this field's type.
    @discardableResult
    public func assign(_ value: TimerCallValue, to owner: inout Owner) -> Bool { write(&owner, value) }

    /// The argument as a row of the interface's table.
    public var argument: BusInterface.Argument { .init(name, signature.rawValue) }

    /// A field held at `path`; `checkSize` is for string fields.
    public static func field<Value: TimerCallValueType>(
        _ name: String, _ path: WritableKeyPath<Owner, Value> & Sendable,
        checkSize: (@Sendable (Int, Owner) throws(TimerCommandError) -> Void)? = nil
    ) -> TimerCallField {
        TimerCallField(
            name: name, signature: Value.callSignature, checkSize: checkSize,
            read: { $0[keyPath: path].callValue },
            write: { owner, value in
                guard let typed = Value(callValue: value) else { return false }
                owner[keyPath: path] = typed
                return true
            })
    }
}

/// The Swift types of arguments and results: their D-Bus type and their case of ``TimerCallValue``.
public protocol TimerCallValueType: Sendable {
    static var callSignature: TimerCallValue.Signature { get }
    var callValue: TimerCallValue { get }
    init?(callValue: TimerCallValue)
}

extension String: TimerCallValueType {
    public static let callSignature = TimerCallValue.Signature.string
    public var callValue: TimerCallValue { .string(self) }
    public init?(callValue: TimerCallValue) {
        guard case .string(let text) = callValue else { return nil }
        self = text
    }
}

extension Bool: TimerCallValueType {
    public static let callSignature = TimerCallValue.Signature.boolean
    public var callValue: TimerCallValue { .boolean(self) }
    public init?(callValue: TimerCallValue) {
        guard case .boolean(let flag) = callValue else { return nil }
        self = flag
    }
}

extension [String]: TimerCallValueType {
    public static let callSignature = TimerCallValue.Signature.strings
    public var callValue: TimerCallValue { .strings(self) }
    public init?(callValue: TimerCallValue) {
        guard case .strings(let texts) = callValue else { return nil }
        self = texts
    }
}

extension TimerMethod {
    /// The method as a row of the interface's table.
    public static var member: BusInterface.Member {
        .method(name: name, arguments: arguments.map(\.argument), results: Reply.results.map(\.argument), doc: doc)
    }

    /// The call's argument values, in order.
    public var values: [TimerCallValue] { Self.arguments.map { $0.value(of: self) } }
}

/// A method without arguments that answers success or a refusal: a control of the workout.
public protocol TimerControl: TimerMethod where Reply == NoReply {
    /// What the timer does for it.
    static func run(on timer: any TimerBusDelegate) throws(TimerCommandError)
}

extension TimerControl {
    public static var arguments: [TimerCallField<Self>] { [] }

    public static func perform(
        _ call: Self, on timer: any TimerBusDelegate, answer: @escaping (Result<NoReply, TimerCommandError>) -> Void
    ) {
        answer(Result(running: { () throws(TimerCommandError) in try run(on: timer) }))
    }
}

extension TimerMethodReply {
    /// The reply's values, in order.
    public var values: [TimerCallValue] { Self.results.map { $0.value(of: self) } }
}

/// The methods of `org.intervald.Timer1`.
public enum TimerMethods {
    /// Every method, in the order of the interface's introspection.
    public static let all: [any TimerMethod.Type] = [
        Start.self, StartProgram.self, RemindProgram.self, Stop.self, Pause.self, Resume.self, Skip.self,
        Restart.self, ReloadSettings.self,
    ]

    /// `Start(s plan, s origin, b replace)`.
    public struct Start: TimerMethod {
        public typealias Reply = NoReply
        public var plan = "", origin = "", replace = false

        public init() {}
        public init(plan: String, origin: String, replace: Bool) {
            (self.plan, self.origin, self.replace) = (plan, origin, replace)
        }

        public static let name = "Start"
        public static let arguments: [TimerCallField<Start>] = [
            .field(
                "plan", \.plan,
                checkSize: { bytes, call throws(TimerCommandError) in
                    try WorkoutSession.checkSize(bytes: bytes, origin: call.origin)
                }),
            .field("origin", \.origin), .field("replace", \.replace),
        ]
        public static let refusals: [TimerCommandError.Code] = [.invalidPlan, .alreadyRunning]
        public static let doc =
            "Starts `plan` (plan-language text; `origin` names it in diagnostics). While a plan runs, fails "
            + "with `AlreadyRunning` unless `replace`, which stops it (reason `replaced`) first."

        public static func perform(
            _ call: Start, on timer: any TimerBusDelegate,
            answer: @escaping (Result<NoReply, TimerCommandError>) -> Void
        ) {
            timer.start(plan: call.plan, origin: call.origin, replace: call.replace) { answer(Result($0)) }
        }
    }

    /// `StartProgram(s program, s day, b replace)`.
    public struct StartProgram: TimerMethod {
        public typealias Reply = NoReply
        public var program = "", day = "", replace = false

        public init() {}
        public init(program: String, day: String, replace: Bool) {
            (self.program, self.day, self.replace) = (program, day, replace)
        }

        public static let name = "StartProgram"
        public static let arguments: [TimerCallField<StartProgram>] = [
            .field("program", \.program), .field("day", \.day), .field("replace", \.replace),
        ]
        public static let refusals: [TimerCommandError.Code] = [.invalidPlan, .invalidState, .alreadyRunning]
        public static let doc =
            "Starts a day of training program `program` (a name, docs/programs.md): day `day` (`3.2`), or "
            + "the next one when `day` is empty. The workout's name says the day; when it finishes, the day is "
            + "done and the program moves on. `InvalidPlan` for a program or day that is not there, "
            + "`InvalidState` for a complete program; `replace` as for `Start`."

        public static func perform(
            _ call: StartProgram, on timer: any TimerBusDelegate,
            answer: @escaping (Result<NoReply, TimerCommandError>) -> Void
        ) {
            timer.startProgram(call.program, day: call.day, replace: call.replace) { answer(Result($0)) }
        }
    }

    /// `RemindProgram(s program)`.
    public struct RemindProgram: TimerMethod {
        public typealias Reply = NoReply
        public var program = ""

        public init() {}
        public init(program: String) { self.program = program }

        public static let name = "RemindProgram"
        public static let arguments: [TimerCallField<RemindProgram>] = [.field("program", \.program)]
        public static let refusals: [TimerCommandError.Code] = [.invalidPlan, .invalidState]
        public static let doc =
            "Shows program `program`'s reminder: a notification of its next day with Start and Later "
            + "(docs/programs.md). What a reminder's systemd timer runs, through `intervalctl program remind "
            + "--now NAME`. Shows nothing while a workout runs; `InvalidPlan` for a program that is not there."

        public static func perform(
            _ call: RemindProgram, on timer: any TimerBusDelegate,
            answer: @escaping (Result<NoReply, TimerCommandError>) -> Void
        ) {
            timer.remindProgram(call.program) { answer(Result($0)) }
        }
    }

    /// `Stop()`.
    public struct Stop: TimerControl {
        public static let name = "Stop", doc = "Stops the workout (reason `user`); succeeds when none runs."
        public static let refusals: [TimerCommandError.Code] = []
        public init() {}
        public static func run(on timer: any TimerBusDelegate) { timer.stop() }
    }

    /// `Pause()`.
    public struct Pause: TimerControl {
        public static let name = "Pause", doc = "Pauses; `NotRunning` when idle, `InvalidState` when paused."
        public static let refusals: [TimerCommandError.Code] = [.notRunning, .invalidState]
        public init() {}
        public static func run(on timer: any TimerBusDelegate) throws(TimerCommandError) { try timer.pause() }
    }

    /// `Resume()`.
    public struct Resume: TimerControl {
        public static let name = "Resume", doc = "Resumes; `NotRunning` when idle, `InvalidState` when running."
        public static let refusals: [TimerCommandError.Code] = [.notRunning, .invalidState]
        public init() {}
        public static func run(on timer: any TimerBusDelegate) throws(TimerCommandError) { try timer.resume() }
    }

    /// `Skip()`.
    public struct Skip: TimerControl {
        public static let name = "Skip", doc = "Ends the current segment now; `NotRunning` when idle."
        public static let refusals: [TimerCommandError.Code] = [.notRunning]
        public init() {}
        public static func run(on timer: any TimerBusDelegate) throws(TimerCommandError) { try timer.skip() }
    }

    /// `Restart()`.
    public struct Restart: TimerControl {
        public static let name = "Restart"
        public static let doc =
            "Starts the current segment again from its beginning, with its cue (the window's Restart, MPRIS "
            + "`Previous`); `NotRunning` when idle."
        public static let refusals: [TimerCommandError.Code] = [.notRunning]
        public init() {}
        public static func run(on timer: any TimerBusDelegate) throws(TimerCommandError) { try timer.restart() }
    }

    /// `ReloadSettings() → as problems`.
    public struct ReloadSettings: TimerMethod {
        /// The settings file's problems, each with its line.
        public struct Reply: TimerMethodReply {
            public var problems: [String] = []

            public init() {}
            public init(problems: [String]) { self.problems = problems }

            public static let results: [TimerCallField<Reply>] = [.field("problems", \.problems)]
        }

        public init() {}
        public static let name = "ReloadSettings"
        public static let arguments: [TimerCallField<ReloadSettings>] = []
        public static let refusals: [TimerCommandError.Code] = []
        public static let doc =
            "Reads `intervald.toml` again and applies it from the next cue, without interrupting a workout "
            + "(as SIGHUP and a change of the file do); answers the file's problems, each with its line. A "
            + "setting whose new value is invalid keeps the value it had."

        public static func perform(
            _ call: ReloadSettings, on timer: any TimerBusDelegate,
            answer: @escaping (Result<Reply, TimerCommandError>) -> Void
        ) {
            answer(.success(Reply(problems: timer.reloadSettings())))
        }
    }
}

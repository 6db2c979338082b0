import IntervalCore
import IntervalRuntime
import Logging

/// The chosen treadmill or bike during a workout (docs/machines.md), driven through its Fitness Machine service's
/// control point (0x2AD9) by a ``BlueZDeviceLink``: indications on, control requested, then started, paused, stopped
/// and given each step's target as the workout asks (``want(_:)``, from any thread). One procedure at a time, each
/// answered `[0x80, opcode, result]` within ``answerTime``. Refused, unanswered, control taken back (machine status
/// 0xFF) or the machine lost: said once, naming the machine, and nothing more is asked of it until the next step, when
/// control is requested again. What the machine reads (treadmill or indoor bike data) goes to ``Handlers/read``.
public final class FitnessMachineLink: BlueZDeviceLink, @unchecked Sendable {
    /// How long a procedure may wait for its answer.
    public static let answerTime: Int64 = 3_000_000

    /// Whether the machine should be moving.
    public enum Run: Sendable, Equatable {
        case running, paused, stopped
    }

    /// What the workout wants of the machine now.
    public struct Wish: Sendable, Equatable {
        public var run: Run
        /// The step's target; nil leaves the machine as it is.
        public var target: FitnessMachineRequest?
        /// Counts the steps: a new step may ask for control again after a refusal.
        public var step: Int64

        public init(run: Run, target: FitnessMachineRequest?, step: Int64) {
            (self.run, self.target, self.step) = (run, target, step)
        }
    }

    public struct Handlers: Sendable {
        /// The machine was found: its kind.
        public var found: @Sendable (SensorKind) -> Void
        /// A reading of its data.
        public var read: @Sendable (MachineReading) -> Void
        /// No readings any more (lost, or the link stopped).
        public var lost: @Sendable () -> Void
        /// A sentence for the person, once per change.
        public var said: @Sendable (String) -> Void

        public init(
            found: @escaping @Sendable (SensorKind) -> Void,
            read: @escaping @Sendable (MachineReading) -> Void, lost: @escaping @Sendable () -> Void,
            said: @escaping @Sendable (String) -> Void
        ) {
            (self.found, self.read, self.lost, self.said) = (found, read, lost, said)
        }
    }

    private let handlers: Handlers
    private let wish = Locked(Wish(run: .stopped, target: nil, step: -1))

    public init(address: String, logger: Logger, handlers: Handlers) {
        self.handlers = handlers
        super.init(address: address, logger: logger, say: handlers.said)
    }

    override public func start() { super.start() }
    override public func stop() { super.stop() }

    /// What the workout wants now; done on the link's thread at once.
    public func want(_ wish: Wish) {
        self.wish.withLock { $0 = wish }
        wake()
    }

    // MARK: The link's thread

    /// What the machine was last told and answered.
    private var controlled = false
    private var appliedRun: Run?
    private var appliedTarget: FitnessMachineRequest?
    /// The procedure waiting for its answer, and when it was written (µs, monotonic).
    private var awaiting: (request: FitnessMachineRequest, since: Int64)?
    /// The step from which control may be asked for again; nil: now.
    private var quietUntilStep: Int64?
    /// The machine's name, for sentences; its address until it is found.
    private var machine: String { name ?? address }
    /// The targets it accepts, when it says.
    private var range: FitnessMachineRange?
    /// When the link was first asked to stop with the machine still started here (µs, monotonic).
    private var stopAsked: Int64?
    private var saidProblem = false

    override var kinds: Set<SensorKind> { [.treadmill, .bike] }

    override func characteristics(of kind: SensorKind) -> [String] {
        [
            BluetoothUUID.fitnessMachineControlPoint, BluetoothUUID.fitnessMachineStatus,
            kind == .treadmill ? BluetoothUUID.treadmillData : BluetoothUUID.indoorBikeData,
        ]
    }

    override func subscribed(with client: BlueZClient, in objects: BlueZObjects) {
        if let kind {
            handlers.found(kind)
            range = readRange(of: kind, in: objects, with: client)
        }
        if foundAgain() { say(tr("{machine} is found again.", ["machine": machine])) }
        (controlled, appliedRun, appliedTarget, awaiting, quietUntilStep) = (false, nil, nil, nil, nil)
    }

    override func received(_ bytes: [UInt8], from characteristic: String) {
        switch characteristic {
        case BluetoothUUID.treadmillData, BluetoothUUID.indoorBikeData:
            let reading =
                characteristic == BluetoothUUID.treadmillData
                ? MachineReading(treadmillData: bytes) : MachineReading(indoorBikeData: bytes)
            if let reading { handlers.read(reading) }
        case BluetoothUUID.fitnessMachineStatus:
            if FitnessMachineStatus(bytes) == .controlLost, controlled {
                giveUp(
                    tr(
                        "{machine} took back control; the plan's targets stop until it gives it back.",
                        ["machine": machine]))
            }
        case BluetoothUUID.fitnessMachineControlPoint:
            guard let response = FitnessMachineResponse(bytes), let (request, _) = awaiting,
                response.opcode == request.opcode
            else { return }
            awaiting = nil
            answered(request, response.result)
        default:
            break
        }
    }

    private func answered(_ request: FitnessMachineRequest, _ result: FitnessMachineResponse.Result) {
        guard result == .success else {
            if result == .controlNotPermitted || request == .requestControl {
                return giveUp(
                    tr(
                        "{machine} refused control ({result}); the plan's targets stop until it gives control.",
                        ["machine": machine, "result": result.words]))
            }
            // Not asked again this step: the same request would be refused again.
            sayProblem(
                tr(
                    "{machine} refused {request} ({result}).",
                    ["machine": machine, "request": request.words, "result": result.words]))
            settle(request)
            return
        }
        if request == .requestControl {
            controlled = true
            saidProblem = false
        }
        settle(request)
    }

    /// `request` was done (or refused for good): what the machine was told.
    private func settle(_ request: FitnessMachineRequest) {
        switch request {
        case .requestControl: break
        case .start: appliedRun = .running
        case .pause:
            // Some machines resume at their lowest speed: the step's target is sent again after the resume.
            (appliedRun, appliedTarget) = (.paused, nil)
        case .stop: appliedRun = .stopped
        case .targetSpeed, .targetPower: appliedTarget = request
        }
    }

    override func tick(with client: BlueZClient, now: Int64) {
        guard subscription(BluetoothUUID.fitnessMachineControlPoint) != nil else { return }
        if let (request, since) = awaiting {
            guard now - since > Self.answerTime else { return }
            awaiting = nil
            return giveUp(
                tr(
                    "{machine} did not answer {request} within 3 seconds; the plan's targets stop until it gives control.",
                    ["machine": machine, "request": request.words]))
        }
        let wish = wish.withLock { $0 }
        if let quiet = quietUntilStep {
            guard wish.step > quiet else { return }
            quietUntilStep = nil
        }
        let next: FitnessMachineRequest?
        if !controlled {
            next = wish.run == .stopped && appliedRun == nil ? nil : .requestControl
        } else if appliedRun != wish.run {
            next = wish.run == .running ? .start : wish.run == .paused ? .pause : .stop
        } else if wish.run == .running, let target = wish.target, target != appliedTarget {
            next = target
        } else {
            next = nil
        }
        if let next { write(next, with: client, now: now) }
    }

    /// The supported speed range of a treadmill or power range of a bike; nil when it has none or it cannot be read.
    private func readRange(of kind: SensorKind, in objects: BlueZObjects, with client: BlueZClient)
        -> FitnessMachineRange?
    {
        let uuid = kind == .treadmill ? BluetoothUUID.supportedSpeedRange : BluetoothUUID.supportedPowerRange
        guard let device, let path = objects.characteristic(uuid, of: device),
            let bytes = try? client.readValue(of: path, timeout: .seconds(3))
        else { return nil }
        return kind == .treadmill ? FitnessMachineRange(speedRange: bytes) : FitnessMachineRange(powerRange: bytes)
    }

    private func write(_ request: FitnessMachineRequest, with client: BlueZClient, now: Int64) {
        guard let controlPoint = subscription(BluetoothUUID.fitnessMachineControlPoint) else { return }
        // Settled as asked: the wish is compared with what the plan wanted, not with what the machine could take.
        let sent = range?.fitting(request) ?? request
        do throws(BusError) {
            try client.writeValue(sent.bytes, to: controlPoint, timeout: .seconds(3))
            awaiting = (request, now)
            logger.debug("Wrote to the machine.", metadata: ["bytes": "\(sent.bytes)"])
        } catch {
            giveUp(
                tr(
                    "{machine} refused {request} ({detail}); the plan's targets stop until it gives control.",
                    ["machine": machine, "request": request.words, "detail": error.message ?? error.description]))
        }
    }

    /// Control is gone: said once, and not asked for again until the next step.
    private func giveUp(_ sentence: String) {
        sayProblem(sentence)
        (controlled, appliedRun, appliedTarget) = (false, nil, nil)
        quietUntilStep = wish.withLock { $0.step }
    }

    private func sayProblem(_ sentence: String) {
        guard !saidProblem else { return }
        saidProblem = true
        say(sentence)
    }

    /// Stopping: the machine is stopped first if it was started here, for at most ``answerTime``.
    override func mayFinish(now: Int64) -> Bool {
        if awaiting == nil, appliedRun == nil || appliedRun == .stopped || !controlled { return true }
        wish.withLock { $0.run = .stopped }
        let since = stopAsked ?? now
        stopAsked = since
        return now - since > Self.answerTime
    }

    override func lost() {
        (controlled, awaiting) = (false, nil)
        handlers.lost()
    }

    override func lostSentence() -> String {
        tr("{machine} is out of range; the plan's targets stop until it is back.", ["machine": machine])
    }

    override func unknownSentence() -> String {
        tr("The machine {address} is not known to BlueZ.", ["address": address])
    }
}

import IntervalCore
import IntervalRuntime
import Logging

/// The chosen heart-rate strap during a workout (docs/sensors.md), followed by a ``BlueZDeviceLink``: its measurement
/// characteristic (0x2A37) subscribed, each value read as a Heart Rate Measurement, malformed ones dropped. Silent for
/// ``silence``: lost, as when it disconnects; heard again: said once.
public final class HeartRateStrap: BlueZDeviceLink, @unchecked Sendable {
    /// Without a measurement this long the heart rate is gone from the screen.
    public static let silence: Int64 = 4_000_000

    public struct Handlers: Sendable {
        /// A measurement's bpm.
        public var heard: @Sendable (Int) -> Void
        /// No heart rate any more (lost, silent, or the reader stopped).
        public var lost: @Sendable () -> Void
        /// A sentence for the person, once per change: not available, lost, found again.
        public var said: @Sendable (String) -> Void

        public init(
            heard: @escaping @Sendable (Int) -> Void, lost: @escaping @Sendable () -> Void,
            said: @escaping @Sendable (String) -> Void
        ) {
            (self.heard, self.lost, self.said) = (heard, lost, said)
        }
    }

    private let handlers: Handlers
    /// When the last measurement came (µs, monotonic), and whether one came since the strap was last lost.
    private var lastHeard: Int64 = 0
    private var hearing = false

    public init(address: String, logger: Logger, handlers: Handlers) {
        self.handlers = handlers
        super.init(address: address, logger: logger, say: handlers.said)
    }

    override public func start() { super.start() }
    override public func stop() { super.stop() }

    override var kinds: Set<SensorKind> { [.heartRate] }

    override func characteristics(of kind: SensorKind) -> [String] { [BluetoothUUID.heartRateMeasurement] }

    override func received(_ bytes: [UInt8], from characteristic: String) {
        guard let measurement = HeartRateMeasurement(bytes) else {
            logger.debug("Dropped a malformed heart-rate measurement.", metadata: ["bytes": "\(bytes)"])
            return
        }
        lastHeard = Int64(monotonicMicroseconds())
        if foundAgain() { say(tr("The heart-rate strap is found again.")) }
        hearing = true
        handlers.heard(measurement.bpm)
    }

    override func tick(with client: BlueZClient, now: Int64) {
        if hearing, now - lastHeard > Self.silence { lose(tr("The heart-rate strap went silent.")) }
    }

    override func lost() {
        hearing = false
        handlers.lost()
    }

    override func lostSentence() -> String { tr("The heart-rate strap is lost; looking for it.") }

    override func unknownSentence() -> String {
        tr("The heart-rate strap {address} is not known to BlueZ.", ["address": address])
    }
}

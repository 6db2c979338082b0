import CSystemd
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// The chosen heart-rate strap during a workout (docs/sensors.md), read through BlueZ on a thread of its own, which
/// owns its system-bus connection (sd-bus is not thread-safe; nothing of it runs on the queue that times the cues):
/// found by its address among BlueZ's objects, connected (`Device1.Connect`), its measurement characteristic (0x2A37)
/// subscribed once `ServicesResolved` (`StartNotify`), each `PropertiesChanged` of its `Value` read as a Heart Rate
/// Measurement, malformed ones dropped. Lost (disconnected, or silent for ``silence``): said once, tried again every
/// ``retry``; found again: said once. At ``stop()``: unsubscribed, and disconnected if it was connected here.
public final class HeartRateStrap: @unchecked Sendable {
    /// Without a measurement this long the heart rate is gone from the screen.
    public static let silence: Int64 = 4_000_000
    /// How often a lost or unfound strap is looked for again.
    public static let retry: Int64 = 3_000_000

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

    private let address: String
    private let handlers: Handlers
    private let logger: Logger
    private let stopping = Locked(false)
    private var thread: pthread_t?

    public init(address: String, logger: Logger, handlers: Handlers) {
        (self.address, self.logger, self.handlers) = (address.uppercased(), logger, handlers)
    }

    /// Starts reading on a thread of its own.
    public func start() {
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let strap = Unmanaged<HeartRateStrap>.fromOpaque(context).takeRetainedValue()
                strap.run()
                return nil
            }, unmanaged.toOpaque())
        if created == 0 {
            self.thread = thread
        } else {
            unmanaged.release()
            logger.warning("Failed to start the heart-rate strap's thread.", metadata: ["errno": "\(created)"])
        }
    }

    /// Stops reading and waits until the strap is let go.
    public func stop() {
        stopping.withLock { $0 = true }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    // MARK: The reader's thread

    /// What the reader knows of the strap, on its thread only.
    private var device: String?
    private var characteristic: String?
    private var connectedHere = false
    private var lastHeard: Int64 = 0
    private var hearing = false
    private var wasLost = false
    private var saidUnavailable = false
    /// When to look for the strap next (µs, monotonic): at once after BlueZ resolved its services.
    private var nextLook: Int64 = 0

    private func run() {
        let client: BlueZClient
        do throws(SensorError) {
            client = try BlueZClient(description: "intervald-heart-rate")
        } catch {
            sayUnavailable(error.description)
            return
        }
        let bus = client.bus
        let context = Unmanaged.passUnretained(self).toOpaque()
        let slot: BusSlot
        do throws(BusError) {
            slot = try bus.matchSignal(
                sender: "org.bluez", path: nil, interface: "org.freedesktop.DBus.Properties",
                member: "PropertiesChanged",
                callback: onBlueZPropertiesChanged, userdata: context)
        } catch {
            logger.warning("Failed to watch BlueZ's properties.", metadata: ["error": "\(error)"])
            return
        }
        while !stopping.withLock({ $0 }) {
            let now = Int64(monotonicMicroseconds())
            if characteristic == nil, now >= nextLook {
                look(with: client)
                nextLook = now + Self.retry
            }
            if hearing, now - lastHeard > Self.silence { lose(tr("The heart-rate strap went silent.")) }
            do throws(BusError) {
                while try bus.process() {}
                try bus.wait(timeout: .milliseconds(250))
            } catch {
                logger.warning("The system bus failed; the heart rate is not read.", metadata: ["error": "\(error)"])
                break
            }
        }
        letGo(with: client)
        withExtendedLifetime(slot) {}
        handlers.lost()
    }

    /// Finds the strap, connects it and subscribes to its measurements, as far as it is ready.
    private func look(with client: BlueZClient) {
        let objects: BlueZObjects
        do throws(SensorError) {
            objects = try client.objects()
            if let reason = objects.unavailability { throw .unavailable(reason) }
        } catch {
            sayUnavailable(error.description)
            return
        }
        saidUnavailable = false
        guard let path = objects.sensors.first(where: { $0.address == address && $0.kind == .heartRate })?.path else {
            sayUnavailable(tr("The heart-rate strap {address} is not known to BlueZ.", ["address": address]))
            return
        }
        device = path
        let properties = objects.objects[path]?[BlueZObjects.deviceInterface] ?? [:]
        do throws(BusError) {
            if properties["Connected"]?.bool != true {
                try client.call(path, BlueZObjects.deviceInterface, "Connect", timeout: .seconds(10))
                connectedHere = true
                return  // Subscribed once BlueZ says ServicesResolved.
            }
            guard properties["ServicesResolved"]?.bool == true,
                let measurement = objects.characteristic(BluetoothUUID.heartRateMeasurement, of: path)
            else { return }
            try client.call(measurement, BlueZObjects.characteristicInterface, "StartNotify", timeout: .seconds(5))
            characteristic = measurement
            logger.info("Reading the heart-rate strap.", metadata: ["device": "\(path)"])
        } catch {
            logger.info("The heart-rate strap is not reachable yet.", metadata: ["error": "\(error)"])
        }
    }

    /// A `PropertiesChanged` of BlueZ's: a measurement, or the strap's connection.
    fileprivate func changed(_ message: BusMessage) {
        guard let path = message.path else { return }
        do throws(BusError) {
            let interface = try message.readString()
            let properties = try message.readProperties()
            if path == characteristic, interface == BlueZObjects.characteristicInterface,
                let bytes = properties["Value"]?.bytes
            {
                guard let measurement = HeartRateMeasurement(bytes) else {
                    logger.debug("Dropped a malformed heart-rate measurement.", metadata: ["bytes": "\(bytes)"])
                    return
                }
                lastHeard = Int64(monotonicMicroseconds())
                if wasLost { handlers.said(tr("The heart-rate strap is found again.")) }
                (hearing, wasLost) = (true, false)
                handlers.heard(measurement.bpm)
            } else if path == device, interface == BlueZObjects.deviceInterface {
                if properties["Connected"]?.bool == false { lose(tr("The heart-rate strap is lost; looking for it.")) }
                if properties["ServicesResolved"]?.bool == true, characteristic == nil {
                    // Connected here: subscribed on the next turn of the loop, not after the retry's wait.
                    nextLook = 0
                }
            }
        } catch {
            logger.debug("Failed to read BlueZ's PropertiesChanged, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    private func lose(_ sentence: String) {
        characteristic = nil
        guard hearing || !wasLost else { return }
        hearing = false
        if !wasLost { handlers.said(sentence) }
        wasLost = true
        handlers.lost()
    }

    private func sayUnavailable(_ sentence: String) {
        guard !saidUnavailable else { return }
        saidUnavailable = true
        handlers.said(sentence)
    }

    /// Unsubscribes, and disconnects the strap if it was connected here.
    private func letGo(with client: BlueZClient) {
        if let characteristic {
            _ = try? client.call(
                characteristic, BlueZObjects.characteristicInterface, "StopNotify", timeout: .seconds(2))
        }
        if connectedHere, let device {
            _ = try? client.call(device, BlueZObjects.deviceInterface, "Disconnect", timeout: .seconds(2))
        }
    }
}

private let onBlueZPropertiesChanged: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    Unmanaged<HeartRateStrap>.fromOpaque(userdata).takeUnretainedValue().changed(BusMessage(borrowing: message))
    return 0
}

import CSystemd
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// A chosen Bluetooth device during a workout (docs/sensors.md, docs/machines.md), followed through BlueZ on a thread of
/// its own, which owns its system-bus connection (sd-bus is not thread-safe; nothing of it runs on the queue that times
/// the cues): found by its address among BlueZ's objects, connected (`Device1.Connect`), the characteristics
/// ``characteristics(of:)`` names subscribed once `ServicesResolved` (`StartNotify`), and each `PropertiesChanged` of
/// their `Value` handed to ``received(_:from:)``. Lost (disconnected, or what a subclass decides): said once, tried
/// again every ``retry``. At ``stop()``: unsubscribed, and disconnected if it was connected here.
///
/// A subclass says what it reads and what it does with it; everything it overrides runs on the link's thread.
public class BlueZDeviceLink: @unchecked Sendable {
    /// How often a lost or unfound device is looked for again.
    static let retry: Int64 = 3_000_000

    let address: String
    let logger: Logger
    /// A sentence for the person, once per change.
    let say: @Sendable (String) -> Void
    private let stopping = Locked(false)
    private var thread: pthread_t?
    /// A pipe written by ``wake()`` from any thread to end the link thread's wait at once: read end, write end.
    private let wakePipe: (read: Int32, write: Int32)

    init(address: String, logger: Logger, say: @escaping @Sendable (String) -> Void) {
        (self.address, self.logger, self.say) = (address.uppercased(), logger, say)
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        } else {
            logger.warning(
                "Failed to make a wake-up pipe; waits end every quarter second.", metadata: ["errno": "\(errno)"])
        }
        wakePipe = (ends[0], ends[1])
    }

    deinit {
        if wakePipe.read >= 0 { close(wakePipe.read) }
        if wakePipe.write >= 0 { close(wakePipe.write) }
    }

    /// Starts following the device on a thread of its own.
    func start() {
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let link = Unmanaged<BlueZDeviceLink>.fromOpaque(context).takeRetainedValue()
                link.run()
                return nil
            }, unmanaged.toOpaque())
        if created == 0 {
            self.thread = thread
        } else {
            unmanaged.release()
            logger.warning("Failed to start a Bluetooth device's thread.", metadata: ["errno": "\(created)"])
        }
    }

    /// Stops following the device and waits until it is let go.
    func stop() {
        stopping.withLock { $0 = true }
        wake()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    /// Ends the link thread's wait, so that what was handed to it is done now, not at the next quarter second.
    func wake() {
        var byte: UInt8 = 1
        // A full pipe already wakes the thread.
        _ = write(wakePipe.write, &byte, 1)
    }

    // MARK: What a subclass says (on the link's thread)

    /// The kinds of device it follows.
    var kinds: Set<SensorKind> { [] }
    /// The characteristics (128-bit UUIDs) to subscribe on a device of `kind`.
    func characteristics(of kind: SensorKind) -> [String] { [] }
    /// Every characteristic is subscribed, at the start or after a loss; `objects` are BlueZ's as it was found in them.
    func subscribed(with client: BlueZClient, in objects: BlueZObjects) {}
    /// A subscribed characteristic's new value.
    func received(_ bytes: [UInt8], from characteristic: String) {}
    /// Each turn of the loop, at least every quarter second.
    func tick(with client: BlueZClient, now: Int64) {}
    /// The device is gone: disconnected, or ``lose(_:)`` was called.
    func lost() {}
    /// Whether the link may end now that it is asked to stop: a subclass with a last word for the device (a
    /// machine's stop) keeps it until that is said.
    func mayFinish(now: Int64) -> Bool { true }
    /// "The heart-rate strap C0:FF:EE:12:34:56 is not known to BlueZ."
    func unknownSentence() -> String { "" }

    // MARK: The link's thread

    /// The device, once found, the kind it is and its name.
    private(set) var device: String?
    private(set) var kind: SensorKind?
    private(set) var name: String?
    /// The subscribed characteristics: UUID → object path.
    private(set) var subscriptions: [String: String] = [:]
    private var connectedHere = false
    private var saidUnavailable = false
    /// Lost and said so: said once until ``foundAgain()``.
    private var saidLost = false
    /// When to look for the device next (µs, monotonic): at once after BlueZ resolved its services.
    private var nextLook: Int64 = 0

    /// The path of the subscribed characteristic `uuid`.
    func subscription(_ uuid: String) -> String? { subscriptions[uuid] }

    private func run() {
        let client: BlueZClient
        do throws(SensorError) {
            client = try BlueZClient(description: "intervald-\(address)")
        } catch {
            sayUnavailable(error.description)
            lost()
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
            lost()
            return
        }
        while true {
            let now = Int64(monotonicMicroseconds())
            let isStopping = stopping.withLock { $0 }
            if isStopping, subscriptions.isEmpty || mayFinish(now: now) { break }
            if subscriptions.isEmpty, now >= nextLook, !isStopping {
                look(with: client)
                nextLook = now + Self.retry
            }
            tick(with: client, now: now)
            do throws(BusError) {
                while try bus.process() {}
                try wait(on: bus)
            } catch {
                logger.warning("The system bus failed; the device is not followed.", metadata: ["error": "\(error)"])
                break
            }
        }
        letGo(with: client)
        withExtendedLifetime(slot) {}
        lost()
    }

    /// Waits for the bus, ``wake()`` or a quarter second, whichever comes first.
    private func wait(on bus: Bus) throws(BusError) {
        let busDescriptor = try bus.fileDescriptor()
        let events = Int16(truncatingIfNeeded: try bus.events())
        var timeout: Int32 = 250
        if let due = try bus.timeout() {
            let now = monotonicMicroseconds()
            timeout = min(timeout, Int32(clamping: due > now ? (due - now + 999) / 1000 : 0))
        }
        var descriptors = [
            pollfd(fd: busDescriptor, events: events, revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&descriptors, 2, timeout) > 0, descriptors[1].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &bytes, bytes.count) > 0 {}
        }
    }

    /// Finds the device, connects it and subscribes, as far as it is ready.
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
        guard let found = objects.sensors.first(where: { $0.address == address && kinds.contains($0.kind) }) else {
            sayUnavailable(unknownSentence())
            return
        }
        (device, kind, name) = (found.path, found.kind, found.name)
        let properties = objects.objects[found.path]?[BlueZObjects.deviceInterface] ?? [:]
        do throws(BusError) {
            if properties["Connected"]?.bool != true {
                try client.call(found.path, BlueZObjects.deviceInterface, "Connect", timeout: .seconds(10))
                connectedHere = true
                return  // Subscribed once BlueZ says ServicesResolved.
            }
            guard properties["ServicesResolved"]?.bool == true else { return }
            var paths: [String: String] = [:]
            for uuid in characteristics(of: found.kind) {
                guard let path = objects.characteristic(uuid, of: found.path) else {
                    logger.info("The device lacks a characteristic.", metadata: ["uuid": "\(uuid)"])
                    return
                }
                try client.call(path, BlueZObjects.characteristicInterface, "StartNotify", timeout: .seconds(5))
                paths[uuid] = path
            }
            subscriptions = paths
            logger.info("Following the Bluetooth device.", metadata: ["device": "\(found.path)"])
            subscribed(with: client, in: objects)
        } catch {
            logger.info("The Bluetooth device is not reachable yet.", metadata: ["error": "\(error)"])
        }
    }

    /// A `PropertiesChanged` of BlueZ's: a subscribed value, or the device's connection.
    fileprivate func changed(_ message: BusMessage) {
        guard let path = message.path else { return }
        do throws(BusError) {
            let interface = try message.readString()
            let properties = try message.readProperties()
            if interface == BlueZObjects.characteristicInterface, let bytes = properties["Value"]?.bytes,
                let uuid = subscriptions.first(where: { $0.value == path })?.key
            {
                received(bytes, from: uuid)
            } else if path == device, interface == BlueZObjects.deviceInterface {
                if properties["Connected"]?.bool == false { lose(lostSentence()) }
                if properties["ServicesResolved"]?.bool == true, subscriptions.isEmpty {
                    // Connected here: subscribed on the next turn of the loop, not after the retry's wait.
                    nextLook = 0
                }
            }
        } catch {
            logger.debug("Failed to read BlueZ's PropertiesChanged, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    /// "The heart-rate strap is lost; looking for it."
    func lostSentence() -> String { "" }

    /// The device is gone: said once until ``foundAgain()``, looked for again.
    func lose(_ sentence: String) {
        let wasFollowed = !subscriptions.isEmpty
        subscriptions = [:]
        guard wasFollowed || !saidLost else { return }
        if !saidLost { say(sentence) }
        saidLost = true
        lost()
    }

    /// Answers whether it was lost (and said so) before: a subclass says it is found again.
    func foundAgain() -> Bool {
        defer { saidLost = false }
        return saidLost
    }

    private func sayUnavailable(_ sentence: String) {
        guard !saidUnavailable else { return }
        saidUnavailable = true
        say(sentence)
    }

    /// Unsubscribes, and disconnects the device if it was connected here.
    private func letGo(with client: BlueZClient) {
        for path in subscriptions.values {
            _ = try? client.call(path, BlueZObjects.characteristicInterface, "StopNotify", timeout: .seconds(2))
        }
        if connectedHere, let device {
            _ = try? client.call(device, BlueZObjects.deviceInterface, "Disconnect", timeout: .seconds(2))
        }
    }
}

private let onBlueZPropertiesChanged: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    Unmanaged<BlueZDeviceLink>.fromOpaque(userdata).takeUnretainedValue().changed(BusMessage(borrowing: message))
    return 0
}

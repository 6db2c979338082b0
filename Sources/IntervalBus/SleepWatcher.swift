import CSystemd
import Dispatch
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// logind's side of suspend (docs/reference.md §6), on the system bus: tells the daemon the moment the machine is about
/// to sleep and the moment it wakes (`PrepareForSleep(true)` and `(false)`), and holds a `sleep` delay inhibitor on
/// request, so that the daemon can pause the workout and write its state before the machine sleeps.
///
/// The delay is given back as soon as `onSleep` has returned (logind waits for it up to `InhibitDelayMaxSec`, 5 s by
/// default), and taken again only when the daemon asks, after the wake. It is a file descriptor that logind watches: a
/// daemon that dies releases it with its process.
///
/// Served on the daemon's queue; the callbacks run there. Without a system bus or logind (a container, a session
/// without systemd) there is nothing to watch, and ``start(queue:logger:onSleep:onWake:onChange:)`` returns nil.
public final class SleepWatcher: @unchecked Sendable {
    private final class Context {
        let onSleep: () -> Void
        let onWake: (_ sleptMicroseconds: Int64) -> Void
        let logger: Logger
        weak var watcher: SleepWatcher?
        /// The wall clock (µs) at `PrepareForSleep(true)`, until the wake.
        var asleepSince: Int64?

        init(onSleep: @escaping () -> Void, onWake: @escaping (Int64) -> Void, logger: Logger) {
            self.onSleep = onSleep
            self.onWake = onWake
            self.logger = logger
        }

        func prepareForSleep(_ goingToSleep: Bool) {
            if goingToSleep {
                logger.info("The machine is going to sleep.")
                asleepSince = WallClock.microseconds()
                onSleep()
                watcher?.releaseDelay()
            } else {
                let slept = asleepSince.map { max(WallClock.microseconds() - $0, 0) } ?? 0
                asleepSince = nil
                logger.info("The machine woke up; catching up with the schedule.")
                onWake(slept)
            }
        }
    }

    /// Serves the system bus connection, which it holds.
    private let driver: BusDispatchDriver
    private var slot: BusSlot?
    private let context: Unmanaged<Context>
    private let logger: Logger
    /// Runs when ``isDelaying`` changes.
    private let onChange: () -> Void
    /// The delay is wanted: a workout that a sleep would pause exists.
    private var wanted = false
    private var attempt = 0
    /// logind's inhibitor: closing it lets the machine sleep.
    private var delay: Int32?

    /// A `sleep` delay inhibitor is held now.
    public var isDelaying: Bool { delay != nil }

    private init(
        driver: BusDispatchDriver, slot: BusSlot, context: Unmanaged<Context>, logger: Logger,
        onChange: @escaping () -> Void
    ) {
        self.driver = driver
        self.slot = slot
        self.context = context
        self.logger = logger
        self.onChange = onChange
    }

    deinit {
        if let delay { close(delay) }
        slot = nil
        context.release()
    }

    /// Must be called on `queue`.
    /// - Parameters:
    ///   - onSleep: the machine is about to sleep; the delay, if held, is given back when it returns.
    ///   - onWake: the machine woke, having slept for the given wall-clock microseconds.
    ///   - onChange: ``isDelaying`` changed.
    public static func start(
        queue: DispatchQueue, logger: Logger, onSleep: @escaping () -> Void, onWake: @escaping (Int64) -> Void,
        onChange: @escaping () -> Void
    ) -> SleepWatcher? {
        dispatchPrecondition(condition: .onQueue(queue))
        let context = Unmanaged.passRetained(Context(onSleep: onSleep, onWake: onWake, logger: logger))
        do throws(BusError) {
            let bus = try Bus.openSystem(description: "intervald-sleep")
            let slot = try bus.matchSignal(
                sender: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep",
                callback: { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    let context = Unmanaged<Context>.fromOpaque(userdata).takeUnretainedValue()
                    do throws(BusError) {
                        context.prepareForSleep(try BusMessage(borrowing: message).readBool())
                    } catch {
                        context.logger.warning(
                            "Failed to read PrepareForSleep, ignoring.", metadata: ["error": "\(error)"])
                    }
                    return 0
                },
                userdata: context.toOpaque()
            )
            let driver = BusDispatchDriver(bus: bus, queue: queue, logger: logger) { error in
                logger.info("Lost the system bus; no longer watching for suspend.", metadata: ["error": "\(error)"])
            }
            try driver.start()
            let watcher = SleepWatcher(
                driver: driver, slot: slot, context: context, logger: logger, onChange: onChange)
            context.takeUnretainedValue().watcher = watcher
            return watcher
        } catch {
            context.release()
            logger.info("Not watching for suspend (no system bus or logind here).", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Takes logind's `sleep` delay inhibitor, if not held or asked for already; `why` is what
    /// `systemd-inhibit --list` shows, worded only when it is asked for.
    public func holdDelay(why: @autoclosure () -> String) {
        guard !wanted else { return }
        wanted = true
        attempt += 1
        let attempt = attempt
        do throws(BusError) {
            let message = try driver.bus.newMethodCall(
                destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager", member: "Inhibit")
            try message.setAutoStart(false)
            try message.append("sleep")
            try message.append(tr("Interval Timer"))
            try message.append(why())
            try message.append("delay")
            try driver.bus.callAsync(message, timeout: .seconds(10)) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let reply):
                    do throws(BusError) {
                        let descriptor = try reply.readFileDescriptor()
                        guard wanted, attempt == self.attempt, delay == nil else {
                            close(descriptor)
                            return
                        }
                        delay = descriptor
                        logger.info("Holding a sleep delay: a sleep pauses the workout first.")
                        onChange()
                    } catch {
                        logger.info("An odd answer to logind's Inhibit.", metadata: ["error": "\(error)"])
                    }
                case .failure(let error):
                    logger.info("logind gave no sleep delay.", metadata: ["error": "\(error)"])
                }
            }
            driver.updateInterest()
        } catch {
            logger.info("Could not ask logind for a sleep delay.", metadata: ["error": "\(error)"])
        }
    }

    /// Gives logind's delay back (a workout ended, or the machine is about to sleep).
    public func releaseDelay() {
        wanted = false
        guard let delay else { return }
        close(delay)
        self.delay = nil
        logger.info("Gave the sleep delay back.")
        onChange()
    }
}

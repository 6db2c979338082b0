import CSystemd
import Dispatch
import Logging

/// Tells the daemon the moment the machine wakes from suspend, from logind's `PrepareForSleep(false)` signal on
/// the system bus, so that it can move to the segment due now at once instead of when its timer runs out on the
/// monotonic clock (which stops during sleep).
///
/// Served on the daemon's queue; `onResume` runs there. Without a system bus or logind (a container, a session
/// without systemd) there is nothing to watch, and ``start(queue:logger:onResume:)`` returns nil.
public final class SleepWatcher: @unchecked Sendable {
    private final class Context {
        let onResume: () -> Void
        let logger: Logger

        init(onResume: @escaping () -> Void, logger: Logger) {
            self.onResume = onResume
            self.logger = logger
        }
    }

    private let driver: BusDispatchDriver
    private var slot: BusSlot?
    private let context: Unmanaged<Context>

    private init(driver: BusDispatchDriver, slot: BusSlot, context: Unmanaged<Context>) {
        self.driver = driver
        self.slot = slot
        self.context = context
    }

    deinit {
        slot = nil
        context.release()
    }

    /// Must be called on `queue`.
    public static func start(queue: DispatchQueue, logger: Logger, onResume: @escaping () -> Void) -> SleepWatcher? {
        dispatchPrecondition(condition: .onQueue(queue))
        let context = Unmanaged.passRetained(Context(onResume: onResume, logger: logger))
        do throws(BusError) {
            let bus = try Bus.openSystem(description: "intervald-sleep")
            let slot = try bus.matchSignal(
                sender: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                interface: "org.freedesktop.login1.Manager", member: "PrepareForSleep",
                callback: { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    let context = Unmanaged<Context>.fromOpaque(userdata).takeUnretainedValue()
                    do throws(BusError) {
                        // true: going to sleep; false: woken up.
                        if try !BusMessage(borrowing: message).readBool() {
                            context.logger.info("The machine woke up; catching up with the schedule.")
                            context.onResume()
                        }
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
            return SleepWatcher(driver: driver, slot: slot, context: context)
        } catch {
            context.release()
            logger.info("Not watching for suspend (no system bus or logind here).", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

import Dispatch
import IntervalCore
import Logging

/// What the ``Watchdog`` talks to: systemd (``SystemdNotifier``), or a test's recorder.
public protocol WatchdogNotifying: Sendable {
    /// The unit's `WatchdogSec=`, or nil when the watchdog is off.
    func watchdogInterval() throws(BusError) -> Duration?
    /// `WATCHDOG=1`.
    func watchdog() throws(BusError) -> Bool
    /// Any `sd_notify` state, e.g. `WATCHDOG_USEC=…`.
    func notify(_ state: String) throws(BusError) -> Bool
}

/// Pets systemd's watchdog from the daemon's queue, the one that would hang, at half its interval.
///
/// An idle daemon must not wake up periodically (docs/reference.md §6), so while no workout runs it asks systemd for a
/// long interval (`WATCHDOG_USEC`, one day) and stops its timer; a workout brings back the configured interval. As an
/// output of the daemon's session it learns from every event whether a workout is active.
public final class Watchdog: WorkoutOutput {
    private static let idleInterval: Duration = .seconds(86_400)
    private let systemd: any WatchdogNotifying
    private let logger: Logger
    private let interval: Duration?
    private let timer: DispatchSourceTimer

    private var workoutActive = false {
        didSet {
            guard workoutActive != oldValue, let interval else { return }
            configure(active: workoutActive, interval: interval)
        }
    }

    public init(queue: DispatchQueue, systemd: any WatchdogNotifying, logger: Logger) {
        self.systemd = systemd
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: queue)
        var interval: Duration?
        do {
            interval = try systemd.watchdogInterval()
        } catch {
            logger.warning("Failed to read the watchdog settings, ignoring.", metadata: ["error": "\(error)"])
        }
        self.interval = interval
        timer.setEventHandler { [systemd, logger] in
            do {
                _ = try systemd.watchdog()
            } catch {
                logger.warning("Failed to pet the watchdog, ignoring.", metadata: ["error": "\(error)"])
            }
        }
        timer.activate()
        if let interval { configure(active: false, interval: interval) }
    }

    public func handle(_ moment: WorkoutMoment) {
        workoutActive = moment.status.state != .idle
    }

    deinit {
        timer.cancel()
    }

    private func configure(active: Bool, interval: Duration) {
        let effective = active ? interval : Self.idleInterval
        let microseconds = effective.wholeMicroseconds
        do {
            _ = try systemd.notify("WATCHDOG_USEC=\(microseconds)\nWATCHDOG=1")
        } catch {
            logger.warning("Failed to set the watchdog interval, ignoring.", metadata: ["error": "\(error)"])
        }
        if active {
            let half = DispatchTimeInterval.microseconds(Int(microseconds / 2))
            timer.schedule(deadline: .now() + half, repeating: half, leeway: .milliseconds(100))
        } else {
            timer.schedule(deadline: .distantFuture)
        }
    }
}

import CSystemd
import Dispatch
import Foundation
import Glibc
import Logging
import Testing

@testable import IntervalBus

/// A served connection whose descriptor sd-bus closes (a lost connection, or `sd_bus_close`) before the driver stops:
/// libdispatch takes a cancelled source out of its poll set later, by the descriptor's number, and a file opened
/// meanwhile gets the lowest free number, the one sd-bus closed.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] != nil, "needs a session bus"))
struct BusDispatchDriverTests {
    @Test func aFileOpenedWhereAClosedConnectionWasIsStillWatchedAfterTheDriverStops() throws {
        let queue = DispatchQueue(label: "test.driver")
        let bus = try Bus.openUser(description: "closed-under-the-driver")
        let driver = BusDispatchDriver(bus: bus, queue: queue, logger: Logger(label: "test")) { _ in }
        try driver.start()
        let number = try bus.fileDescriptor()
        var ends: [Int32] = [0, 0]
        let woke = DispatchSemaphore(value: 0)
        let registered = DispatchSemaphore(value: 0)
        let reader = try queue.sync { () throws -> DispatchSourceRead in
            sd_bus_close(bus.pointer)
            // The next descriptor the process opens: the pipe's read end takes the number sd-bus freed.
            #expect(pipe(&ends) == 0)
            driver.stop()
            // Watched before the driver's cancellation is carried out, which waits for this block to end.
            let reader = DispatchSource.makeReadSource(
                fileDescriptor: ends[0], queue: DispatchQueue(label: "test.pipe"))
            reader.setEventHandler { woke.signal() }
            reader.setRegistrationHandler { registered.signal() }
            // Closed once libdispatch has let go of it, as the driver's own: closed at the cancel, its number could
            // go to another test's file (the signal pipe of SignalDuringCallTests), whose registration the late
            // removal would take.
            let readEnd = ends[0]
            reader.setCancelHandler { close(readEnd) }
            reader.activate()
            #expect(registered.wait(timeout: .now() + 10) == .success)
            return reader
        }
        defer {
            reader.cancel()
            close(ends[1])
        }
        queue.sync {}  // the driver's cancellation has been carried out
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(
            woke.wait(timeout: .now() + 10) == .success,
            "the pipe (descriptor \(ends[0]), the bus's was \(number)) woke its source")
    }
}

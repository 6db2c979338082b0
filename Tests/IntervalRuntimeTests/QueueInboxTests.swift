import Dispatch
import Testing

@testable import IntervalRuntime

@Suite struct QueueInboxTests {
    @Test func whatAnotherThreadSendsArrivesOnTheQueueOnceEachAndInOrder() {
        let queue = DispatchQueue(label: "QueueInboxTests.owner")
        let owner = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: owner, value: true)
        let count = 10_000
        let received = Locked<[Int]>([])
        let offQueue = Locked(0)
        let done = DispatchSemaphore(value: 0)
        let inbox = QueueInbox<Int>(queue: queue) { number in
            if DispatchQueue.getSpecific(key: owner) != true { offQueue.withLock { $0 += 1 } }
            let total = received.withLock { received in
                received.append(number)
                return received.count
            }
            if total == count { done.signal() }
        }
        DispatchQueue(label: "QueueInboxTests.sender").async {
            for number in 0..<count {
                inbox.send(number)
                // The queue is busy at times while events arrive: they wait for it, in order.
                if number % 1_000 == 0 { queue.async { keepBusy(milliseconds: 1) } }
            }
        }
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        queue.sync {}
        #expect(received.withLock { $0 } == Array(0..<count))
        #expect(offQueue.withLock { $0 } == 0)
    }

    @Test func whatTheQueueSendsItselfWhileDeliveringArrivesAfter() {
        let queue = DispatchQueue(label: "QueueInboxTests.owner")
        let received = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let inboxBox = Locked<QueueInbox<String>?>(nil)
        let inbox = QueueInbox<String>(queue: queue) { word in
            received.withLock { $0.append(word) }
            if word == "first" { inboxBox.withLock { $0 }?.send("third") }
            if word == "third" { done.signal() }
        }
        inboxBox.withLock { $0 = inbox }
        queue.sync {
            inbox.send("first")
            inbox.send("second")
        }
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(received.withLock { $0 } == ["first", "second", "third"])
        inboxBox.withLock { $0 = nil }
    }
}

private func keepBusy(milliseconds: Int) {
    let until = DispatchTime.now() + .milliseconds(milliseconds)
    while DispatchTime.now() < until {}
}

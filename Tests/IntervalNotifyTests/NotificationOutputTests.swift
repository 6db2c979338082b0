import Dispatch
import IntervalCore
import IntervalRuntime
import IntervalTestSupport
import Logging
import Testing

@testable import IntervalNotify

/// NotificationOutput's rules on the virtual clock, with a recorder in place of libnotify: one notification per
/// workout, each next cue prepared ahead and sent by the notifier at the change (not sent twice), a pause or a
/// stop cancelling what was prepared, the buttons of each state.
@Suite struct NotificationOutputTests {
    final class Recorder: CueNotifying, @unchecked Sendable {
        let log = Locked<[String]>([])

        func show(_ notification: WorkoutNotification) {
            log.withLock { $0.append("show \(notification.summary) [\(Self.buttons(notification))]") }
        }
        func show(_ notification: WorkoutNotification, at deadline: ClockInstant) {
            log.withLock { $0.append("at \(deadline / 1_000_000) s: \(notification.summary)") }
        }
        func cancelScheduled() { log.withLock { $0.append("cancel") } }
        func close() { log.withLock { $0.append("close") } }
        func adopt(serverID id: UInt32) { log.withLock { $0.append("adopt \(id)") } }

        static func buttons(_ notification: WorkoutNotification) -> String {
            notification.actions.map(\.rawValue).joined(separator: ",")
        }
    }

    /// A session on a virtual clock whose one output is a notification output showing through a recorder.
    func notifiedSession() -> (WorkoutSession, ManualTimerSource, Recorder) {
        let recorder = Recorder()
        let queue = DispatchQueue(label: "NotificationOutputTests")
        let (session, clock) = ManualTimerSource.session()
        let output = NotificationOutput(
            style: CueStyle(), session: session, queue: queue, logger: Logger(label: "test")
        ) { _, _ in recorder }
        session.outputs = [output]
        return (session, clock, recorder)
    }

    @Test func eachCueIsPreparedAheadAndShownOnceAndAStopClosesIt() throws {
        let (session, clock, recorder) = notifiedSession()
        try session.start("3x(10s run)", origin: "", replace: false)
        clock.advance(by: 10_000_000)  // the prepared cue: the notifier sent it, the output does not again
        try session.pause()
        try session.resume()
        session.stop(.user)
        #expect(
            recorder.log.withLock { $0 } == [
                "cancel", "show Run · 10 s [stop,pause,skip]", "at 10 s: Run · 10 s",
                "at 20 s: Run · 10 s",
                "cancel", "show Paused · Run [stop,resume,skip]",
                "cancel", "show Run · 10 s [stop,pause,skip]", "at 20 s: Run · 10 s",
                "cancel", "close",
            ])
    }

    /// A skip or a restart while paused moved to a segment that stays paused: the notification said "Run · 30 s" with
    /// Pause while everything else said paused (docs/reference.md §4).
    @Test func aSegmentMovedToWhilePausedShowsPausedWithResume() throws {
        let (session, _, recorder) = notifiedSession()
        try session.start("name \"P\"\n10s run, 20s walk, 5s run", origin: "", replace: false)
        try session.pause()
        try session.skip()
        try session.restartSegment()
        #expect(
            recorder.log.withLock { $0 }.filter { $0.hasPrefix("show") } == [
                "show Run · 10 s [stop,pause,skip]",
                "show Paused · Run [stop,resume,skip]",
                "show Paused · Walk [stop,resume,skip]",
                "show Paused · Walk [stop,resume,skip]",
            ])
    }
}

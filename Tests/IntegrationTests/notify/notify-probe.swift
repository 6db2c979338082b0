// A driver for LibNotifyNotifier, built by run-notify-tests (not by Package.swift): reads commands on stdin,
// one a line, and prints what happens on stdout, so a shell test can drive it under scripts/test-desktop.
//
//   show SUMMARY|BODY[|ACTIONS[|URGENCY[|SOUND]]]   ACTIONS: comma-separated keys (default "stop"), "-" for none
//   close                                           close the workout's notification
//   sync                                            wait until the GLib thread has done all work; prints "synced"
//   wait-action SECONDS                             prints "action KEY" or "timeout"
//   quit                                            shut the GLib thread down and exit
// Every command returns at once except sync and wait-action; each prints "ok COMMAND" when done.

import Dispatch
import Foundation
import IntervalCore
import IntervalNotify
import IntervalRuntime
import Logging

final class Actions: Sendable {
    private let received = Locked<[NotificationAction]>([])
    private let signal = DispatchSemaphore(value: 0)

    func append(_ action: NotificationAction) {
        received.withLock { $0.append(action) }
        signal.signal()
    }

    func next(timeout: Double) -> NotificationAction? {
        guard signal.wait(timeout: .now() + timeout) == .success else {
            return nil
        }
        return received.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

@main
struct NotifyProbe {
    static func main() {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel =
                ProcessInfo.processInfo.environment["PROBE_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .debug
            return handler
        }
        let logger = Logger(label: "notify-probe")
        let actions = Actions()
        let mainLoop = GLibMainLoopThread.shared(appName: "intervald", logger: logger)
        var notifier: LibNotifyNotifier? = LibNotifyNotifier(mainLoop: mainLoop, logger: logger) { action in
            say("action \(action.rawValue)")
            actions.append(action)
        }
        while let line = readLine() {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard let command = parts.first else { continue }
            let argument = parts.count > 1 ? parts[1] : ""
            switch command {
            case "show":
                let fields = argument.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                let keys = fields.count > 2 ? fields[2] : "stop"
                let cue = WorkoutNotification(
                    summary: fields[0],
                    body: fields.count > 1 ? fields[1] : "",
                    actions: keys == "-"
                        ? [] : keys.split(separator: ",").compactMap { NotificationAction(rawValue: String($0)) },
                    urgency: fields.count > 3 ? NotificationUrgency(rawValue: fields[3]) ?? .normal : .normal,
                    soundName: fields.count > 4 ? (fields[4] == "-" ? nil : fields[4]) : "bell"
                )
                notifier?.show(cue)
            case "close":
                notifier?.close()
            case "sync":
                _ = mainLoop.invokeAndWait {}
                say("synced")
            case "wait-action":
                if let action = actions.next(timeout: Double(argument) ?? 10) {
                    say("got \(action.rawValue)")
                } else {
                    say("timeout")
                }
            case "release":
                notifier = nil
            case "quit":
                notifier = nil
                mainLoop.shutdown()
                say("ok quit")
                return
            default:
                say("unknown \(command)")
                continue
            }
            say("ok \(command)")
        }
        notifier = nil
        mainLoop.shutdown()
    }
}

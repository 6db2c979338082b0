// Floor: the Swift runtime, Dispatch and all of Foundation (what intervald and intervalctl import), a parked timer and
// a Foundation Thread.
import Dispatch
import Foundation

let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
if CommandLine.arguments.dropFirst().first == "exit" { exit(home.isEmpty ? 1 : 0) }
let queue = DispatchQueue(label: "floor")
let timer = DispatchSource.makeTimerSource(queue: queue)
timer.schedule(deadline: .distantFuture)
timer.setEventHandler {}
timer.activate()
let thread = Thread { while true { sleep(1_000_000) } }
thread.start()
print("ready")
fflush(stdout)
dispatchMain()

// Floor: the Swift runtime, Dispatch and FoundationEssentials (what swift-argument-parser links), a parked timer.
import Dispatch
import FoundationEssentials
import Glibc

let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
if CommandLine.arguments.dropFirst().first == "exit" { exit(home.isEmpty ? 1 : 0) }
let queue = DispatchQueue(label: "floor")
let timer = DispatchSource.makeTimerSource(queue: queue)
timer.schedule(deadline: .distantFuture)
timer.setEventHandler {}
timer.activate()
print("ready")
fflush(stdout)
dispatchMain()

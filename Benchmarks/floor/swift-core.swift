// Floor: the Swift runtime alone (no Foundation, no Dispatch). `exit` as the argument exits at once (start-up time);
// otherwise it waits forever (resident memory).
import Glibc

if CommandLine.arguments.dropFirst().first == "exit" { exit(0) }
print("ready")
fflush(stdout)
while true { pause() }

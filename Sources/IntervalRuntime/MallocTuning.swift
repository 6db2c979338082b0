import CRuntimeShims

/// glibc's malloc, tuned for a daemon of a dozen threads that each allocate a little (docs/architecture.md,
/// "Threads and who owns what"). Both calls come first thing in `main`, before any thread starts.
public enum MallocTuning {
    /// How ``turnOffThreadCaches()`` went.
    public enum Outcome: Equatable, Sendable {
        /// The caches are off: this process image was exec'd with the tunable.
        case off
        /// GLIBC_TUNABLES already sets the caches' size: left as the user chose.
        case leftAsGiven
        /// The process could not exec itself again (errno): it goes on with the caches.
        case failed(Int32)
    }

    /// One arena for every thread. Each thread that allocates would otherwise get an arena of its own, and the pages
    /// it touches: 0.3 MiB in all in the daemon (docs/benchmarks.md, "Footprint of the package").
    public static func useOneArena() {
        ir_use_one_malloc_arena()
    }

    /// Turns off the per-thread caches of freed blocks (tcache). Each thread keeps up to seven freed blocks of each
    /// small size for itself, held out of the shared arena, and the arena grows around them as the threads come and
    /// go: with the caches, the daemon's heap held about 0.3 MiB more and grew through a workout with a strap and a
    /// machine (docs/benchmarks.md). glibc reads the setting only at an exec, so the first call execs the binary again
    /// with the same arguments and returns in the new image; GLIBC_TUNABLES is then put back as it was given, for the
    /// hooks and the other processes the daemon starts.
    public static func turnOffThreadCaches() -> Outcome {
        let result = ir_malloc_without_thread_caches(executablePath(), CommandLine.unsafeArgv)
        switch result {
        case 1: return .off
        case 0: return .leftAsGiven
        default: return .failed(-result)
        }
    }
}

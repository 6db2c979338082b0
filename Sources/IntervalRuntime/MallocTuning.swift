import CRuntimeShims

/// glibc's malloc arenas, as a daemon of a dozen threads that each allocate a little wants them.
public enum MallocArenas {
    /// One arena for every thread. Each thread that allocates would otherwise get an arena of its own, and the pages
    /// it touches: 0.3 MiB in all in the daemon (docs/benchmarks.md, "Footprint of the package"). Small blocks still
    /// come from each thread's own cache without a lock. Call it before any thread starts.
    public static func useOne() {
        ir_use_one_malloc_arena()
    }
}

import CRuntimeShims

/// The pages of code and read-only data the process has run or read, mapped from the page cache: they count as
/// resident for as long as the process lives, run again or not (docs/benchmarks.md).
public enum ResidentCode {
    /// Drops the process's mappings of every loaded object's read-only pages; what runs again is mapped again from the
    /// page cache, a minor fault per 64 KiB. Returns how many bytes of segments it went over.
    @discardableResult
    public static func release() -> Int {
        Int(ir_release_read_only_pages())
    }
}

/// The C library's allocator.
public enum Heap {
    /// Gives memory freed back to the system: glibc keeps the freed pages of a large allocation (a 32 MiB plan text
    /// from a careless caller) in its heap otherwise. The corresponding C function is `malloc_trim` (`<malloc.h>`,
    /// which the Glibc module does not export).
    public static func trim() {
        _ = systemMallocTrim(0)
    }
}

@_silgen_name("malloc_trim")
private func systemMallocTrim(_ pad: Int) -> Int32

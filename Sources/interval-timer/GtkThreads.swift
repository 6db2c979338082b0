import CGtk
import CGtkShims
import IntervalGLib

/// Runs `body` on the GLib main thread (the one that runs GTK), from any thread.
func onMainThread(_ body: @escaping @Sendable () -> Void) {
    it_post_main(
        { data in ClosureBox.from(data, as: (@Sendable () -> Void).self)?() }, ClosureBox.retained(body),
        ClosureBox.release)
}

/// Runs `body` once on the main thread after `milliseconds`; returns the source's id for `g_source_remove`.
@discardableResult
func after(milliseconds: UInt32, _ body: @escaping () -> Void) -> UInt32 {
    return g_timeout_add_full(
        G_PRIORITY_HIGH, guint(milliseconds),
        { data in
            ClosureBox.from(data, as: (() -> Void).self)?()
            return 0  // G_SOURCE_REMOVE
        }, ClosureBox.retained(body), ClosureBox.release)
}

import CGtk
import Glibc
import IntervalGLib

/// For the benchmark (docs/benchmarks.md, "The window"): with `$INTERVALD_WINDOW_TRACE` naming a file, when the
/// window's first frame and every change of its digits reached the screen, as lines of µs on CLOCK_MONOTONIC (the
/// bus monitor's clock):
///
///     first-frame PAINTED
///     digits TEXT SET PAINTED
///
/// SET is when the label got TEXT, PAINTED the end of the next frame the frame clock painted (`after-paint`).
final class FrameTrace {
    private let file: UnsafeMutablePointer<FILE>
    private var firstFrame = true
    private var pending: [(text: String, set: Int64)] = []

    init?(environment: [String: String]) {
        guard let path = environment["INTERVALD_WINDOW_TRACE"], !path.isEmpty, let file = fopen(path, "a") else {
            return nil
        }
        self.file = file
    }

    deinit {
        fclose(file)
    }

    /// Follows `window`'s frames once it is realized (it has a frame clock only then).
    func attach(to window: Widget) {
        on(window, .realize) { [unowned self] in
            guard let clock = gtk_widget_get_frame_clock(window) else { return }
            on(UnsafeMutableRawPointer(clock), .afterPaint) { [unowned self] in painted() }
        }
    }

    func digitsChanged(to text: String) {
        pending.append((text, Int64(g_get_monotonic_time())))
    }

    private func painted() {
        let now = Int64(g_get_monotonic_time())
        if firstFrame {
            write("first-frame \(now)")
            firstFrame = false
        }
        for change in pending { write("digits \(change.text) \(change.set) \(now)") }
        pending.removeAll()
    }

    private func write(_ line: String) {
        fputs(line + "\n", file)
        fflush(file)
    }
}

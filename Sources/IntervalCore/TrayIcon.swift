/// The tray item's icons (docs/reference.md §12): a disc in the tone's colour (``ToneColours``: work warm, rest cool,
/// paused grey) with a stopwatch hand, or two bars when paused. Drawn once here, as SVG for the icon theme
/// (`desktop/org.intervald.Timer1-work.svg` …, checked against ``svg(_:)`` by a test) and as pixels for `IconPixmap`,
/// which hosts use when the theme has no such icon (a build that is not installed).
public enum TrayIcon {
    /// The sizes of `IconPixmap`, in pixels: hosts pick the nearest to their panel.
    public static let pixmapSizes = [22, 32, 48]

    public static func name(_ tone: WorkoutDisplay.Tone) -> String { "\(DesktopIdentity.iconName)-\(tone.rawValue)" }

    /// One shape, in a 22 × 22 box.
    enum Shape: Equatable {
        case disc(x: Double, y: Double, radius: Double)
        /// A line with round ends.
        case stroke(x1: Double, y1: Double, x2: Double, y2: Double, width: Double)
        case rectangle(x: Double, y: Double, width: Double, height: Double)
    }

    static let box = 22.0

    /// The background disc, then the white marks on it.
    static func marks(_ tone: WorkoutDisplay.Tone) -> [Shape] {
        switch tone {
        case .work, .rest:
            [.stroke(x1: 11, y1: 11, x2: 15, y2: 5.5, width: 2.5), .disc(x: 11, y: 11, radius: 2)]
        case .paused:
            [.rectangle(x: 7, y: 6.5, width: 2.75, height: 9), .rectangle(x: 12.25, y: 6.5, width: 2.75, height: 9)]
        }
    }

    static let background = Shape.disc(x: 11, y: 11, radius: 10.5)

    /// The icon as an SVG document.
    public static func svg(_ tone: WorkoutDisplay.Tone) -> String {
        let colour = ToneColours.hex(tone)
        let lines =
            [
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                "<!-- intervald's tray icon while \(tone == .paused ? "paused" : "at \(tone.rawValue)"). Generated from "
                    + "TrayIcon.swift; a test checks it. -->",
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"22\" height=\"22\" viewBox=\"0 0 22 22\">",
                "  " + element(background, fill: colour),
            ] + marks(tone).map { "  " + element($0, fill: "#ffffff") } + ["</svg>", ""]
        return lines.joined(separator: "\n")
    }

    private static func element(_ shape: Shape, fill: String) -> String {
        switch shape {
        case .disc(let x, let y, let radius):
            "<circle cx=\"\(number(x))\" cy=\"\(number(y))\" r=\"\(number(radius))\" fill=\"\(fill)\"/>"
        case .stroke(let x1, let y1, let x2, let y2, let width):
            "<line x1=\"\(number(x1))\" y1=\"\(number(y1))\" x2=\"\(number(x2))\" y2=\"\(number(y2))\" "
                + "stroke=\"\(fill)\" stroke-width=\"\(number(width))\" stroke-linecap=\"round\"/>"
        case .rectangle(let x, let y, let width, let height):
            "<rect x=\"\(number(x))\" y=\"\(number(y))\" width=\"\(number(width))\" height=\"\(number(height))\" "
                + "fill=\"\(fill)\"/>"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The icon as `size` × `size` pixels of ARGB32 in network byte order (the StatusNotifierItem's `IconPixmap`),
    /// not premultiplied; each pixel is sampled 4 × 4 times for smooth edges.
    public static func pixmap(_ tone: WorkoutDisplay.Tone, size: Int) -> [UInt8] {
        let scale = box / Double(size)
        let samples = 4
        let rgb = ToneColours.rgb(tone)
        let red = Double(rgb >> 16 & 0xff), green = Double(rgb >> 8 & 0xff), blue = Double(rgb & 0xff)
        let marks = marks(tone)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(size * size * 4)
        for row in 0..<size {
            for column in 0..<size {
                var disc = 0.0
                var white = 0.0
                for sy in 0..<samples {
                    for sx in 0..<samples {
                        let x = (Double(column) + (Double(sx) + 0.5) / Double(samples)) * scale
                        let y = (Double(row) + (Double(sy) + 0.5) / Double(samples)) * scale
                        guard covers(background, x, y) else { continue }
                        disc += 1
                        if marks.contains(where: { covers($0, x, y) }) { white += 1 }
                    }
                }
                let alpha = disc / Double(samples * samples)
                // Within the disc, the share of white.
                let mix = disc > 0 ? white / disc : 0
                func channel(_ base: Double) -> UInt8 { UInt8((base + (255 - base) * mix).rounded()) }
                pixels += [UInt8((alpha * 255).rounded()), channel(red), channel(green), channel(blue)]
            }
        }
        return pixels
    }

    private static func covers(_ shape: Shape, _ x: Double, _ y: Double) -> Bool {
        switch shape {
        case .disc(let cx, let cy, let radius):
            return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius
        case .stroke(let x1, let y1, let x2, let y2, let width):
            // The distance to the segment, within half the width (round ends included).
            let dx = x2 - x1, dy = y2 - y1
            let along = max(0, min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
            let px = x1 + along * dx - x, py = y1 + along * dy - y
            return px * px + py * py <= width * width / 4
        case .rectangle(let rx, let ry, let width, let height):
            return x >= rx && x <= rx + width && y >= ry && y <= ry + height
        }
    }
}

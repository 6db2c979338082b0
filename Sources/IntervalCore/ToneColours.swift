/// The one table of colours (docs/window.md): each kind is coloured by its tone, warm for work and cool for rest, as
/// `#rrggbb`, in the workout view's background, the plans' timelines, the history chart and the tray icon alike.
///
/// Each colour's relative luminance lies between 0.14 and 0.18, so that white text on it has a contrast of at least
/// 4.5:1 and the colour itself 3:1 against both Adwaita's light and dark window backgrounds (a unit test measures it).
public enum ToneColours {
    public static func rgb(_ tone: WorkoutDisplay.Tone) -> UInt32 {
        switch tone {
        case .work: 0xc64600
        case .rest: 0x1c71d8
        case .paused: 0x5e5c64
        }
    }

    /// The tone of a kind of segment: rest for the settings' rest kinds, work for every other.
    public static func tone(ofKind kind: String, restKinds: Set<String>) -> WorkoutDisplay.Tone {
        restKinds.contains(kind) ? .rest : .work
    }

    /// `#rrggbb`.
    public static func hex(_ tone: WorkoutDisplay.Tone) -> String {
        "#" + String(String(rgb(tone) | 0x100_0000, radix: 16).dropFirst())
    }

    /// Red, green and blue from 0 to 1, for cairo.
    public static func components(_ tone: WorkoutDisplay.Tone) -> (red: Double, green: Double, blue: Double) {
        let value = rgb(tone)
        return (Double(value >> 16 & 0xff) / 255, Double(value >> 8 & 0xff) / 255, Double(value & 0xff) / 255)
    }
}

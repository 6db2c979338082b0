import Foundation
import IntervalCore
import Testing

/// WCAG 2's contrast: text needs 4.5:1, controls and graphics 3:1.
@Suite struct ToneColoursTests {
    /// Adwaita's window backgrounds, light and dark.
    private static let backgrounds: [UInt32] = [0xfafafa, 0x242424]

    private static func luminance(_ rgb: UInt32) -> Double {
        func linear(_ byte: UInt32) -> Double {
            let value = Double(byte) / 255
            return value <= 0.039_28 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(rgb >> 16 & 0xff) + 0.7152 * linear(rgb >> 8 & 0xff) + 0.0722 * linear(rgb & 0xff)
    }

    private static func contrast(_ a: UInt32, _ b: UInt32) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test(arguments: WorkoutDisplay.Tone.allCases) func whiteTextReadsOnEveryTone(_ tone: WorkoutDisplay.Tone) {
        #expect(Self.contrast(ToneColours.rgb(tone), 0xffffff) >= 4.5)
    }

    @Test(arguments: [WorkoutDisplay.Tone.work, .rest]) func chartsAndTimelinesStandOutOnLightAndDark(
        _ tone: WorkoutDisplay.Tone
    ) {
        for background in Self.backgrounds {
            #expect(Self.contrast(ToneColours.rgb(tone), background) >= 3, "on \(background)")
        }
    }

    @Test func eachKindTakesItsTonesColourEverywhere() {
        #expect(ToneColours.tone(ofKind: "walk", restKinds: ["walk", "rest"]) == .rest)
        #expect(ToneColours.tone(ofKind: "run", restKinds: ["walk", "rest"]) == .work)
        #expect(ToneColours.hex(.rest) == "#1c71d8")
        #expect(ToneColours.components(.work) == (red: 198 / 255, green: 70 / 255, blue: 0))
        #expect(TrayIcon.svg(.rest).contains("fill=\"#1c71d8\""))
    }
}

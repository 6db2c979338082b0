/// A running pace, stored as speed in metres per second. 1 mi = 1609.344 m.
public struct Pace: Sendable, Equatable, Hashable, Codable {
    public static let metresPerMile = 1609.344

    public var metresPerSecond: Double

    public init(metresPerSecond: Double) {
        self.metresPerSecond = metresPerSecond
    }

    /// Seconds it takes to cover a kilometre.
    public var secondsPerKilometre: Double { 1000 / metresPerSecond }
    /// Seconds it takes to cover a mile.
    public var secondsPerMile: Double { Self.metresPerMile / metresPerSecond }
    public var kilometresPerHour: Double { metresPerSecond * 3.6 }
    public var milesPerHour: Double { metresPerSecond * 3600 / Self.metresPerMile }

    /// Metres covered in `microseconds`.
    public func distance(in microseconds: Int64) -> Double {
        metresPerSecond * Double(microseconds) / 1_000_000
    }

    /// Microseconds it takes to cover `metres`, rounded: how long a step of a distance at this pace lasts, whether it
    /// was written (`0.4km run @ 5:00/km`) or read from a FIT workout.
    public func microseconds(toCover metres: Double) -> Double {
        (metres / metresPerSecond * 1e6).rounded()
    }

    /// "5:30/km"
    public var perKilometreText: String { TimeText.clock(seconds: secondsPerKilometre) + "/km" }
    /// "8:51/mi"
    public var perMileText: String { TimeText.clock(seconds: secondsPerMile) + "/mi" }
}

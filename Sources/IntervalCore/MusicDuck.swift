/// A playback stream of the audio server (a PulseAudio sink input), as ducking sees it (docs/reference.md §11).
public struct PlaybackStream: Sendable, Equatable {
    /// The server's index of the stream.
    public var index: UInt32
    /// Its volume per channel on the server's scale (``StreamVolume/normal`` is 100 %).
    public var volume: [UInt32]
    /// `media.role`: "music", "phone", "event"…
    public var role: String?
    /// `application.process.id` of the client that plays it.
    public var processID: Int32?
    /// `application.name` of that client.
    public var applicationName: String?
    /// `module-stream-restore.id`: the key under which the server remembers a volume set on the stream and gives it to
    /// the next stream of that key (by application or role).
    public var restoreID: String?

    public init(
        index: UInt32, volume: [UInt32], role: String? = nil, processID: Int32? = nil, applicationName: String? = nil,
        restoreID: String? = nil
    ) {
        (self.index, self.volume, self.role, self.processID, self.applicationName, self.restoreID) = (
            index, volume, role, processID, applicationName, restoreID
        )
    }

    /// Whether a duck lowers this stream: not calls (`phone`), not sounds that are cues themselves (`event`: ours,
    /// libcanberra's and the voice's, which intervald starts with that role), not a screen reader (`a11y`, and
    /// speech-dispatcher's streams, whatever started it), not intervald's own streams (`ownProcess`).
    public func isLowered(byDucksOf ownProcess: Int32) -> Bool {
        if let role, Self.rolesNeverLowered.contains(role) { return false }
        if processID == ownProcess { return false }
        if let applicationName, applicationName.hasPrefix("speech-dispatcher") { return false }
        return true
    }

    static let rolesNeverLowered: Set = ["phone", "event", "a11y"]
}

/// Volumes on PulseAudio's scale (`pa_volume_t`): ``normal`` is 100 %, and loudness (amplitude) goes as the cube of
/// the volume's fraction of it, so that a duck to `percent` of a stream's loudness multiplies its volume by the cube
/// root of that fraction. PipeWire's pulse server uses the same scale.
public enum StreamVolume {
    public static let normal: UInt32 = 0x10000
    /// How far a volume the server reports may differ from the one set and still be the one set: PipeWire stores
    /// volumes as floats and reports them rounded.
    public static let tolerance: UInt32 = normal / 200

    /// The volume factor that makes a stream `percent` as loud (amplitude): 30 → 0.669 (−10.5 dB).
    public static func factor(forLoudnessPercent percent: Int) -> Double {
        cubeRoot(Double(min(max(percent, 0), 100)) / 100)
    }

    /// The cube root of `x` in 0…1 by Newton's method (the core links no libm).
    static func cubeRoot(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        var root = 1.0
        for _ in 0..<60 {
            let next = root - (root * root * root - x) / (3 * root * root)
            if abs(next - root) < 1e-12 { return next }
            root = next
        }
        return root
    }

    static func scaled(_ volume: [UInt32], by factor: Double) -> [UInt32] {
        volume.map { UInt32((Double($0) * factor).rounded()) }
    }

    /// Whether two volumes are the same but for the server's rounding.
    public static func matches(_ volume: [UInt32], _ other: [UInt32]) -> Bool {
        volume.count == other.count
            && zip(volume, other).allSatisfy { $0 > $1 ? $0 - $1 <= tolerance : $1 - $0 <= tolerance }
    }
}

/// The streams a duck has lowered, with the volume each had before and the volumes set on it since, so that a volume
/// the server reports that is none of those is the user's own (kept: the stream is forgotten and never restored).
public struct DuckedStreams: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var processID: Int32?
        public var restoreID: String?
        /// The volume before the duck: what the restore sets again.
        public var original: [UInt32]
        /// The lowest volume the duck sets.
        public var lowered: [UInt32]
        /// Volumes set on the stream whose change the server may not have reported yet (the latest last).
        var applied: [[UInt32]]

        public init(processID: Int32?, original: [UInt32], lowered: [UInt32], restoreID: String? = nil) {
            self.processID = processID
            self.restoreID = restoreID
            self.original = original
            self.lowered = lowered
            applied = [lowered]
        }
    }

    public let factor: Double
    public private(set) var entries: [UInt32: Entry] = [:]
    /// How many volumes set on a stream are kept to recognise the server's reports: the lowered one and a whole
    /// fade's, whose reports may all come late on a busy machine (one that fell out would be taken for the user's).
    static let appliedLimit = Int(DuckTimeline.fadeSteps) + 1

    /// - Parameter percent: how loud a lowered stream is, in percent of its loudness (`[sound] duck`).
    public init(loudnessPercent percent: Int) {
        factor = StreamVolume.factor(forLoudnessPercent: percent)
    }

    /// Lowers `stream` if it is not lowered already; the volume to set on it, or nil.
    ///
    /// A stream at volume 0 is left until it reports another: PipeWire reports a new stream at 0 until its session
    /// manager has set its volume. The servers remember a volume set on a stream for the next one of its application or
    /// role (`module-stream-restore`, WirePlumber's restore-stream), so a stream that starts during a duck may start at
    /// the lowered volume of a lowered stream of its key: it is down already, and goes back to that stream's volume.
    ///
    /// `inFlight` is a volume this process set on the stream that the server has not reported yet (the restore of a
    /// crashed duck's stream, lowered again at once by a cue): its report is ours, not the user's.
    public mutating func lower(_ stream: PlaybackStream, inFlight: [UInt32]? = nil) -> [UInt32]? {
        guard entries[stream.index] == nil, stream.volume.contains(where: { $0 > 0 }) else { return nil }
        if let key = stream.restoreID,
            let sibling = entries.values.first(where: {
                $0.restoreID == key && StreamVolume.matches($0.lowered, stream.volume)
            })
        {
            entries[stream.index] = Entry(
                processID: stream.processID, original: sibling.original, lowered: stream.volume, restoreID: key)
            return nil
        }
        let lowered = StreamVolume.scaled(stream.volume, by: factor)
        entries[stream.index] = Entry(
            processID: stream.processID, original: stream.volume, lowered: lowered, restoreID: stream.restoreID)
        if let inFlight { entries[stream.index]?.applied.insert(inFlight, at: 0) }
        return lowered
    }

    /// The server reports `stream` at `volume`. A volume other than the ones set is the user's: the stream is
    /// forgotten (true), so that the restore leaves it alone.
    public mutating func observe(_ index: UInt32, volume: [UInt32]) -> Bool {
        guard let entry = entries[index] else { return false }
        guard let seen = entry.applied.firstIndex(where: { StreamVolume.matches($0, volume) }) else {
            entries[index] = nil
            return true
        }
        // Earlier volumes were superseded by this one on the server.
        entries[index]?.applied.removeFirst(seen)
        return false
    }

    public mutating func remove(_ index: UInt32) {
        entries[index] = nil
    }

    /// The volumes `progress` of the way back (0: lowered, 1: as before), evenly on the volume's scale (which is close
    /// to even in loudness); to set, in index order.
    public mutating func volumes(restored progress: Double) -> [(index: UInt32, volume: [UInt32])] {
        let progress = min(max(progress, 0), 1)
        return entries.keys.sorted().compactMap { index in
            guard var entry = entries[index] else { return nil }
            let volume = zip(entry.original, entry.lowered).map { original, lowered in
                UInt32((Double(lowered) + (Double(original) - Double(lowered)) * progress).rounded())
            }
            entry.applied = Array((entry.applied + [volume]).suffix(Self.appliedLimit))
            entries[index] = entry
            return (index, volume)
        }
    }

    /// Every stream back to its volume before the duck, forgotten; to set, in index order.
    public mutating func restoreAll() -> [(index: UInt32, volume: [UInt32])] {
        let restored = entries.keys.sorted().compactMap { index in entries[index].map { (index, $0.original) } }
        entries = [:]
        return restored
    }

    /// Whether `volume` is one a duck of ours could have left on a stream recorded as `entry`: between its lowest and
    /// (not including) its original, each channel. A crashed duck's streams are restored only when so.
    public static func isOurs(_ volume: [UInt32], recorded entry: Entry) -> Bool {
        volume.count == entry.original.count
            && zip(volume, zip(entry.lowered, entry.original)).allSatisfy { value, range in
                value + StreamVolume.tolerance >= range.0 && value + StreamVolume.tolerance < range.1
            }
    }
}

/// When the music is lowered (docs/reference.md §11), on a clock of microseconds: ahead of each expected cue by
/// ``lead`` (the daemon knows the schedule), while a sound or phrase holds it, across short gaps between cues (a
/// countdown's pips), then back over ``fadeLength`` in steps. Pure, so that it is tested on a virtual clock.
public struct DuckTimeline: Sendable, Equatable {
    /// How long before an expected cue the music goes down: the volume request's way to the server, the server's
    /// mixing in blocks (a volume change waits for the next one: 43 ms at PulseAudio's pipe sink), and a busy
    /// machine's lateness: with both CPUs loaded the ducking queue's timer fired up to 60 ms late, once 220 ms, and
    /// 100 ms left one cue in three runs with the music at full level before its sound.
    public static let lead: Int64 = 300_000
    /// How long before the music goes down for an expected cue the streams it will lower are recorded
    /// (``lowersSoon(at:)``), so that the lowering never waits for the disk: the record's synced write took up to
    /// 130 ms on a busy machine.
    public static let recordLead: Int64 = 1_000_000
    /// How long an expected cue keeps the music down when no sound comes to hold it (a sound that failed).
    public static let expectedLength: Int64 = 500_000
    /// Cues at most this far apart keep the music down between them: no pumping between a countdown's pips (1 s
    /// apart), while cues 1.5 s apart (short segments on a track) let it come back. Counted from the last sound's
    /// start: its end comes late on a busy machine, and counted from there (to the lowering, 0.8 s) the music stayed
    /// down between such cues in 2 runs of 4.
    public static let bridge: Int64 = 1_200_000
    /// A sound is the cue expected up to this long after it starts: the expected instant was read a little after the
    /// session's, the sound's timer at the session's.
    public static let sameCue: Int64 = 100_000
    /// How long the music takes to come back, at least: a server applies a volume at its next block of mixing (43 ms
    /// at PulseAudio's pipe sink), so that the steps in one block sound at once: at most 5 of these 25, 2.5 dB of a
    /// duck to 30 %. Over 200 ms in 8 steps, 25 ms apart, the steps that fell into one block rose 4 dB at once: a
    /// click.
    public static let fadeLength: Int64 = 250_000
    /// The steps of that fade, ``fadeStep`` apart at least.
    public static let fadeSteps: Int64 = 25
    public static let fadeStep = fadeLength / fadeSteps
    /// How many steps may wait for the server's answer, a block of mixing's worth: a fade takes no further step until
    /// fewer do. Requests that a stalled thread (libpulse's, the server's) sent or read at once were applied at once:
    /// 7.7 dB in 20 ms.
    public static let stepsUnanswered = 5
    /// The longest a hold may last: a sound or phrase whose end never came (a speech service that died) cannot keep
    /// the music down for longer.
    public static let holdLimit: Int64 = 60_000_000

    public enum Level: Sendable, Equatable {
        case normal
        case lowered
        /// Coming back: `progress` of the way (0 to 1).
        case restoring(progress: Double)
    }

    private struct Fade: Sendable, Equatable {
        var steps: Int64
        var lastStep: Int64
    }

    /// Instants of the cues expected next.
    private var expected: [Int64] = []
    /// Token → when the hold lapses.
    private var holds: [Int: Int64] = [:]
    /// When the last hold began.
    private var lastHold: Int64?
    /// The fade under way: the steps taken and when the last was. A step is taken no sooner than ``fadeStep`` after
    /// the one before, and is one step whenever it is taken: a timer that fires late makes the fade longer, never a
    /// step larger (a duck's timer 100 ms late made the rest of a time-based fade land at once, 6.4 dB in 20 ms).
    private var fade: Fade?
    private var lowered = false

    public init() {}

    /// A cue is due at `instant`: lower the music ``lead`` before it.
    public mutating func expect(cueAt instant: Int64) {
        expected.append(instant)
    }

    /// The cues expected after `now` will not come (a skip, a new segment's schedule): a cue whose lead has begun
    /// stays, as does what holds the music down.
    public mutating func dropExpected(at now: Int64) {
        expected.removeAll { $0 - Self.lead > now }
    }

    /// A sound or phrase starts at `now` and keeps the music down until released. It is the cue expected now, if one
    /// is: that cue holds the music no longer, so that the music is back as soon as the sound has ended.
    public mutating func hold(_ token: Int, at now: Int64) {
        holds[token] = now + Self.holdLimit
        lastHold = now
        expected.removeAll { $0 - Self.sameCue <= now }
    }

    public mutating func release(_ token: Int) {
        holds[token] = nil
    }

    /// Nothing plays any more (a pause, a stop, the daemon's exit): forgets every hold and expected cue, and music
    /// that is down comes back over ``fadeLength`` from `now`, as after a cue (a return in one step is a click). A fade
    /// under way goes on.
    public mutating func releaseAll(at now: Int64) {
        expected = []
        holds = [:]
        if lowered, fade == nil { fade = Fade(steps: 0, lastStep: now) }
    }

    /// Forgets every hold, expected cue and fade: the music is back at once. Only for what is still down once the fade
    /// has had its time (the process is about to exit).
    public mutating func reset() {
        self = DuckTimeline()
    }

    /// The level at `now`; call it with non-decreasing times. `unanswered`: how many levels set on the streams the
    /// server has not answered yet (``stepsUnanswered``).
    public mutating func level(at now: Int64, unanswered: Int = 0) -> Level {
        expected.removeAll { $0 + Self.expectedLength <= now }
        holds = holds.filter { $0.value > now }
        let nextCue = expected.min()
        let held = !holds.isEmpty || nextCue.map { $0 - Self.lead <= now } == true
        let bridged = nextCue.map { cue in lastHold.map { cue - $0 <= Self.bridge } == true } == true
        if held || (lowered && fade == nil && bridged) {
            lowered = true
            fade = nil
            return .lowered
        }
        guard lowered else { return .normal }
        var current = fade ?? Fade(steps: 0, lastStep: now)
        if unanswered < Self.stepsUnanswered, now - current.lastStep >= Self.fadeStep {
            current = Fade(steps: current.steps + 1, lastStep: now)
        }
        guard current.steps < Self.fadeSteps else {
            lowered = false
            fade = nil
            return .normal
        }
        fade = current
        return .restoring(progress: Double(current.steps) / Double(Self.fadeSteps))
    }

    /// Whether the music goes down for an expected cue within ``recordLead`` from `now`, or is down for one.
    public func lowersSoon(at now: Int64) -> Bool {
        expected.contains { $0 - Self.lead - Self.recordLead <= now && now < $0 + Self.expectedLength }
    }

    /// When ``level(at:)`` or ``lowersSoon(at:)`` may next change after `now`, or nil.
    public func nextChange(after now: Int64) -> Int64? {
        var candidates =
            expected.flatMap { [$0 - Self.lead - Self.recordLead, $0 - Self.lead, $0 + Self.expectedLength] }
            + holds.values
        if lowered, let fade { candidates.append(fade.lastStep + Self.fadeStep) }
        return candidates.filter { $0 > now }.min()
    }
}

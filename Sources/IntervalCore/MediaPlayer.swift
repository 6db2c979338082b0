/// The workout as an MPRIS media player (docs/reference.md §8): its names, its controls and what it shows, defined once
/// so that the bus adapter, its interface tables and the tests read the same table.
public enum MediaPlayer {
    /// The well-known name the daemon owns while a workout exists.
    public static let service = "org.mpris.MediaPlayer2.intervald"
    public static let objectPath = "/org/mpris/MediaPlayer2"
    public static let rootInterface = "org.mpris.MediaPlayer2"
    public static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// `Seeked(x Position)` on the player interface.
    public static let seekedSignal = "Seeked"
    public static let identity = "Interval timer"
    /// Each segment's `mpris:trackid`: an object path of ours, never under `/org/mpris`.
    public static let trackPathPrefix = BusNames.objectPath + "/Segment/"

    /// The name of a second player in one session (`intervalctl run`), as the MPRIS convention spells it.
    public static func instanceService(pid: Int32) -> String { "\(service).instance\(pid)" }

    /// The track id of segment `index`.
    public static func trackID(segmentIndex index: Int64) -> String { "\(trackPathPrefix)\(index)" }

    /// What a media control does to the workout. None fails because of the workout's state: headsets and KDE send
    /// Play and Pause blindly, so Play while running and Pause while paused (or anything while idle) do nothing.
    /// The player's controls, by their method names on the player interface, in its introspection's order.
    public enum Control: String, Sendable, Equatable, CaseIterable {
        case next = "Next", previous = "Previous", pause = "Pause"
        case playPause = "PlayPause", stop = "Stop", play = "Play"

        /// What the workout does, for docs/dbus-interfaces.md.
        var doc: String {
            switch self {
            case .next: "Skips to the next segment."
            case .previous: "Restarts the current segment from its start."
            case .pause: "Pauses; nothing when paused."
            case .playPause: "Pauses or resumes."
            case .stop: "Stops the workout (reason `user`)."
            case .play: "Resumes; nothing when running."
            }
        }
    }
}

/// What the player shows of the workout at one instant (docs/reference.md §8): the playback status and the current
/// segment as a track.
public struct MediaPlayerSnapshot: Sendable, Equatable {
    public enum PlaybackStatus: String, Sendable {
        case playing = "Playing", paused = "Paused", stopped = "Stopped"
    }

    public var playbackStatus: PlaybackStatus
    /// `mpris:trackid`, an object path; empty when nothing plays (no metadata then).
    public var trackID: String
    /// `xesam:title`: the cue text ("Run · 30 s").
    public var title: String
    /// `xesam:artist`: the plan's name, as a list (GNOME and KDE want a string list).
    public var artist: [String]
    /// `xesam:album`: where in the plan ("Round 3 of 8").
    public var album: String
    /// `mpris:length`: the segment's duration, µs.
    public var length: Int64
    /// `Position`: µs into the segment.
    public var position: Int64

    public static let stopped = MediaPlayerSnapshot(
        playbackStatus: .stopped, trackID: "", title: "", artist: [], album: "", length: 0, position: 0)
}

// In an extension, so that the struct keeps its memberwise initializer (the core's and its tests').
extension MediaPlayerSnapshot {
    /// The player's view of `status`, with `segment` the one playing (nil when nothing does).
    public init(status: TimerStatus, segment: Segment?, plan: Plan?) {
        guard status.state != .idle, let segment, let plan else {
            self = .stopped
            return
        }
        self.init(playing: segment, plan: plan)
        if status.state == .paused { playbackStatus = .paused }
        position = Int64(clamping: status.segmentElapsed)
    }

    /// The player's view of `segment` playing from its start: what its change will show, known a change ahead.
    public init(playing segment: Segment, plan: Plan) {
        let album = WorkoutPresenter.position(segment, in: plan)
        self.init(
            playbackStatus: .playing, trackID: MediaPlayer.trackID(segmentIndex: segment.index),
            title: WorkoutPresenter.headline(segment), artist: [plan.displayName],
            album: album.prefix(1).uppercased() + album.dropFirst(), length: segment.duration,
            position: 0)
    }
}

/// What the player announces at one event of the workout (docs/reference.md §8), decided from the snapshots before and
/// after it.
public struct MediaPlayerUpdate: Sendable, Equatable {
    /// Own the player's name now: a workout exists.
    public var requestName = false
    /// The properties to announce with `PropertiesChanged`, in this order.
    public var changed: [MediaPlayerProperty] = []
    /// `Seeked(x)` with this position: a resume, or `Previous` (the same segment cued again, from its start).
    public var seekedTo: Int64?
    /// Release the name: the workout ended.
    public var releaseName = false

    public init(
        requestName: Bool = false, changed: [MediaPlayerProperty] = [], seekedTo: Int64? = nil,
        releaseName: Bool = false
    ) {
        self.requestName = requestName
        self.changed = changed
        self.seekedTo = seekedTo
        self.releaseName = releaseName
    }

    /// The update for `event`, which turned `previous` into `snapshot`; `ownsName` says whether the name is owned.
    public init(
        for event: SchedulerEvent, snapshot: MediaPlayerSnapshot, previous: MediaPlayerSnapshot, ownsName: Bool
    ) {
        let active = snapshot.playbackStatus != .stopped
        requestName = active && !ownsName
        releaseName = !active && ownsName
        if snapshot.playbackStatus != previous.playbackStatus { changed.append(.playbackStatus) }
        if !snapshot.isSameTrack(as: previous) { changed.append(.metadata) }
        switch event {
        case .resumed: seekedTo = snapshot.position
        // A new segment's metadata says where it starts; the same one cued again moved back to its start.
        case .segmentStarted: seekedTo = snapshot.isSameTrack(as: previous) ? 0 : nil
        case .countdown, .paused, .finished, .stopped: seekedTo = nil
        }
    }
}

extension MediaPlayerSnapshot {
    /// The same track shown the same way (everything but the position and the status).
    public func isSameTrack(as other: MediaPlayerSnapshot) -> Bool {
        trackID == other.trackID && title == other.title && artist == other.artist && album == other.album
            && length == other.length
    }
}

/// The properties of the two MPRIS interfaces (docs/reference.md §8), with their D-Bus types: the getters,
/// `PropertiesChanged` and the interface tables (``MediaPlayer/playerInterfaceTable``) all come from this table.
public enum MediaPlayerProperty: String, Sendable, CaseIterable {
    // org.mpris.MediaPlayer2
    case canQuit = "CanQuit"
    case canRaise = "CanRaise"
    case hasTrackList = "HasTrackList"
    case identity = "Identity"
    case desktopEntry = "DesktopEntry"
    case supportedUriSchemes = "SupportedUriSchemes"
    case supportedMimeTypes = "SupportedMimeTypes"
    // org.mpris.MediaPlayer2.Player
    case playbackStatus = "PlaybackStatus"
    case metadata = "Metadata"
    case position = "Position"
    case rate = "Rate"
    case minimumRate = "MinimumRate"
    case maximumRate = "MaximumRate"
    case volume = "Volume"
    case canControl = "CanControl"
    case canPlay = "CanPlay"
    case canPause = "CanPause"
    case canGoNext = "CanGoNext"
    case canGoPrevious = "CanGoPrevious"
    case canSeek = "CanSeek"

    /// A property's value, typed as D-Bus sends it.
    public enum Value: Sendable, Equatable {
        case boolean(Bool)
        case string(String)
        case strings([String])
        case double(Double)
        case int64(Int64)
        /// `a{sv}`: `mpris:trackid` (o), `xesam:title` (s), `xesam:artist` (as), `xesam:album` (s),
        /// `mpris:length` (x), `mpris:artUrl` (s, when the icon is installed); empty when nothing plays.
        case metadata(MediaPlayerSnapshot, artURL: String?)
    }

    /// How a change is announced: never (constants), with `PropertiesChanged`, or not at all (`Position`, a
    /// read-time value that `Seeked` announces when it jumps).
    public enum Change: Sendable {
        case constant, emitsChange, readTime
    }

    public var interface: String {
        switch self {
        case .canQuit, .canRaise, .hasTrackList, .identity, .desktopEntry, .supportedUriSchemes, .supportedMimeTypes:
            MediaPlayer.rootInterface
        case .playbackStatus, .metadata, .position, .rate, .minimumRate, .maximumRate, .volume, .canControl,
            .canPlay, .canPause, .canGoNext, .canGoPrevious, .canSeek:
            MediaPlayer.playerInterface
        }
    }

    /// The D-Bus signature.
    public var signature: String {
        switch self {
        case .canQuit, .canRaise, .hasTrackList, .canControl, .canPlay, .canPause, .canGoNext, .canGoPrevious,
            .canSeek:
            "b"
        case .identity, .desktopEntry, .playbackStatus: "s"
        case .supportedUriSchemes, .supportedMimeTypes: "as"
        case .metadata: "a{sv}"
        case .position: "x"
        case .rate, .minimumRate, .maximumRate, .volume: "d"
        }
    }

    public var change: Change {
        switch self {
        case .playbackStatus, .metadata: .emitsChange
        case .position: .readTime
        case .canQuit, .canRaise, .hasTrackList, .identity, .desktopEntry, .supportedUriSchemes, .supportedMimeTypes,
            .rate, .minimumRate, .maximumRate, .volume, .canControl, .canPlay, .canPause, .canGoNext, .canGoPrevious,
            .canSeek:
            .constant
        }
    }

    /// The value in `snapshot`; `artURL` is the icon's file URI, if installed.
    public func value(of snapshot: MediaPlayerSnapshot, artURL: String?) -> Value {
        switch self {
        // GNOME shows a player only while CanPlay; KDE honours the Can* only with CanControl.
        case .canControl, .canPlay, .canPause, .canGoNext, .canGoPrevious: .boolean(true)
        case .canRaise: .boolean(true)
        case .canQuit, .hasTrackList, .canSeek: .boolean(false)
        case .identity: .string(MediaPlayer.identity)
        case .desktopEntry: .string(DesktopIdentity.window)
        case .supportedUriSchemes, .supportedMimeTypes: .strings([])
        case .playbackStatus: .string(snapshot.playbackStatus.rawValue)
        case .metadata: .metadata(snapshot, artURL: artURL)
        case .position: .int64(snapshot.position)
        case .rate, .minimumRate, .maximumRate, .volume: .double(1.0)
        }
    }

    public static func named(_ name: String, interface: String) -> MediaPlayerProperty? {
        MediaPlayerProperty(rawValue: name).flatMap { $0.interface == interface ? $0 : nil }
    }
}

extension MediaPlayerProperty {
    /// What the value is, for docs/dbus-interfaces.md.
    public var doc: String {
        switch self {
        case .canRaise: "true: `Raise` opens the Interval Timer window."
        case .canQuit: "false: the daemon is not quit from a player."
        case .hasTrackList: "false."
        case .identity: "\"\(MediaPlayer.identity)\"."
        case .desktopEntry: "\"\(DesktopIdentity.window)\": the window's desktop entry, which the player belongs to."
        case .supportedUriSchemes, .supportedMimeTypes: "Empty: the player opens nothing."
        case .playbackStatus: "`Playing` or `Paused` while a workout exists."
        case .metadata:
            "The current segment as a track: `mpris:trackid` (o), `xesam:title` (the cue text), `xesam:artist` (the "
                + "plan's name, as), `xesam:album` (\"Round 3 of 8\"), `mpris:length` (x, µs), `mpris:artUrl` "
                + "(the icon's file URI, when installed)."
        case .position: "µs into the current segment at the instant of the read."
        case .rate, .minimumRate, .maximumRate, .volume: "1.0."
        case .canControl, .canPlay, .canPause, .canGoNext, .canGoPrevious: "true."
        case .canSeek: "false."
        }
    }

    /// The property as a row of its interface's table.
    var member: BusInterface.Member {
        let change: BusInterface.PropertyChange =
            switch self.change {
            case .constant: .constant
            case .emitsChange: .emitsChange
            case .readTime: .readTime
            }
        return .property(name: rawValue, signature: signature, change: change, doc: doc)
    }
}

extension MediaPlayer {
    /// `org.mpris.MediaPlayer2` as a table.
    public static let rootInterfaceTable = table(
        rootInterface, summary: "The MPRIS root object, under `\(service)` while a workout exists.",
        methods: [
            BusInterface.method("Raise", "Opens the Interval Timer window (D-Bus-activating it)."),
            BusInterface.method("Quit", "Does nothing."),
        ])

    /// `org.mpris.MediaPlayer2.Player` as a table. No control fails because of the workout's state.
    public static let playerInterfaceTable = table(
        playerInterface,
        summary: "The workout as a player: headset buttons, media keys and the desktop's media controls.",
        methods: Control.allCases.map { BusInterface.method($0.rawValue, $0.doc) } + [
            .method(name: "Seek", arguments: [.init("Offset", "x")], results: [], doc: "Does nothing."),
            .method(
                name: "SetPosition", arguments: [.init("TrackId", "o"), .init("Position", "x")], results: [],
                doc: "Does nothing."),
            .method(name: "OpenUri", arguments: [.init("Uri", "s")], results: [], doc: "Does nothing."),
            .signal(
                name: seekedSignal, arguments: [.init("Position", "x")],
                doc: "The position jumped (a resume, `Previous`), µs into the segment."),
        ])

    /// An interface of the player's object: its properties, then `methods` (and signals).
    private static func table(_ interface: String, summary: String, methods: [BusInterface.Member]) -> BusInterface {
        BusInterface(
            name: interface, path: objectPath, summary: summary,
            members: MediaPlayerProperty.allCases.filter { $0.interface == interface }.map(\.member) + methods)
    }
}

import Dispatch
import Glibc
import IntervalCore
import IntervalRuntime
import Logging

/// The workout as an MPRIS player (docs/reference.md §8), so that headset buttons, media keys and the desktop's media
/// controls pause, skip and restart it: `org.mpris.MediaPlayer2` and `.Player` at `/org/mpris/MediaPlayer2`, the name
/// owned while a workout exists and released when it ends, so that no idle player lingers in the desktop's controls.
///
/// An output of the session, after the bus signals: at each change it announces `PlaybackStatus` and `Metadata` with
/// `PropertiesChanged`, and `Seeked` when the position jumps (a resume, `Previous`). Its methods call
/// ``WorkoutSession/perform(_:)-(MediaPlayer.Control)``. Everything runs on the connection's queue: the daemon's (one connection for
/// both objects) or `intervalctl run`'s.
public final class MediaPlayerOutput: WorkoutOutput, @unchecked Sendable {
    private let bus: Bus
    private let service: String
    private let logger: Logger
    /// Sends what was queued outside of sd-bus's own processing.
    private let flush: () -> Void
    private let exported: ExportedPlayer
    private let objects: [BusObject]
    /// The next segment's `PropertiesChanged(Metadata)`, built at the change before it, so that only its send is left
    /// between `SegmentStarted` and it at the cue instant (docs/reference.md §8); sent when the change is to that
    /// segment.
    private var prepared: (snapshot: MediaPlayerSnapshot, message: BusMessage)?
    /// A connection of its own (`intervalctl run`), served for as long as the player lives.
    private var ownDriver: BusDispatchDriver?
    private var ownsName = false

    /// The player on the daemon's connection, under ``MediaPlayer/service``. Call on the server's queue.
    public convenience init(server: TimerBusServer, session: WorkoutSession, logger: Logger) throws(BusError) {
        try self.init(
            bus: server.bus, service: MediaPlayer.service, session: session, logger: logger,
            flush: { [weak driver = server.driver] in driver?.updateInterest() })
    }

    /// The player of a foreground workout on a session-bus connection of its own, under
    /// ``MediaPlayer/instanceService(pid:)``, served on `queue`. Call on `queue`.
    public static func openOwnConnection(
        queue: DispatchQueue, session: WorkoutSession, logger: Logger
    ) throws(BusError) -> MediaPlayerOutput {
        let bus = try Bus.openUser(description: "intervalctl")
        let driver = BusDispatchDriver(bus: bus, queue: queue, logger: logger) { error in
            logger.info("Lost the session bus; the media player is gone.", metadata: ["error": "\(error)"])
        }
        let player = try MediaPlayerOutput(
            bus: bus, service: MediaPlayer.instanceService(pid: getpid()), session: session, logger: logger,
            flush: { [weak driver] in driver?.updateInterest() })
        try driver.start()
        player.ownDriver = driver
        return player
    }

    private init(
        bus: Bus, service: String, session: WorkoutSession, logger: Logger, flush: @escaping () -> Void
    ) throws(BusError) {
        self.bus = bus
        self.service = service
        self.logger = logger
        self.flush = flush
        let exported = ExportedPlayer(session: session, bus: bus, artURL: Self.installedIconURL(), logger: logger)
        self.exported = exported
        objects = try [MediaPlayer.rootInterfaceTable, MediaPlayer.playerInterfaceTable].map {
            (interface) throws(BusError) in
            try BusObject(interface, on: bus, handler: exported, logger: logger, afterReply: flush)
        }
    }

    deinit {
        ownDriver?.stop()
    }

    public func handle(_ moment: WorkoutMoment) {
        if case .countdown = moment.event { return }
        let snapshot = MediaPlayerSnapshot(
            status: moment.status, segment: moment.status.state == .idle ? nil : moment.segment, plan: moment.plan)
        let update = MediaPlayerUpdate(
            for: moment.event, snapshot: snapshot, previous: exported.shown, ownsName: ownsName)
        exported.shown = snapshot
        do {
            if update.requestName {
                try bus.requestNameAsync(service)
                ownsName = true
            }
            if let prepared, update.changed == [.metadata], prepared.snapshot.isSameTrack(as: snapshot),
                snapshot.playbackStatus == .playing
            {
                try bus.send(prepared.message)
            } else if !update.changed.isEmpty {
                try bus.emitPropertiesChanged(
                    path: MediaPlayer.objectPath, interface: MediaPlayer.playerInterface,
                    names: update.changed.map(\.rawValue))
            }
            prepared = nil
            if let position = update.seekedTo {
                let signal = try bus.newSignal(
                    path: MediaPlayer.objectPath, interface: MediaPlayer.playerInterface,
                    member: MediaPlayer.seekedSignal)
                try signal.append(position)
                try bus.send(signal)
            }
            if update.releaseName {
                try bus.releaseNameAsync(service)
                ownsName = false
            }
        } catch {
            logger.warning("Failed to update the media player, ignoring.", metadata: ["error": "\(error)"])
        }
        flush()
        prepareNext(after: moment, shown: snapshot)
    }

    /// Builds the `PropertiesChanged` of the segment after the one now playing, after this change's signals are out.
    private func prepareNext(after moment: WorkoutMoment, shown: MediaPlayerSnapshot) {
        guard shown.playbackStatus == .playing, let segment = moment.segment,
            let next = moment.plan.segment(after: segment)
        else { return }
        let snapshot = MediaPlayerSnapshot(playing: next, plan: moment.plan)
        do {
            let message = try bus.newSignal(
                path: MediaPlayer.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
            try message.append(MediaPlayer.playerInterface)
            try message.openContainer("a", contents: "{sv}")
            try message.appendEntry(MediaPlayerProperty.metadata.rawValue, MediaPlayerProperty.metadata.signature) {
                message throws(BusError) in
                try message.append(MediaPlayerProperty.metadata.value(of: snapshot, artURL: exported.artURL))
            }
            try message.closeContainer()
            try message.append([String]())
            prepared = (snapshot, message)
        } catch {
            logger.debug("Failed to prepare the next media player change, ignoring.", metadata: ["error": "\(error)"])
        }
    }

    /// `mpris:artUrl`: the installed icon, as a file URI, found next to this executable's install
    /// (`PREFIX/bin/…` → `PREFIX/share/icons/hicolor/scalable/apps/org.intervald.Timer1.svg`); nil when it is not
    /// there (a build-tree binary).
    static func installedIconURL() -> String? {
        guard let icon = InstallPrefix.existing("share/icons/hicolor/scalable/apps/\(DesktopIdentity.iconName).svg")
        else { return nil }
        return "file://" + icon.utf8.map(Self.uriEscaped).joined()
    }

    private static func uriEscaped(_ byte: UInt8) -> String {
        let safe =
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || "/-._~".utf8.contains(byte)
        guard !safe else { return String(UnicodeScalar(byte)) }
        let hex = Array("0123456789ABCDEF".utf8)
        return "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
    }
}

// MARK: - The objects' handler

/// What the two exported interfaces read and call; held by the output, weakly by the objects.
private final class ExportedPlayer: BusObjectHandler {
    weak var session: WorkoutSession?
    let artURL: String?
    let logger: Logger
    /// `Raise` opens the window on this connection.
    let bus: Bus

    init(session: WorkoutSession, bus: Bus, artURL: String?, logger: Logger) {
        self.session = session
        self.bus = bus
        self.artURL = artURL
        self.logger = logger
    }

    /// What the player shows, set by the output at each change (nothing else changes it between changes), so that
    /// the getters answer the change's `PropertiesChanged` without working it out again at the cue instant.
    var shown = MediaPlayerSnapshot.stopped

    /// What `property` reads now: `Position` at this instant, everything else as shown.
    func snapshot(for property: MediaPlayerProperty) -> MediaPlayerSnapshot {
        guard property == .position, let session else { return shown }
        var now = shown
        now.position =
            MediaPlayerSnapshot(
                status: session.status, segment: session.scheduler?.current, plan: session.scheduler?.plan
            )
            .position
        return now
    }

    /// A control acts on the workout; `Raise` opens the window; `Quit`, `Seek`, `SetPosition` and `OpenUri` do nothing,
    /// and answer.
    func handle(_ call: BusCall) throws(BusCallError) {
        if call.interface == MediaPlayer.playerInterface, let control = MediaPlayer.Control(rawValue: call.member) {
            logger.debug("Media control.", metadata: ["control": "\(control)"])
            session?.perform(control)
        } else if call.interface == MediaPlayer.rootInterface, call.member == "Raise" {
            WindowLauncher.open(on: bus, logger: logger)
        }
        call.reply()
    }

    func appendProperty(_ property: String, of interface: String, to reply: BusMessage) throws(BusCallError) {
        guard let known = MediaPlayerProperty.named(property, interface: interface) else {
            throw BusCallError(BusErrorName.unknownProperty, "Unknown property \(property).")
        }
        do throws(BusError) {
            try reply.append(known.value(of: snapshot(for: known), artURL: artURL))
        } catch {
            throw BusCallError(error)
        }
    }
}

extension BusMessage {
    /// Appends an MPRIS property's value as its signature in ``MediaPlayerProperty`` says.
    func append(_ value: MediaPlayerProperty.Value) throws(BusError) {
        switch value {
        case .boolean(let flag): try append(flag)
        case .string(let text): try append(text)
        case .strings(let texts): try append(texts)
        case .double(let number): try append(number)
        case .int64(let number): try append(number)
        case .metadata(let snapshot, let artURL): try appendMetadata(snapshot, artURL: artURL)
        }
    }

    /// `a{sv}` with each field typed as MPRIS clients insist (BlueZ refuses a player whose `mpris:length` is not an
    /// int64; KDE wants `mpris:trackid` as an object path; GNOME wants `xesam:artist` as a string list).
    private func appendMetadata(_ snapshot: MediaPlayerSnapshot, artURL: String?) throws(BusError) {
        try openContainer("a", contents: "{sv}")
        if !snapshot.trackID.isEmpty {
            try appendEntry("mpris:trackid", "o") { message throws(BusError) in
                try message.append(objectPath: snapshot.trackID)
            }
            try appendEntry("xesam:title", "s") { message throws(BusError) in try message.append(snapshot.title) }
            try appendEntry("xesam:artist", "as") { message throws(BusError) in try message.append(snapshot.artist) }
            try appendEntry("xesam:album", "s") { message throws(BusError) in try message.append(snapshot.album) }
            try appendEntry("mpris:length", "x") { message throws(BusError) in try message.append(snapshot.length) }
            if let artURL {
                try appendEntry("mpris:artUrl", "s") { message throws(BusError) in try message.append(artURL) }
            }
        }
        try closeContainer()
    }
}

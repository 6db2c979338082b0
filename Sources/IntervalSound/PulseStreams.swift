import CPulse
import Dispatch
import IntervalCore
import IntervalRuntime

/// The audio server's playback streams through libpulse (PulseAudio, or PipeWire's pulse server), on a threaded main
/// loop of its own: what streams there are and their volumes as they change, and setting a stream's volume.
///
/// Events are handed to `deliver` on the owner's queue. The main loop's thread never holds this object: libpulse's
/// callbacks reach a ``PulseConnection`` that this object keeps until its own end, which stops that thread first. Were
/// a callback's reference the last one, the end would run on libpulse's thread, where its lock aborts the process
/// (an `intervalctl run` ended by Ctrl-C during a duck died so, 1 in about 150).
final class PulseStreams: Sendable {
    enum Event: Sendable {
        /// Connected: the streams playing now.
        case connected([PlaybackStream])
        /// A stream appeared or changed (volume, role…).
        case changed(PlaybackStream)
        case removed(UInt32)
        /// The server is gone, or was never reached.
        case disconnected(reason: String)
    }

    /// What libpulse's thread hands the owner's queue, in order: the events, and work such as a request's answer.
    private enum Delivery: Sendable {
        case event(Event)
        case work(@Sendable () -> Void)
    }

    private let connection: PulseConnection
    private let inbox: QueueInbox<Delivery>

    /// Nil when libpulse cannot start its thread.
    init?(queue: DispatchQueue, deliver: @escaping @Sendable (Event) -> Void) {
        let inbox = QueueInbox<Delivery>(queue: queue) { delivery in
            switch delivery {
            case .event(let event): deliver(event)
            case .work(let work): work()
            }
        }
        guard let connection = PulseConnection(deliver: { event in inbox.send(.event(event)) }) else { return nil }
        (self.connection, self.inbox) = (connection, inbox)
    }

    deinit {
        connection.close()
    }

    /// Connects (again) to the user's audio server, never starting one; the outcome arrives as an event.
    func connect() {
        connection.connect()
    }

    /// Sets stream `index`'s volume; `done` runs on libpulse's thread once the server has done it (or refused).
    func setVolume(_ index: UInt32, to volume: [UInt32], done: (@Sendable () -> Void)? = nil) {
        connection.setVolume(index, to: volume, done: done)
    }

    /// Hands work to the owner's queue, after the events handed to it so far: for `setVolume`'s `done`, on libpulse's
    /// thread. It holds the inbox, not this object, whose end must not run on that thread.
    var toQueue: @Sendable (@escaping @Sendable () -> Void) -> Void {
        { [inbox] work in inbox.send(.work(work)) }
    }
}

/// What libpulse's callbacks reach: the main loop, its context and the listing in progress. Every call is made under
/// the main loop's lock, as libpulse asks of other threads; ``close()`` ends the thread, after which nothing here runs.
private final class PulseConnection: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private let deliver: @Sendable (PulseStreams.Event) -> Void
    // Under the main loop's lock.
    private var context: OpaquePointer?
    private var listed: [PlaybackStream] = []
    /// The context's end was reported: once per connection.
    private var reportedEnd = false

    init?(deliver: @escaping @Sendable (PulseStreams.Event) -> Void) {
        guard let mainloop = pa_threaded_mainloop_new() else { return nil }
        self.mainloop = mainloop
        self.deliver = deliver
        guard pa_threaded_mainloop_start(mainloop) == 0 else {
            pa_threaded_mainloop_free(mainloop)
            return nil
        }
    }

    /// Disconnects and stops the main loop's thread; once, from another thread.
    func close() {
        locked { dropContext() }
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    func connect() {
        locked {
            dropContext()
            guard let properties = pa_proplist_new() else { return }
            defer { pa_proplist_free(properties) }
            pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, "intervald")
            pa_proplist_sets(properties, PA_PROP_APPLICATION_ID, BusNames.service)
            guard let api = pa_threaded_mainloop_get_api(mainloop),
                let created = pa_context_new_with_proplist(api, "intervald", properties)
            else { return }
            context = created
            reportedEnd = false
            let me = Unmanaged.passUnretained(self).toOpaque()
            pa_context_set_state_callback(
                created,
                { context, me in
                    guard let context, let me else { return }
                    Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue().stateChanged(context)
                }, me)
            if pa_context_connect(created, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
                reportEnd(of: created)
            }
        }
    }

    func setVolume(_ index: UInt32, to volume: [UInt32], done: (@Sendable () -> Void)? = nil) {
        locked {
            guard let context, pa_context_get_state(context) == PA_CONTEXT_READY, !volume.isEmpty else {
                done?()
                return
            }
            var levels = pa_cvolume()
            levels.channels = UInt8(min(volume.count, Int(PA_CHANNELS_MAX)))
            withUnsafeMutableBytes(of: &levels.values) { raw in
                let channels = raw.bindMemory(to: pa_volume_t.self)
                for (channel, value) in volume.prefix(Int(levels.channels)).enumerated() { channels[channel] = value }
            }
            let box = done.map { Unmanaged.passRetained(Completion($0)).toOpaque() }
            let operation = pa_context_set_sink_input_volume(
                context, index, &levels,
                { _, _, box in
                    guard let box else { return }
                    Unmanaged<Completion>.fromOpaque(box).takeRetainedValue().body()
                }, box)
            if let operation {
                pa_operation_unref(operation)
            } else if let box {
                Unmanaged<Completion>.fromOpaque(box).takeRetainedValue().body()
            }
        }
    }

    // MARK: On libpulse's thread, under the lock

    private func stateChanged(_ context: OpaquePointer) {
        guard context == self.context else { return }
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            let me = Unmanaged.passUnretained(self).toOpaque()
            pa_context_set_subscribe_callback(
                context,
                { context, type, index, me in
                    guard let context, let me else { return }
                    Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue().streamEvent(context, type, index)
                }, me)
            release(pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil))
            listed = []
            release(
                pa_context_get_sink_input_info_list(
                    context,
                    { _, info, end, me in
                        guard let me else { return }
                        Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue().listedStream(info, end: end)
                    }, me))
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            // Not freed here, inside its own callback: the next connect() drops it.
            reportEnd(of: context)
        default:
            break
        }
    }

    private func listedStream(_ info: UnsafePointer<pa_sink_input_info>?, end: Int32) {
        if let info { listed.append(Self.stream(info.pointee)) }
        guard end != 0 else { return }
        let streams = listed
        listed = []
        deliver(.connected(streams))
    }

    private func streamEvent(_ context: OpaquePointer, _ type: pa_subscription_event_type_t, _ index: UInt32) {
        guard type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue
        else { return }
        if type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
            deliver(.removed(index))
            return
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        release(
            pa_context_get_sink_input_info(
                context, index,
                { _, info, _, me in
                    guard let me, let info else { return }
                    let streams = Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue()
                    streams.deliver(.changed(PulseConnection.stream(info.pointee)))
                }, me))
    }

    private func reportEnd(of context: OpaquePointer) {
        guard !reportedEnd else { return }
        reportedEnd = true
        deliver(.disconnected(reason: Self.errorText(context)))
    }

    private func dropContext() {
        guard let context else { return }
        pa_context_set_state_callback(context, nil, nil)
        pa_context_set_subscribe_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        self.context = nil
    }

    private func locked(_ body: () -> Void) {
        pa_threaded_mainloop_lock(mainloop)
        body()
        pa_threaded_mainloop_unlock(mainloop)
    }

    private func release(_ operation: OpaquePointer?) {
        if let operation { pa_operation_unref(operation) }
    }

    private static func stream(_ info: pa_sink_input_info) -> PlaybackStream {
        var volume = info.volume
        let channels = Int(min(volume.channels, UInt8(PA_CHANNELS_MAX)))
        let levels = withUnsafeBytes(of: &volume.values) { Array($0.bindMemory(to: pa_volume_t.self).prefix(channels)) }
        func property(_ key: String) -> String? {
            pa_proplist_gets(info.proplist, key).map { String(cString: $0) }
        }
        return PlaybackStream(
            index: info.index, volume: levels, role: property(PA_PROP_MEDIA_ROLE),
            processID: property(PA_PROP_APPLICATION_PROCESS_ID).flatMap { Int32($0) },
            applicationName: property(PA_PROP_APPLICATION_NAME), restoreID: property("module-stream-restore.id"))
    }

    /// The corresponding C function is `pa_strerror`.
    private static func errorText(_ context: OpaquePointer) -> String {
        pa_strerror(pa_context_errno(context)).map { String(cString: $0) } ?? "unknown error"
    }
}

private final class Completion {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}

import CSpeechd
import Glibc

/// libspeechd's functions, loaded the first time the voice connects (dlopen): the voice is off by default, and then
/// the daemon maps no speech library at all (docs/benchmarks.md, "Footprint of the package"). The types come from
/// libspeechd's header (CSpeechd, which links nothing).
struct SpeechLibrary: @unchecked Sendable {
    typealias Connection = UnsafeMutablePointer<SPDConnection>
    typealias Voices = UnsafeMutablePointer<UnsafeMutablePointer<SPDVoice>?>
    typealias Open2 =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, SPDConnectionMode,
            UnsafePointer<SPDConnectionAddress>?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Connection?
    typealias Close = @convention(c) (Connection?) -> Void
    typealias Say = @convention(c) (Connection?, SPDPriority, UnsafePointer<CChar>?) -> Int32
    typealias Cancel = @convention(c) (Connection?) -> Int32
    typealias SetNotificationOn = @convention(c) (Connection?, SPDNotification) -> Int32
    typealias SetLanguage = @convention(c) (Connection?, UnsafePointer<CChar>?) -> Int32
    typealias SetVoiceRate = @convention(c) (Connection?, Int32) -> Int32
    typealias ListSynthesisVoices = @convention(c) (Connection?) -> Voices?
    typealias FreeVoices = @convention(c) (Voices?) -> Void

    let open2: Open2
    let close: Close
    let say: Say
    let cancel: Cancel
    let setNotificationOn: SetNotificationOn
    let setLanguage: SetLanguage
    let setVoiceRate: SetVoiceRate
    let listSynthesisVoices: ListSynthesisVoices
    let freeVoices: FreeVoices

    /// The library's soname in Debian's libspeechd2.
    private static let soname = "libspeechd.so.2"

    /// Loaded once per process and never unloaded: its threads and callbacks outlive any one connection.
    static let loaded: Result<SpeechLibrary, SoundFailure> = load()

    private static func load() -> Result<SpeechLibrary, SoundFailure> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.speechUnreachable(dlerror().map { String(cString: $0) } ?? "\(soname) not found"))
        }
        var missing = ""
        func function<F>(_ name: String) -> F? {
            guard let address = dlsym(handle, name) else {
                missing = name
                return nil
            }
            return unsafeBitCast(address, to: F.self)
        }
        guard let open2: Open2 = function("spd_open2"), let close: Close = function("spd_close"),
            let say: Say = function("spd_say"), let cancel: Cancel = function("spd_cancel"),
            let setNotificationOn: SetNotificationOn = function("spd_set_notification_on"),
            let setLanguage: SetLanguage = function("spd_set_language"),
            let setVoiceRate: SetVoiceRate = function("spd_set_voice_rate"),
            let listSynthesisVoices: ListSynthesisVoices = function("spd_list_synthesis_voices"),
            let freeVoices: FreeVoices = function("free_spd_voices")
        else {
            dlclose(handle)
            return .failure(.speechUnreachable("\(soname) has no \(missing)"))
        }
        return .success(
            SpeechLibrary(
                open2: open2, close: close, say: say, cancel: cancel, setNotificationOn: setNotificationOn,
                setLanguage: setLanguage, setVoiceRate: setVoiceRate, listSynthesisVoices: listSynthesisVoices,
                freeVoices: freeVoices))
    }
}

/// An open connection to speech-dispatcher, through the loaded library.
struct SpeechConnection {
    let library: SpeechLibrary
    let handle: SpeechLibrary.Connection

    /// The phrase's id, negative if speech-dispatcher refused it.
    func say(_ text: String) -> Int32 { library.say(handle, SPD_MESSAGE, text) }

    func cancel() { _ = library.cancel(handle) }

    /// Whether speech-dispatcher took the language.
    func setLanguage(_ language: String) -> Bool { library.setLanguage(handle, language) == 0 }

    func close() { library.close(handle) }
}

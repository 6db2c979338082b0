import IntervalCore

/// Why a sound or phrase played to its end (`intervalctl test-sound`, Preferences' Play and Speak) was not heard, in
/// words for the person who asked: what really failed, not the library's code for it ("Invalid state").
public enum SoundFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No audio server (PulseAudio, PipeWire) could be reached: nothing can be heard.
    case noAudioServer
    /// The sound's own fault, in libcanberra's words ("Not found"): the server is fine.
    case sound(String)
    /// speech-dispatcher could not be reached (or started), in libspeechd's words.
    case speechUnreachable(String)
    /// speech-dispatcher refused the phrase, or took it and did not say it with an audio server there.
    case notSpoken

    public var description: String {
        switch self {
        case .noAudioServer: tr("No audio server")
        case .sound(let reason): reason
        case .speechUnreachable(let reason):
            reason.isEmpty
                ? tr("speech-dispatcher could not be reached")
                : tr("speech-dispatcher could not be reached: {reason}", ["reason": reason])
        case .notSpoken: tr("speech-dispatcher did not say it")
        }
    }
}

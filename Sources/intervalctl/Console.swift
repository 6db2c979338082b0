import Foundation

/// The process's standard streams, written without buffering surprises between them.
enum Console {
    static let standardError = FileHandle.standardError
    static let standardOutput = FileHandle.standardOutput

    static func print(_ text: String) {
        standardOutput.write(text + "\n")
    }
}

extension FileHandle {
    func write(_ text: String) {
        write(Data(text.utf8))
    }
}

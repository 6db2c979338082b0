internal import CGio
import IntervalCore

/// A GIO error's message, and whether it is one of GIO's codes.
struct GIOFailure: Error {
    let message: String
    let domain: GQuark
    let code: Int32

    /// A call that failed without a GError (none of those used here should).
    static var unexplained: GIOFailure { GIOFailure(message: tr("GIO gave no reason"), domain: 0, code: 0) }

    func isIO(_ code: GIOErrorEnum) -> Bool {
        domain == g_io_error_quark() && self.code == Int32(code.rawValue)
    }
}

/// What `body` answers, or the GError it set as a ``GIOFailure`` (freed here): every GIO call that takes a `GError **`
/// goes through this one conversion.
func gio<Value>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Value?) throws(GIOFailure) -> Value {
    var error: UnsafeMutablePointer<GError>?
    let value = body(&error)
    if let error {
        defer { g_error_free(error) }
        throw GIOFailure(
            message: error.pointee.message.map { String(cString: $0) } ?? "", domain: error.pointee.domain,
            code: error.pointee.code)
    }
    guard let value else { throw GIOFailure.unexplained }
    return value
}

/// A GIO call's `gboolean` result as a value for ``gio(_:)``: nil when it failed.
func succeeded(_ result: gboolean) -> Bool? { result != 0 ? true : nil }

/// A string GLib allocated, as a Swift string; freed here.
func takeString(_ text: UnsafeMutablePointer<CChar>?) -> String? {
    guard let text else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}

/// A GFile (a local path, or a URI gvfs serves: `mtp://…`, `localtest://…`), whose reference this object owns. Its
/// calls are synchronous and may be made on any thread (GIO's GFile is thread-safe); on a gvfs mount each one is a
/// D-Bus round trip to the backend.
final class GIOFile: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes the reference a GIO function returned.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// The corresponding C function is `g_file_new_for_uri`; it never fails (an unknown URI gives a file whose calls
    /// fail).
    convenience init(uri: String) { self.init(taking: g_file_new_for_uri(uri)) }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The corresponding C function is `g_file_get_child`.
    func child(_ name: String) -> GIOFile { GIOFile(taking: g_file_get_child(pointer, name)) }

    var uri: String { takeString(g_file_get_uri(pointer)) ?? "" }

    /// Where the file is, for a person: its path when it is local (`g_file_is_native`), else its URI unescaped
    /// (`mtp://091e_4f42/Internal Storage/GARMIN`; `g_file_get_parse_name` keeps a space escaped in gvfs's URIs).
    var parseName: String {
        if g_file_is_native(pointer) != 0, let path = takeString(g_file_get_path(pointer)) { return path }
        return takeString(g_uri_unescape_string(uri, nil)) ?? uri
    }

    var baseName: String { takeString(g_file_get_basename(pointer)) ?? "" }

    /// Whether it is a folder (`g_file_query_file_type`; links followed, as a person's file manager does).
    var isFolder: Bool { g_file_query_file_type(pointer, G_FILE_QUERY_INFO_NONE, nil) == G_FILE_TYPE_DIRECTORY }

    /// The folders in this folder (`g_file_enumerate_children`), in GIO's order; none when it cannot be listed.
    func folders() -> [GIOFile] {
        guard
            let enumerator = try? gio({
                g_file_enumerate_children(pointer, "standard::name,standard::type", G_FILE_QUERY_INFO_NONE, nil, $0)
            })
        else { return [] }
        defer {
            g_file_enumerator_close(enumerator, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(enumerator))
        }
        var found: [GIOFile] = []
        while let info = try? gio({ g_file_enumerator_next_file(enumerator, nil, $0) }) {
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            if g_file_info_get_file_type(info) == G_FILE_TYPE_DIRECTORY, let name = g_file_info_get_name(info) {
                found.append(child(String(cString: name)))
            }
        }
        return found
    }

    /// The bytes free on the file system the file is on (`filesystem::free` of `g_file_query_filesystem_info`), when
    /// its backend says.
    var freeBytes: UInt64? {
        guard let info = try? gio({ g_file_query_filesystem_info(pointer, G_FILE_ATTRIBUTE_FILESYSTEM_FREE, nil, $0) })
        else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        guard g_file_info_has_attribute(info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE) != 0 else { return nil }
        return UInt64(g_file_info_get_attribute_uint64(info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE))
    }

    /// The corresponding C function is `g_file_make_directory`.
    func makeFolder() throws(GIOFailure) {
        _ = try gio { succeeded(g_file_make_directory(pointer, nil, $0)) }
    }

    /// The corresponding C function is `g_file_delete`.
    func delete() throws(GIOFailure) {
        _ = try gio { succeeded(g_file_delete(pointer, nil, $0)) }
    }

    /// Copies this file to `destination`, which must not exist (`g_file_copy` without `G_FILE_COPY_OVERWRITE`: gvfs's
    /// MTP backend refuses to replace a file, and turns a copy from a local file into MTP's push).
    func copy(to destination: GIOFile) throws(GIOFailure) {
        _ = try gio { succeeded(g_file_copy(pointer, destination.pointer, G_FILE_COPY_NONE, nil, nil, nil, $0)) }
    }

    /// A new local file in the temporary folder, named after `template` (`XXXXXX` replaced), holding `bytes`
    /// (`g_file_new_tmp`).
    static func temporary(_ template: String, holding bytes: [UInt8]) throws(GIOFailure) -> GIOFile {
        var stream: UnsafeMutablePointer<GFileIOStream>?
        let file = GIOFile(taking: try gio { g_file_new_tmp(template, &stream, $0) })
        do throws(GIOFailure) {
            guard let stream else { throw GIOFailure.unexplained }
            defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
            let output = g_io_stream_get_output_stream(UnsafeMutablePointer(OpaquePointer(stream)))
            _ = try gio { error in
                bytes.withUnsafeBytes { buffer in
                    succeeded(
                        g_output_stream_write_all(output, buffer.baseAddress, gsize(buffer.count), nil, nil, error))
                }
            }
            _ = try gio { succeeded(g_io_stream_close(UnsafeMutablePointer(OpaquePointer(stream)), nil, $0)) }
        } catch {
            try? file.delete()
            throw error
        }
        return file
    }
}

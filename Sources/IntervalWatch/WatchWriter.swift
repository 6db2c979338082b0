internal import CGio
import IntervalCore

/// Writes workouts to a watch's `GARMIN/NewFiles` with GIO, in the one way gvfs's MTP backend takes a file on a Garmin
/// (docs/fit.md): it refuses to create, replace or rename a file there, and turns a copy from a *local* file into MTP's
/// push. So the workout is made as a local temporary file first, then copied; a file of the same name is deleted
/// before, not overwritten; and a copy that fails has what it wrote deleted. The same steps work on a watch mounted as
/// USB storage.
public enum WatchWriter {
    /// Copies `bytes` to `watch` as `GARMIN/NewFiles/fileName`; where it went, as a person reads it. Synchronous: an
    /// MTP copy takes a moment, so the window calls it off its main thread.
    public static func send(_ bytes: [UInt8], as fileName: String, to watch: Watch) throws(WatchError) -> String {
        let local: GIOFile
        do throws(GIOFailure) {
            local = try GIOFile.temporary("intervald-XXXXXX.fit", holding: bytes)
        } catch {
            throw WatchError(.localCopy(reason: error.message))
        }
        defer { try? local.delete() }
        let folder = GIOFile(uri: watch.folder).child(Watch.newFilesFolder)
        do throws(GIOFailure) {
            try folder.makeFolder()
        } catch  where error.isIO(G_IO_ERROR_EXISTS) && folder.isFolder {
            // There already, as it is once a watch has had a file.
        } catch {
            throw WatchError(.newFilesFolder(watch: watch.name, location: folder.parseName, reason: error.message))
        }
        let destination = folder.child(fileName)
        do throws(GIOFailure) {
            try destination.delete()
        } catch  where error.isIO(G_IO_ERROR_NOT_FOUND) {
            // Nothing to replace.
        } catch {
            throw WatchError(
                .replace(watch: watch.name, file: fileName, location: folder.parseName, reason: error.message))
        }
        do throws(GIOFailure) {
            try local.copy(to: destination)
        } catch let failure {
            // The destination was deleted above: whatever is there now is what the copy wrote before it failed.
            do throws(GIOFailure) {
                try destination.delete()
            } catch  where error.isIO(G_IO_ERROR_NOT_FOUND) {
                // It wrote nothing.
            } catch {
                throw WatchError(
                    .copyLeftPart(
                        watch: watch.name, file: fileName, location: folder.parseName, reason: failure.message,
                        cleanup: error.message))
            }
            throw WatchError(
                .copy(watch: watch.name, file: fileName, location: folder.parseName, reason: failure.message))
        }
        return destination.parseName
    }
}

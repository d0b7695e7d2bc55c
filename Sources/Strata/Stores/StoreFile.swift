import Foundation
internal import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks on a store's file before it is opened, so that a missing folder, a folder that
/// cannot be written, or a file that is not a store gets a clear error and the file is left
/// as it was.
enum StoreFile {
    /// Whether a non-empty file exists at the URL. Throws when its folder is missing, or
    /// cannot be written and the store is not read-only.
    static func check(_ url: URL, readOnly: Bool) throws -> Bool {
        let manager = FileManager.default
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CoreDataError.make(
                CocoaError.Code.fileNoSuchFile.rawValue,
                "The folder \(directory.path) for the store does not exist.",
                userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: directory.path])
        }
        let attributes = try? manager.attributesOfItem(atPath: url.path)
        let exists = ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > 0
        if !readOnly && !manager.isWritableFile(atPath: directory.path) {
            throw CoreDataError.make(
                CocoaError.Code.fileWriteNoPermission.rawValue,
                "The folder \(directory.path) for the store cannot be written.",
                userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: directory.path])
        }
        if readOnly && !exists {
            throw CoreDataError.make(
                CocoaError.Code.fileReadNoSuchFile.rawValue, "There is no store at \(url.path) to open read-only.",
                userInfo: [NSURLErrorKey: url])
        }
        return exists
    }

    /// Refuses a URL that destroying, replacing or migrating a store must not write through:
    /// anything but a regular file (a device such as `/dev/null`, a folder, a pipe), or a
    /// symbolic link other than one to a regular file in the same folder. Nothing is touched.
    /// A path where nothing exists yet is allowed (the operation creates the file, or has
    /// nothing to remove). Throws `code` (`NSPersistentStoreOperationError` unless given).
    static func requireOwnableFile(_ url: URL, operation: String, code: Int = NSPersistentStoreOperationError) throws {
        func refuse(_ what: String) -> NSError {
            CoreDataError.make(
                code, "Cannot \(operation) the store at \(url.path): \(what).",
                userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path, "reason": what])
        }
        guard url.isFileURL else { throw refuse("it is not a file URL") }
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            if errno == ENOENT { return }
            throw refuse("its file cannot be examined (errno \(errno))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return
        case S_IFLNK:
            let target = url.resolvingSymlinksInPath()
            let folder = url.deletingLastPathComponent().resolvingSymlinksInPath()
            var targetInfo = stat()
            guard stat(target.path, &targetInfo) == 0, targetInfo.st_mode & S_IFMT == S_IFREG,
                target.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path
            else { throw refuse("it is a symbolic link to something other than a file in the store's folder") }
        case S_IFDIR:
            throw refuse("it is a folder")
        case S_IFCHR, S_IFBLK:
            throw refuse("it is a device")
        default:
            throw refuse("it is not a regular file")
        }
    }

    /// Throws `NSFileReadCorruptFileError` unless the file starts with SQLite's header, as
    /// SQLite itself reads it. A file descriptor of Strata's own would not do: closing it drops
    /// every POSIX lock this process holds on the file, those of the SQLite connections open on
    /// it too (such locks belong to the process, not to a descriptor), and another process
    /// could then checkpoint or truncate the WAL under them. SQLite's connections to one file
    /// share a descriptor that stays open while any of them is.
    static func requireSQLiteHeader(_ url: URL) throws {
        let notADatabase = {
            CoreDataError.make(
                CocoaError.Code.fileReadCorruptFile.rawValue,
                "The file at \(url.path) is not a SQLite database.", userInfo: [NSURLErrorKey: url])
        }
        // SQLite takes an empty file for an empty database; a store's file is never empty.
        var info = stat()
        if stat(url.path, &info) == 0, info.st_size == 0 { throw notADatabase() }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            _ = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA schema_version") }
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_NOTADB {
            throw notADatabase()
        } catch let error as DatabaseError
            where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode.primaryResultCode)
        {
            // Another connection holds the file, a database then: the open that follows waits
            // for it as long as the store's timeout says.
            return
        } catch let error as DatabaseError {
            try translatingSQLiteErrors(url) { throw error }
        }
    }

    /// A SQLite error as Core Data puts it under its own: `NSSQLiteErrorDomain`, the primary
    /// result code, SQLite's message.
    static func sqliteError(_ error: DatabaseError) -> NSError {
        NSError(
            domain: NSSQLiteErrorDomain, code: Int(error.resultCode.primaryResultCode.rawValue),
            userInfo: [NSLocalizedDescriptionKey: error.message ?? "\(error)"])
    }

    /// Runs the body, turning SQLite's errors into Core Data's: a damaged file is
    /// `NSFileReadCorruptFileError` with the SQLite error underneath, others `code`
    /// (`NSSQLiteError` unless the operation has its own: 134110 for a migration, 134030 for a
    /// save…), the SQLite error as `NSUnderlyingError` and its code under `NSSQLiteErrorDomain`.
    /// Core Data's own errors, and the app's (a migration policy's, say), pass as they are.
    static func translatingSQLiteErrors<T>(
        _ url: URL?, code fallback: Int = NSSQLiteError, _ body: () throws -> T
    ) throws
        -> T
    {
        let path = url?.path ?? "the store"
        do {
            return try body()
        } catch let error as DatabaseError {
            let code = Int(error.resultCode.primaryResultCode.rawValue)
            let underlying = sqliteError(error)
            var info: [String: Any] = [NSUnderlyingErrorKey: underlying, NSSQLiteErrorDomain: code]
            if let url { info[NSURLErrorKey] = url }
            switch error.resultCode.primaryResultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                throw CoreDataError.make(
                    CocoaError.Code.fileReadCorruptFile.rawValue, "The store at \(path) is damaged or not a database.",
                    userInfo: info)
            case .SQLITE_CONSTRAINT:
                // The unique indexes behind uniqueness constraints: the last line of defence
                // when a save's own check missed a conflict (another process, say).
                throw CoreDataError.make(
                    NSManagedObjectConstraintMergeError,
                    "A uniqueness constraint of \(path) was violated: \(error.message ?? "")",
                    userInfo: info.merging(["conflictList": [NSConstraintConflict]()]) { a, _ in a })
            case .SQLITE_BUSY where fallback == NSPersistentStoreOpenError:
                // Another connection kept its lock past the store's timeout.
                throw CoreDataError.make(
                    NSPersistentStoreTimeoutError,
                    "The store at \(path) stayed locked by another connection past its timeout (NSPersistentStoreTimeoutOption).",
                    userInfo: info)
            case .SQLITE_FULL:
                throw CoreDataError.make(
                    CocoaError.Code.fileWriteOutOfSpace.rawValue, "The disk holding \(path) is full.", userInfo: info)
            default:
                // The extended code says which of a kind (which I/O call, which lock) failed.
                let extended = Int(error.extendedResultCode.rawValue)
                let detail = extended == code ? "\(code)" : "\(code) (extended \(extended))"
                throw CoreDataError.make(
                    fallback, "SQLite error \(detail) on \(path): \(error.message ?? "")", userInfo: info)
            }
        } catch let error as NSError where error.domain.hasPrefix("GRDB") {
            // GRDB's other errors (a row that does not decode, say): Core Data's code, GRDB's
            // error underneath.
            var info: [String: Any] = [NSUnderlyingErrorKey: error]
            if let url { info[NSURLErrorKey] = url }
            throw CoreDataError.make(fallback, "The store at \(path) failed: \(error.localizedDescription)", userInfo: info)
        }
    }
}

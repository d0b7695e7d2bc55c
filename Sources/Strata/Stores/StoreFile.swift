import Foundation
internal import GRDB

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

    /// Throws `NSFileReadCorruptFileError` unless the file starts with SQLite's header.
    static func requireSQLiteHeader(_ url: URL) throws {
        let header = Data("SQLite format 3\0".utf8)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let start = try handle.read(upToCount: header.count) ?? Data()
        guard start == header else {
            throw CoreDataError.make(
                CocoaError.Code.fileReadCorruptFile.rawValue,
                "The file at \(url.path) is not a SQLite database.", userInfo: [NSURLErrorKey: url])
        }
    }

    /// Runs the body, turning SQLite's errors into Core Data's: a damaged file is
    /// `NSFileReadCorruptFileError` with the SQLite error underneath, others `NSSQLiteError`.
    static func translatingSQLiteErrors<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            let code = Int(error.resultCode.primaryResultCode.rawValue)
            let underlying = NSError(
                domain: NSSQLiteErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: error.message ?? "\(error)"])
            let info: [String: Any] = [NSURLErrorKey: url, NSUnderlyingErrorKey: underlying, NSSQLiteErrorDomain: code]
            switch error.resultCode.primaryResultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                throw CoreDataError.make(
                    CocoaError.Code.fileReadCorruptFile.rawValue, "The store at \(url.path) is damaged or not a database.",
                    userInfo: info)
            case .SQLITE_CONSTRAINT:
                // The unique indexes behind uniqueness constraints: the last line of defence
                // when a save's own check missed a conflict (another process, say).
                throw CoreDataError.make(
                    NSManagedObjectConstraintMergeError,
                    "A uniqueness constraint of \(url.path) was violated: \(error.message ?? "")",
                    userInfo: info.merging(["conflictList": [NSConstraintConflict]()]) { a, _ in a })
            case .SQLITE_FULL:
                throw CoreDataError.make(
                    CocoaError.Code.fileWriteOutOfSpace.rawValue, "The disk holding \(url.path) is full.", userInfo: info)
            default:
                throw CoreDataError.make(
                    NSSQLiteError, "SQLite error \(code) on \(url.path): \(error.message ?? "")", userInfo: info)
            }
        }
    }
}

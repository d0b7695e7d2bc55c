import Foundation
internal import GRDB

/// Store metadata written without adding the store, and the iOS 15 spellings of the file
/// operations that take an `NSPersistentStore.StoreType`.
extension NSPersistentStoreCoordinator {
    /// Replaces the metadata of the store file at the URL without adding the store. The
    /// store's UUID and type are kept whatever the dictionary says.
    ///
    /// ```swift
    /// var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
    /// metadata["LastImport"] = Date()
    /// try NSPersistentStoreCoordinator.setMetadata(metadata, forPersistentStoreOfType: NSSQLiteStoreType, at: url)
    /// ```
    public class func setMetadata(
        _ metadata: [String: Any]?, forPersistentStoreOfType storeType: String, at url: URL,
        options: [AnyHashable: Any]? = nil
    ) throws {
        switch storeType {
        case NSSQLiteStoreType: try SQLiteStore.writeMetadata(metadata ?? [:], at: url)
        case NSBinaryStoreType: try BinaryStore.writeMetadata(metadata ?? [:], at: url)
        default: throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown store type \"\(storeType)\".")
        }
    }

    /// Replaces the metadata of the store file at the URL (iOS 15 spelling).
    public class func setMetadata(
        _ metadata: [String: Any]?, type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws {
        try setMetadata(metadata, forPersistentStoreOfType: type.rawValue, at: url, options: options)
    }

    /// The metadata of the store file at the URL (iOS 15 spelling).
    public class func metadataForPersistentStore(
        type: NSPersistentStore.StoreType, at url: URL, options: [AnyHashable: Any]? = nil
    ) throws -> [String: Any] {
        try metadataForPersistentStore(ofType: type.rawValue, at: url, options: options)
    }

    /// Copies a store to a new store of the type at the URL (iOS 15 spelling).
    @discardableResult
    public func migratePersistentStore(
        _ store: NSPersistentStore, to url: URL, options: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType
    ) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: url, options: options, withType: type.rawValue)
    }

    /// Replaces the store at `destinationURL` with a copy of the one at `sourceURL` (iOS 15
    /// spelling).
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
        withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil, type: NSPersistentStore.StoreType
    ) throws {
        try replacePersistentStore(
            at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
            sourceOptions: sourceOptions, ofType: type.rawValue)
    }
}

extension SQLiteStore {
    /// Writes the metadata into the file's `Z_METADATA` row, keeping its UUID.
    static func writeMetadata(_ metadata: [String: Any], at url: URL) throws {
        guard try StoreFile.check(url, readOnly: false) else {
            throw CoreDataError.make(
                NSFileReadNoSuchFileError, "There is no store at \(url.path).", userInfo: [NSURLErrorKey: url])
        }
        try StoreFile.requireSQLiteHeader(url)
        try StoreFile.translatingSQLiteErrors(url) {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            try queue.write { db in
                guard try readMetadata(db) != nil else {
                    throw CoreDataError.make(
                        NSPersistentStoreInvalidTypeError, "The file at \(url.path) is not a Core Data store.",
                        userInfo: [NSURLErrorKey: url])
                }
                var stored = metadata
                stored[NSStoreTypeKey] = NSSQLiteStoreType
                try db.execute(
                    sql: "UPDATE Z_METADATA SET Z_PLIST = ? WHERE Z_VERSION = 1", arguments: [try plistData(stored)])
            }
        }
    }
}

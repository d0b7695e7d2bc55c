import Foundation
internal import GRDB

extension NSManagedObjectModel {
    /// The model a SQLite store was last written with, as Core Data keeps it in the store's
    /// `Z_MODELCACHE` table (Apple's framework since about 2013, and Strata).
    ///
    /// With it, a store can be opened and read with no model file at all, and a store whose
    /// model version the app no longer ships can still be migrated. Apple's framework uses the
    /// cache internally and offers no call for it; this one is Strata's.
    ///
    /// ```swift
    /// let model = try NSManagedObjectModel.cachedModel(ofStoreAt: storeURL)
    /// let description = NSPersistentStoreDescription(url: storeURL)
    /// description.isReadOnly = true
    /// ```
    ///
    /// - Throws: `NSMigrationMissingSourceModelError` (134130) when the file holds no cached
    ///   model (a store of an older framework, or not a Core Data store), with the reason; the
    ///   file is only read.
    public static func cachedModel(ofStoreAt url: URL) throws -> NSManagedObjectModel {
        var configuration = Configuration()
        configuration.readonly = true
        let content: Data?
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            content = try queue.read { db in try StoreModelCache.content(in: db) }
        } catch {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError,
                "The store at \(url.path) cannot be read for its cached model: \(error)",
                userInfo: [NSUnderlyingErrorKey: error as NSError, NSURLErrorKey: url])
        }
        guard let content else {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError, "The store at \(url.path) holds no cached model (Z_MODELCACHE).",
                userInfo: [NSURLErrorKey: url])
        }
        let model = NSManagedObjectModel()
        do {
            try CompiledModelDecoder.readModelCache(content, file: url, into: model)
        } catch {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError, "The cached model of the store at \(url.path) is damaged: \(error)",
                userInfo: [NSURLErrorKey: url])
        }
        return model
    }
}

/// The model cache of an open SQLite store: read for `cachedModel(ofStoreAt:)` and migration,
/// written when a store is created and after it migrates.
enum StoreModelCache {
    /// The model cached in the store, or `nil` when it has none or it cannot be read.
    static func model(in db: Database) -> NSManagedObjectModel? {
        guard let content = try? content(in: db) else { return nil }
        let model = NSManagedObjectModel()
        guard (try? CompiledModelDecoder.readModelCache(content, file: nil, into: model)) != nil else { return nil }
        return model
    }

    /// The raw content of the store's model cache; `nil` when the table is absent or empty.
    static func content(in db: Database) throws -> Data? {
        guard try db.tableExists("Z_MODELCACHE"),
            let content = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL"),
            !content.isEmpty
        else { return nil }
        return content
    }

    /// Replaces the store's cached model with `model` (creating the table in stores of frameworks
    /// that had none), as Apple's framework does when it creates a store and after a migration.
    static func write(_ model: NSManagedObjectModel, in db: Database) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)")
        try db.execute(sql: "DELETE FROM Z_MODELCACHE")
        if let cache = CompiledModelEncoder.modelCache(model) {
            try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [cache])
        }
    }
}

import Foundation
import GRDB
import Strata

/// A store opened through Strata for one command: its coordinator, model and metadata.
///
/// A store opened read-only is a copy in a temporary folder (with its `-wal` and `-shm`, and
/// a link to its external data folder): SQLite rewrites a WAL store's `-shm` even through a
/// read-only connection, and the tool promises never to change a file it only reads.
final class OpenedStore {
    /// The file the user named.
    let originalURL: URL
    /// The file Strata opened: `originalURL`, or its copy.
    let url: URL
    let model: NSManagedObjectModel
    /// Where the model came from, for `info`: the model file's path, or the store's cache.
    let modelSource: String
    /// The model version the store matched, when the model file has several.
    let modelVersionName: String?
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let metadata: [String: Any]
    private let temporaryFolder: URL?

    fileprivate init(
        originalURL: URL, url: URL, model: ResolvedModel, coordinator: NSPersistentStoreCoordinator,
        store: NSPersistentStore, temporaryFolder: URL?
    ) {
        self.originalURL = originalURL
        self.url = url
        self.model = model.model
        self.modelSource = model.source
        self.modelVersionName = model.versionName
        self.coordinator = coordinator
        self.store = store
        self.metadata = store.metadata ?? [:]
        self.temporaryFolder = temporaryFolder
    }

    /// A new context on the store's coordinator (private queue: the tool uses `performAndWait`).
    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        return context
    }

    /// Closes the store and removes the temporary copy.
    func close() {
        try? coordinator.remove(store)
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
    }

    deinit { close() }

    /// The entity of that name, or a failure listing the store's entities.
    func entity(named name: String) throws -> NSEntityDescription {
        if let entity = model.entitiesByName[name] { return entity }
        let names = model.entities.compactMap(\.name).sorted().joined(separator: ", ")
        throw StoreToolFailure("unknown entity '\(name)' (the store's entities: \(names))")
    }
}

/// A model and where it came from.
struct ResolvedModel {
    let model: NSManagedObjectModel
    let source: String
    let versionName: String?
}

/// Finds, checks and opens stores the way every `strata store` command does, with one-line
/// failures naming what is wrong: a missing store, a file that is not SQLite, a SQLite file
/// that is not a Core Data store, a model that cannot be read or does not match.
enum StoreOpening {
    /// The bytes every SQLite 3 database starts with.
    private static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// The URL of an existing store file, after checking that it is a SQLite database.
    static func existingStore(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreToolFailure("no store at \(path)")
        }
        guard !isDirectory.boolValue else { throw StoreToolFailure("\(path) is a directory, not a store file") }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw StoreToolFailure("cannot read \(path)") }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: sqliteHeader.count)) ?? Data()
        guard Array(header) == sqliteHeader else { throw StoreToolFailure("\(path) is not a SQLite file") }
        return url
    }

    /// Copies a store with its `-wal` and `-shm` into a new temporary folder (its external data
    /// folder is linked, not copied) and returns the copy's URL and the folder.
    static func temporaryCopy(of url: URL) throws -> (url: URL, folder: URL) {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent("strata-\(UUID().uuidString)")
        try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent(url.lastPathComponent)
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: url.path + suffix)
            if manager.fileExists(atPath: source.path) {
                try manager.copyItem(at: source, to: URL(fileURLWithPath: copy.path + suffix))
            }
        }
        let support = externalDataFolder(of: url).deletingLastPathComponent()
        if manager.fileExists(atPath: support.path) {
            try manager.createSymbolicLink(
                at: folder.appendingPathComponent(support.lastPathComponent), withDestinationURL: support)
        }
        return (copy, folder)
    }

    /// `.<store>_SUPPORT/_EXTERNAL_DATA` beside the store (STORE-FORMAT §3.7).
    static func externalDataFolder(of url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent)_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
    }

    /// Reads Z_METADATA of a store file (a copy), or fails saying the file is not a Core Data store.
    static func metadata(of url: URL, path: String) throws -> [String: Any] {
        do {
            return try NSPersistentStoreCoordinator.metadataForPersistentStore(
                ofType: NSSQLiteStoreType, at: url, options: nil)
        } catch {
            throw StoreToolFailure("\(path) is not a Core Data store (\(StoreTool.describe(error)))")
        }
    }

    /// Whether the store's file has the tables of persistent history.
    static func hasHistoryTables(_ url: URL) -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: url.path, configuration: configuration) else { return false }
        defer { try? queue.close() }
        return (try? queue.read { db in try db.tableExists("ATRANSACTION") }) ?? false
    }

    /// The model to open a store with: the model file given (the version of a versioned
    /// bundle whose hashes match the store, else its current version), or the store's cached
    /// model.
    static func model(path: String?, storeURL: URL?, metadata: [String: Any]?) throws -> ResolvedModel {
        guard let path else {
            guard let storeURL else { throw StoreToolFailure("no model: give one with --model") }
            do {
                return ResolvedModel(
                    model: try NSManagedObjectModel.cachedModel(ofStoreAt: storeURL),
                    source: "cached in the store (Z_MODELCACHE)",
                    versionName: nil)
            } catch {
                throw StoreToolFailure(
                    "the store has no cached model (Z_MODELCACHE) that can be read; give its model with --model")
            }
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        guard FileManager.default.fileExists(atPath: url.path) else { throw StoreToolFailure("no model at \(path)") }
        if url.pathExtension == "xcdatamodeld", let metadata {
            let bundle: XcodeModelBundle
            do { bundle = try XcodeModelBundle(url: url) } catch { throw StoreToolFailure("model: \(error)") }
            let names = [bundle.currentVersionName] + bundle.versionNames.filter { $0 != bundle.currentVersionName }
            for name in names {
                guard let model = try? bundle.model(named: name) else { continue }
                if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
                    return ResolvedModel(model: model, source: path, versionName: name)
                }
            }
        }
        do {
            let model = try NSManagedObjectModel.load(contentsOf: url)
            let version = url.pathExtension == "xcdatamodeld" ? (try? XcodeModelBundle(url: url))?.currentVersionName : nil
            return ResolvedModel(model: model, source: path, versionName: version)
        } catch {
            throw StoreToolFailure("model: \(error)")
        }
    }

    /// The entities whose version hashes differ between a model and a store's metadata.
    static func mismatch(of model: NSManagedObjectModel, with metadata: [String: Any]) -> [String] {
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]
        let hashes = model.entityVersionHashesByName
        let names = Set(stored.keys).union(hashes.keys).sorted()
        return names.filter { stored[$0] != hashes[$0] }
    }

    /// Opens an existing store read-only, from a temporary copy.
    static func openReadOnly(_ path: String, modelPath: String?, history: Bool = false) throws -> OpenedStore {
        let original = try existingStore(path)
        let (copy, folder) = try temporaryCopy(of: original)
        do {
            let metadata = try metadata(of: copy, path: path)
            let resolved = try model(path: modelPath, storeURL: copy, metadata: metadata)
            try requireMatch(resolved, metadata: metadata)
            var options: [AnyHashable: Any] = [NSReadOnlyPersistentStoreOption: NSNumber(value: true)]
            if history || hasHistoryTables(copy) { options[NSPersistentHistoryTrackingKey] = NSNumber(value: true) }
            return try open(copy, original: original, model: resolved, options: options, folder: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Opens a store for writing where it is (created when missing, which needs a model).
    static func openWritable(at url: URL, model resolved: ResolvedModel, history: Bool) throws -> OpenedStore {
        var options: [AnyHashable: Any] = [:]
        if history { options[NSPersistentHistoryTrackingKey] = NSNumber(value: true) }
        return try open(url, original: url, model: resolved, options: options, folder: nil)
    }

    static func requireMatch(_ resolved: ResolvedModel, metadata: [String: Any]) throws {
        guard !resolved.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return }
        let differing = mismatch(of: resolved.model, with: metadata)
        let shown = differing.prefix(5).joined(separator: ", ") + (differing.count > 5 ? ", …" : "")
        throw StoreToolFailure(
            "the model \(resolved.source) does not match the store (entities that differ: \(shown)); "
                + "migrate it with `strata store migrate`")
    }

    private static func open(
        _ url: URL, original: URL, model: ResolvedModel, options: [AnyHashable: Any], folder: URL?
    ) throws -> OpenedStore {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model.model)
        let store: NSPersistentStore
        do {
            store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        } catch {
            throw StoreToolFailure("cannot open \(original.path): \(StoreTool.describe(error))")
        }
        return OpenedStore(
            originalURL: original, url: url, model: model, coordinator: coordinator, store: store, temporaryFolder: folder)
    }
}

extension NSManagedObjectID {
    /// The ID as the tool writes it: `Entity/pN` (the object's URI without the store's UUID,
    /// so that an export does not change when its objects move to another store).
    var toolIdentifier: String {
        let uri = uriRepresentation().absoluteString
        guard let slash = uri.lastIndex(of: "/") else { return uri }
        return "\(entity.name ?? "?")/\(uri[uri.index(after: slash)...])"
    }

    /// The primary key (`Z_PK`) of a permanent ID.
    var primaryKey: Int64? {
        let uri = uriRepresentation().absoluteString
        guard let slash = uri.lastIndex(of: "/") else { return nil }
        let last = uri[uri.index(after: slash)...]
        guard last.first == "p" else { return nil }
        return Int64(last.dropFirst())
    }
}

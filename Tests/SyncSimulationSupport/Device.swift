import Foundation
import StrataSyncProtocol

@testable import Strata

/// A fresh directory for one test, removed when the value goes away.
final class Scratch: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sync-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// One device: a store with history, its metadata, and the exporter and importer run by
/// hand against a `MemoryZone` (what the engine does over HTTP). The simulation against a
/// real server opens its store through `NSPersistentCloudKitContainer` (`init(store:)`) and
/// pushes and pulls with the sync engine.
final class Device: @unchecked Sendable {
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let metadata: SyncMetadata
    let url: URL
    var online = true

    /// With `historyValues` (as `NSPersistentCloudKitContainer` adds synced stores), history
    /// keeps updates' values before and after.
    convenience init(at url: URL, model: NSManagedObjectModel, historyValues: Bool = true) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url,
            options: [
                NSPersistentHistoryTrackingKey: true as NSNumber,
                StrataPersistentHistoryValuesKey: historyValues as NSNumber,
            ])
        try self.init(store: store)
    }

    /// A device on a SQLite store already open (with history on).
    init(store: NSPersistentStore) throws {
        guard let coordinator = store.persistentStoreCoordinator, let url = store.url,
            let metadata = try SyncMetadata(store: store)
        else { throw CocoaError(.featureUnsupported) }
        self.url = url
        self.coordinator = coordinator
        self.store = store
        self.metadata = metadata
        _ = try metadata.write { db in try SyncMetadata.clientID(in: db) }
    }

    var clientID: String { (try? metadata.read { db in try SyncMetadata.clientID(in: db) }) ?? "" }

    func context(author: String? = "app") -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = author
        return context
    }

    /// The clock as the engine reads it: the last reading and the readings seen since.
    private func clock() throws -> SyncClock {
        try metadata.read { db in
            SyncClock(
                node: try SyncMetadata.clientID(in: db),
                last: try SyncMetadata.value(.clock, in: db).flatMap(HybridLogicalClock.init),
                sightings: SyncClock.sightings(from: try SyncMetadata.value(.sightings, in: db)))
        }
    }

    /// Builds batches from local history; returns the changes enqueued.
    @discardableResult
    func export(localOnly: Bool = false, knownToServer: Set<String>? = nil, batchSize: Int = 400) throws -> Int {
        let context = self.context(author: nil)
        let exporter = SyncExporter(store: store, metadata: metadata, maximumChangesPerBatch: batchSize)
        return try context.performAndWait {
            var clock = try clock()
            return try exporter.enqueuePending(
                context: context, clock: &clock, localOnly: localOnly, knownToServer: knownToServer)
        }
    }

    /// Pushes the outbox to the zone as the engine does: requests of at most `limit`
    /// changes, their JSON put together from the batches' stored JSON (and decoded here
    /// as the server decodes it).
    func push(to zone: MemoryZone, limit: Int = 400) throws {
        while true {
            let stored = try metadata.read { db in try SyncMetadata.outboxRequest(maximumChanges: limit, in: db) }
            guard !stored.isEmpty else { return }
            let body = try SyncServerClient.pushBody(clientID: clientID, batches: stored.map(\.body))
            let answer = try zone.push(JSONDecoder().decode(PushRequest.self, from: body))
            try metadata.write { db in try SyncMetadata.removeFromOutbox(through: answer.lastBatchSequence, in: db) }
        }
    }

    /// Pulls and applies every page after the device's token.
    func pull(from zone: MemoryZone, assets: [String: Data] = [:]) throws {
        var more = true
        while more {
            try export()
            let token = try metadata.read { db in try SyncMetadata.value(.pullToken, in: db) }
            let answer = zone.changes(since: token, limit: 50)
            let context = self.context(author: NSPersistentCloudKitContainer.importAuthor)
            let importer = SyncImporter(store: store, metadata: metadata)
            _ = try context.performAndWait {
                var clock = try clock()
                return try importer.apply(
                    answer.records, nextToken: answer.nextToken, assets: assets, context: context, clock: &clock)
            }
            more = answer.hasMore
        }
    }

    /// Export, push, pull: one sync round while online.
    func sync(with zone: MemoryZone) throws {
        guard online else { return }
        try export()
        try push(to: zone)
        try pull(from: zone)
    }

    /// Every object as comparable text, by record name: attributes, to-one and
    /// many-to-many relationships as record names.
    func snapshot() throws -> [String: String] {
        let context = self.context()
        return try context.performAndWait {
            var result: [String: String] = [:]
            for entity in ["SyncItem", "SyncTag", "SyncList"] {
                for object in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
                    let name = try recordName(of: object.objectID) ?? "unnamed-\(object.objectID)"
                    var parts: [String] = [entity]
                    for attribute in object.entity.attributesByName.keys.sorted() where attribute != "attachment" {
                        parts.append("\(attribute)=\(String(describing: object.value(forKey: attribute)))")
                    }
                    if let list = object.value(forKey: "list") as? NSManagedObject {
                        parts.append("list=\(try recordName(of: list.objectID) ?? "?")")
                    }
                    for key in ["tags", "items"] where object.entity.relationshipsByName[key] != nil {
                        let names = try SyncExporter.relatedObjects(object.value(forKey: key)).map {
                            try recordName(of: $0.objectID) ?? "?"
                        }
                        parts.append("\(key)=\(names.sorted())")
                    }
                    result[name] = parts.joined(separator: " ")
                }
            }
            return result
        }
    }

    /// The numbers of the batches waiting in the outbox, in order.
    func outboxBatches() throws -> [Int64] {
        try metadata.read { db in try SyncMetadata.outbox(limit: Int.max, in: db) }.map(\.batchSequence)
    }

    func recordName(of id: NSManagedObjectID) throws -> String? {
        try metadata.read { db in
            try SyncMetadata.recordName(entity: id.entity.name ?? "", primaryKey: id.primaryKey, in: db)
        }
    }

    func close() throws { try coordinator.remove(store) }
}

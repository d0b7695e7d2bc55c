import Foundation
import StrataSyncProtocol
import Testing

@testable import Strata

/// The sync client's tests that need no server (issue 24): clocks, record mapping, link
/// names, and the exporter and importer of several stores exchanging records through
/// `MemoryZone`, a few lines that keep records as the server does (per-field last writer
/// wins by clock, a delete drops the fields not newer than it, batches applied once and in
/// order). The tests against
/// the real server are in `CloudKitContainerServerTests`.
@Suite enum SyncTests {}

extension SyncTests {
    /// Items with tags (many-to-many), a list (to-one) and a binary attachment.
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("SyncItem") {
                Attribute("title", .stringAttributeType)
                Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
                Attribute("done", .booleanAttributeType, optional: false, defaultValue: false)
                Attribute("due", .dateAttributeType)
                Attribute("attachment", .binaryDataAttributeType)
                Relationship("tags", to: "SyncTag", inverse: "items", toMany: true)
                Relationship("list", to: "SyncList", inverse: "items")
            }
            Entity("SyncTag") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "SyncItem", inverse: "tags", toMany: true)
            }
            Entity("SyncList") {
                Attribute("name", .stringAttributeType)
                Relationship("items", to: "SyncItem", inverse: "list", toMany: true)
            }
        }
    }

    static let sharedModel = model()

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

    /// The records of a zone as the server's contract keeps them, in memory.
    final class MemoryZone: @unchecked Sendable {
        private(set) var records: [String: RecordState] = [:]
        private(set) var sequence: Int64 = 0
        private var lastBatch: [String: Int64] = [:]
        private var newestDelete: [String: HybridLogicalClock] = [:]
        /// Record changes applied (not counting retried batches).
        private(set) var appliedChanges = 0

        /// How the next push fails, if it does: before applying anything, or after applying
        /// all of it (its answer lost, as when a server is killed mid-push).
        enum PushFailure: Error { case beforeApplying, afterApplying }
        var failNextPush: PushFailure?

        /// Applies batches in order, once each; a gap is refused as the server does (409).
        func push(_ request: PushRequest) throws -> PushResponse {
            if failNextPush == .beforeApplying {
                failNextPush = nil
                throw PushFailure.beforeApplying
            }
            defer { failNextPush = nil }
            let response = try apply(request)
            if failNextPush == .afterApplying { throw PushFailure.afterApplying }
            return response
        }

        private func apply(_ request: PushRequest) throws -> PushResponse {
            var applied: [Int64] = []
            var already: [Int64] = []
            for batch in request.batches {
                let last = lastBatch[request.clientID] ?? 0
                if batch.batchSequence <= last {
                    already.append(batch.batchSequence)
                    continue
                }
                guard batch.batchSequence == last + 1 else {
                    throw SyncServerError.from(
                        status: 409, answer: .init(code: .outOfOrder, message: "gap", lastBatchSequence: last),
                        path: "/push", retryAfter: nil)
                }
                for change in batch.changes { apply(change, from: request.clientID) }
                lastBatch[request.clientID] = batch.batchSequence
                applied.append(batch.batchSequence)
            }
            return PushResponse(
                applied: applied, alreadyApplied: already, lastBatchSequence: lastBatch[request.clientID] ?? 0,
                serverSequence: sequence)
        }

        /// The server's merge (see `StoredRecord` of the sync server): per field, last writer
        /// wins by clock; a delete drops the fields not newer than it, and later values not
        /// newer than the newest delete are ignored.
        private func apply(_ change: RecordChange, from client: String) {
            appliedChanges += 1
            var record =
                records[change.recordName]
                ?? RecordState(
                    recordType: change.recordType, recordName: change.recordName, fields: [:], clocks: [:], deleted: false,
                    deleteClock: nil, serverSequence: 0, changedBy: nil)
            var deleteClock = newestDelete[change.recordName]
            var changed = false
            switch change.operation {
            case .delete:
                guard let clock = change.deleteClock else { return }
                if let deleteClock, clock <= deleteClock { return }
                deleteClock = clock
                for (name, fieldClock) in record.clocks where fieldClock <= clock {
                    record.clocks[name] = nil
                    record.fields[name] = nil
                }
                if record.fields.isEmpty { record.deleted = true }
                changed = true
            case .upsert:
                for (name, value) in change.fields {
                    guard let clock = change.clocks[name] else { continue }
                    if let deleteClock, clock <= deleteClock { continue }
                    if let stored = record.clocks[name], clock <= stored { continue }
                    record.fields[name] = value
                    record.clocks[name] = clock
                    changed = true
                }
                if changed && record.deleted { record.deleted = false }
            }
            newestDelete[change.recordName] = deleteClock
            guard changed else { return }
            // The newest delete's clock, also on a record that came back (as the server answers).
            record.deleteClock = deleteClock
            sequence += 1
            record.serverSequence = sequence
            record.changedBy = client
            records[change.recordName] = record
        }

        /// The records changed after a token (a decimal sequence number here).
        func changes(since token: String?, limit: Int = 1000) -> ChangesResponse {
            let since = token.flatMap { Int64($0) } ?? 0
            let newer = records.values.filter { $0.serverSequence > since }.sorted { $0.serverSequence < $1.serverSequence }
            let page = Array(newer.prefix(limit))
            return ChangesResponse(
                records: page, nextToken: String(page.last?.serverSequence ?? max(since, 0)), hasMore: newer.count > limit)
        }
    }

    /// One device: a store with history, its metadata, and the exporter and importer run by
    /// hand against a `MemoryZone` (what the engine does over HTTP).
    final class Device: @unchecked Sendable {
        let coordinator: NSPersistentStoreCoordinator
        let store: NSPersistentStore
        let metadata: SyncMetadata
        let url: URL
        var online = true

        /// With `historyValues` (as `NSPersistentCloudKitContainer` adds synced stores), history
        /// keeps updates' values before and after.
        init(at url: URL, model: NSManagedObjectModel = SyncTests.sharedModel, historyValues: Bool = true) throws {
            self.url = url
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [
                    NSPersistentHistoryTrackingKey: true as NSNumber,
                    StrataPersistentHistoryValuesKey: historyValues as NSNumber,
                ])
            guard let metadata = try SyncMetadata(store: store) else { throw CocoaError(.featureUnsupported) }
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

        private func clock() throws -> SyncClock {
            try metadata.read { db in
                SyncClock(
                    node: try SyncMetadata.clientID(in: db),
                    last: try SyncMetadata.value(.clock, in: db).flatMap(HybridLogicalClock.init))
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

        func recordName(of id: NSManagedObjectID) throws -> String? {
            try metadata.read { db in
                try SyncMetadata.recordName(entity: id.entity.name ?? "", primaryKey: id.primaryKey, in: db)
            }
        }

        func close() throws { try coordinator.remove(store) }
    }

    /// How two snapshots differ, for a failed comparison's message.
    static func differences(_ one: [String: String], _ other: [String: String]) -> String {
        var lines: [String] = []
        for key in Set(one.keys).union(other.keys).sorted() where one[key] != other[key] {
            lines.append("\(key):\n  \(one[key] ?? "absent")\n  \(other[key] ?? "absent")")
        }
        return lines.joined(separator: "\n")
    }

    /// The objects of an entity whose string attribute equals a value.
    static func objects(
        _ entity: String, _ key: String, _ value: String, in context: NSManagedObjectContext
    ) throws -> [NSManagedObject] {
        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).filter {
            $0.value(forKey: key) as? String == value
        }
    }
}

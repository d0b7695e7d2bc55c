import Foundation
internal import GRDB
import StrataSyncProtocol

/// The sync client's two writes to a store, one call each, as the engine makes them, for
/// Strata's own programs: the kill -9 harness's child (`Tests/StrataKillChild`) interrupts them,
/// and it runs in release builds, where `@testable import` is not available. `package`: not part
/// of Strata's API, invisible outside this package.
package enum SyncStoreSteps {
    /// What the sync tables of a store hold, in counts and cursors.
    package struct State: Equatable, Sendable, CustomStringConvertible {
        package var outboxBatches: Int
        package var outboxChanges: Int
        package var nextBatch: String?
        package var exportedHistory: Bool
        package var pullToken: String?
        package var recordNames: Int
        package var clocks: Int
        package var links: Int

        package var description: String {
            "outbox \(outboxBatches) batches/\(outboxChanges) changes, next batch \(nextBatch ?? "-"), "
                + "exported history \(exportedHistory), pull token \(pullToken ?? "-"), record names \(recordNames), "
                + "clocks \(clocks), links \(links)"
        }
    }

    /// Makes the store's sync tables and client ID (as a container does when sync starts);
    /// returns the client ID.
    @discardableResult
    package static func register(_ store: NSPersistentStore) throws -> String {
        let metadata = try self.metadata(of: store)
        return try metadata.write { db in try SyncMetadata.clientID(in: db) }
    }

    /// The exporter's step: local history since the last export becomes outbox batches, with
    /// the record names given and the history cursor, in one transaction. Returns the changes
    /// enqueued.
    @discardableResult
    package static func export(
        _ store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator, maximumChangesPerBatch: Int = 400
    ) throws -> Int {
        let metadata = try self.metadata(of: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let exporter = SyncExporter(store: store, metadata: metadata, maximumChangesPerBatch: maximumChangesPerBatch)
        return try context.performAndWait {
            var clock = try currentClock(metadata)
            return try exporter.enqueuePending(context: context, clock: &clock, localOnly: false, knownToServer: nil)
        }
    }

    /// The importer's step: one pulled page applied, its objects, record names, clocks and
    /// the page's token in one save. Returns the records applied.
    @discardableResult
    package static func importPage(
        _ records: [RecordState], nextToken: String?, store: NSPersistentStore, coordinator: NSPersistentStoreCoordinator
    ) throws -> Int {
        let metadata = try self.metadata(of: store)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = NSPersistentCloudKitContainer.importAuthor
        let importer = SyncImporter(store: store, metadata: metadata)
        return try context.performAndWait {
            var clock = try currentClock(metadata)
            return try importer.apply(records, nextToken: nextToken, assets: [:], context: context, clock: &clock).applied
        }
    }

    /// The counts and cursors of the store's sync tables; nil when it has none.
    package static func state(of store: NSPersistentStore) throws -> State? {
        guard let metadata = try SyncMetadata.existing(in: store) else { return nil }
        return try metadata.read { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            return State(
                outboxBatches: try count("SELECT count(*) FROM \(SyncMetadata.outboxTable)"),
                outboxChanges: try count("SELECT coalesce(sum(ZCOUNT), 0) FROM \(SyncMetadata.outboxTable)"),
                nextBatch: try SyncMetadata.value(.nextBatch, in: db),
                exportedHistory: try SyncMetadata.value(.exportedHistory, in: db) != nil,
                pullToken: try SyncMetadata.value(.pullToken, in: db),
                recordNames: try count("SELECT count(*) FROM \(SyncMetadata.recordTable)"),
                clocks: try count("SELECT count(*) FROM \(SyncMetadata.clockTable)"),
                links: try count("SELECT count(*) FROM \(SyncMetadata.linkTable)"))
        }
    }

    private static func metadata(of store: NSPersistentStore) throws -> SyncMetadata {
        guard let metadata = try SyncMetadata(store: store) else { throw CocoaError(.featureUnsupported) }
        return metadata
    }

    /// The store's clock as the engine reads it.
    private static func currentClock(_ metadata: SyncMetadata) throws -> SyncClock {
        try metadata.read { db in
            SyncClock(
                node: try SyncMetadata.value(.clientID, in: db) ?? "unregistered",
                last: try SyncMetadata.value(.clock, in: db).flatMap(HybridLogicalClock.init),
                sightings: SyncClock.sightings(from: try SyncMetadata.value(.sightings, in: db)))
        }
    }
}

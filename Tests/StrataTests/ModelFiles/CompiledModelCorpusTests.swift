import Foundation
import GRDB
import Testing

@testable import Strata

/// The models Apple's Core Data cached in the corpus stores (`Z_MODELCACHE`), decoded: their
/// version hashes must equal the ones Apple recorded beside them in the store's metadata, and
/// each store must open read-only with its cached model alone.
struct CompiledModelCorpusTests {
    /// The corpus stores that carry a cached model.
    static func storesWithCache() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestCorpus.stores.path)
            .filter { $0.hasSuffix(".sqlite") }.sorted()
        return try names.filter { name in
            // A copy: even a read-only connection may rewrite a WAL store's -shm file.
            let copy = try TestCorpus.copyOfStore(named: name)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let queue = try DatabaseQueue(path: copy.path)
            defer { try? queue.close() }
            return try queue.read { db in try StoreModelCache.content(in: db) != nil }
        }
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func cachedModelsHaveTheHashesAppleRecorded() throws {
        let stores = try Self.storesWithCache()
        #expect(stores.count >= 12)
        var entitiesChecked = 0
        for name in stores {
            let url = try TestCorpus.copyOfStore(named: name)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
            let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(
                ofType: NSSQLiteStoreType, at: url, options: nil)
            let recorded = try #require(metadata["NSStoreModelVersionHashes"] as? [String: Data], "\(name)")
            #expect(model.entityVersionHashesByName == recorded, "\(name)")
            #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(name)")
            entitiesChecked += recorded.count
        }
        #expect(entitiesChecked > 30)
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func everyCorpusStoreOpensWithItsCachedModelAlone() throws
    {
        for name in try Self.storesWithCache() {
            let url = try TestCorpus.copyOfStore(named: name)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                options: [NSReadOnlyPersistentStoreOption: NSNumber(value: true)])
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            // Each root entity's objects, counted by Core Data, equal the rows of its table.
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            for entity in model.entities where entity.superentity == nil {
                let entityName = try #require(entity.name)
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: entityName)
                let counted = try context.performAndWait { try context.count(for: request) }
                let table = "Z" + entityName.uppercased()
                let rows = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1 }
                #expect(counted == rows, "\(name) \(entityName)")
            }
        }
    }
}

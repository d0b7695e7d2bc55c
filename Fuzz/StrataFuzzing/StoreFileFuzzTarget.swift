import Foundation
import GRDB
import Strata

extension FuzzTarget {
    /// A store file to open. The first byte chooses what the rest is: even, a whole SQLite file;
    /// odd, the metadata property list (`Z_METADATA.Z_PLIST`) of an otherwise sound store of the
    /// library model. Reading the metadata and the cached model, and adding the store, give
    /// Core Data's errors and leave the file as it was; a store that opens is read whole (every
    /// object, attribute and relationship), fetched with a predicate and a sort, changed and
    /// saved, all without a crash.
    public static let storeFile = FuzzTarget(name: "store-file") { data throws(FuzzFinding) in
        guard let mode = data.first else { return .refused }
        let payload = data.dropFirst()
        let scratch = try FuzzScratch()
        let url = scratch.url("Fuzz.sqlite")
        if mode % 2 == 0 {
            _ = try scratch.write(Data(payload), to: "Fuzz.sqlite")
        } else {
            try FuzzFixtures.copyStore(try FuzzFixtures.libraryStore.get(), to: url)
            try StoreFileFuzzing.replaceMetadata(of: url, with: Data(payload))
        }
        return try StoreFileFuzzing.open(url, model: try FuzzFixtures.libraryModel.get())
    }
}

enum StoreFileFuzzing {
    static func replaceMetadata(of url: URL, with plist: Data) throws(FuzzFinding) {
        do {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            try queue.write { db in try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [plist]) }
        } catch {
            throw FuzzFinding("cannot write the metadata of the fixture store: \(error)")
        }
    }

    static func open(_ url: URL, model: NSManagedObjectModel) throws(FuzzFinding) -> FuzzOutcome {
        let original = FileManager.default.bytes(of: url)
        do {
            _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url, options: nil)
        } catch {
            try FuzzCheck.requireCocoaError(error, "metadataForPersistentStore")
        }
        do {
            _ = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
        } catch {
            try FuzzCheck.requireCocoaError(error, "cachedModel(ofStoreAt:)")
        }
        try FuzzCheck.requireUnchanged(url, original, "a store whose metadata was read")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store: NSPersistentStore
        do {
            store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        } catch {
            try FuzzCheck.requireCocoaError(error, "addPersistentStore")
            try FuzzCheck.requireUnchanged(url, original, "a store that did not open (\(error))")
            return .refused
        }
        defer { try? coordinator.remove(store) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var finding: FuzzFinding?
        context.performAndWait {
            // Objects hold one another through their relationships: as Core Data asks of apps,
            // the context is reset when done, which turns them into faults and breaks the cycles.
            defer { context.reset() }
            do {
                try readEverything(in: context, model: model)
                try change(context)
            } catch let error as FuzzFinding {
                finding = error
            } catch {
                do throws(FuzzFinding) {
                    try FuzzCheck.requireCocoaError(error, "reading or saving the opened store")
                } catch {
                    finding = error
                }
            }
        }
        if let finding { throw finding }
        return .taken
    }

    /// Fetches every object of every entity and reads each property (firing faults, counting
    /// to-many relationships), then fetches with a predicate and a sort.
    private static func readEverything(in context: NSManagedObjectContext, model: NSManagedObjectModel) throws {
        for entity in model.entities {
            guard let name = entity.name else { continue }
            let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
            for object in objects {
                for (key, property) in entity.propertiesByName {
                    let value = object.value(forKey: key)
                    if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
                        _ = (value as? NSSet)?.allObjects.count ?? (value as? NSOrderedSet)?.array.count
                    }
                }
            }
            _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: name))
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = NSPredicate(format: "title BEGINSWITH[c] %@ OR ANY tags.name == %@ OR parts.@count > 1", "i", "red")
        request.sortDescriptors = [NSSortDescriptor(key: "created", ascending: false)]
        for item in try context.fetch(request) { _ = item.value(forKey: "price") }
    }

    /// Inserts, changes and deletes an object, and saves.
    private static func change(_ context: NSManagedObjectContext) throws {
        let item = try FuzzFixtures.insert("Item", ["title": "new", "count": Int16(9)], into: context)
        let tag = try FuzzFixtures.insert("Tag", ["name": "new"], into: context)
        item.setValue(NSSet(object: tag), forKey: "tags")
        if let first = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Part")).first {
            first.setValue(item, forKey: "item")
        }
        if let special = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Special")).first {
            context.delete(special)
        }
        try context.save()
    }
}

import Foundation
import Testing

@testable import Strata

/// A small library of books, authors and tags in a store of a given type, for the fetch
/// request tests.
struct FetchLibrary {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Writer") {
                Attribute("name", .stringAttributeType)
                Attribute("born", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Relationship("books", to: "Volume", inverse: "writer", toMany: true)
            }
            Entity("Volume") {
                Attribute("title", .stringAttributeType)
                Attribute("pages", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Attribute("price", .doubleAttributeType, optional: false, defaultValue: 0.0)
                Attribute("publishedAt", .dateAttributeType)
                Attribute("genre", .stringAttributeType)
                Relationship("writer", to: "Writer", inverse: "books")
                Relationship("labels", to: "Label", inverse: "volumes", toMany: true)
                FetchIndex("byTitle", "title")
            }
            Entity("Label") {
                Attribute("name", .stringAttributeType)
                Relationship("volumes", to: "Volume", inverse: "labels", toMany: true)
            }
        }
    }

    /// (title, pages, price, genre, writer index, label names)
    static let volumes: [(String, Int32, Double, String?, Int, [String])] = [
        ("Café au lait", 120, 9.5, "essay", 0, ["food"]),
        ("CAFE SOCIETY", 300, 20, "novel", 1, ["food", "city"]),
        ("Dune", 600, 12, "novel", 2, ["space"]),
        ("Emma", 450, 7.25, "novel", 0, []),
        ("file10", 10, 1, nil, 1, ["city"]),
        ("file9", 9, 1, nil, 1, []),
        ("Ünïcödé", 50, 3, "essay", 2, ["space", "food"]),
        ("σίσυφος", 80, 4, "essay", 2, []),
    ]
    static let writers: [(String, Int32)] = [("Austen", 1775), ("Capote", 1924), ("Herbert", 1920)]

    let store: ScratchStore
    var coordinator: NSPersistentStoreCoordinator { store.coordinator }

    init(type: String = NSSQLiteStoreType) throws {
        store = try ScratchStore(model: Self.model(), type: type)
        let context = newContext()
        try context.performAndWait {
            let writers = Self.writers.map { name, born -> NSManagedObject in
                let writer = NSEntityDescription.insertNewObject(forEntityName: "Writer", into: context)
                writer.setValue(name, forKey: "name")
                writer.setValue(born, forKey: "born")
                return writer
            }
            var labels: [String: NSManagedObject] = [:]
            for (index, row) in Self.volumes.enumerated() {
                let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
                volume.setValue(row.0, forKey: "title")
                volume.setValue(row.1, forKey: "pages")
                volume.setValue(row.2, forKey: "price")
                volume.setValue(row.3, forKey: "genre")
                volume.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400), forKey: "publishedAt")
                volume.setValue(writers[row.4], forKey: "writer")
                for name in row.5 {
                    let label =
                        labels[name]
                        ?? {
                            let made = NSEntityDescription.insertNewObject(forEntityName: "Label", into: context)
                            made.setValue(name, forKey: "name")
                            labels[name] = made
                            return made
                        }()
                    volume.mutableSetValue(forKey: "labels").add(label)
                }
            }
            try context.save()
        }
    }

    func newContext() -> NSManagedObjectContext { store.newContext() }

    func remove() { store.remove() }

    /// The titles of the volumes a request returns, in order.
    func titles(
        _ predicate: NSPredicate? = nil, sort: [NSSortDescriptor] = [],
        configure: (NSFetchRequest<NSManagedObject>) -> Void = { _ in }
    ) throws -> [String] {
        let context = newContext()
        return try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
            request.predicate = predicate
            request.sortDescriptors = sort
            configure(request)
            return try context.fetch(request).map { $0.value(forKey: "title") as? String ?? "nil" }
        }
    }
}

/// A store of a model in a temporary folder of its own, with private-queue contexts on it.
struct ScratchStore {
    let folder: URL
    let coordinator: NSPersistentStoreCoordinator

    init(model: NSManagedObjectModel, type: String = NSSQLiteStoreType) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: folder.appendingPathComponent("fetch.store"))
    }

    func newContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

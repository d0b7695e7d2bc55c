import Foundation
import Testing

@testable import Strata

/// Model versions written as Xcode model XML into a temporary `.xcdatamodeld`, stores saved
/// with one version and opened with another: the way an app meets lightweight migration.
enum MigrationFixtures {
    static var migrate: [AnyHashable: Any] {
        [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    }

    /// A model file's text around the given entity elements.
    static func xml(_ entities: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift">
        \(entities)
        </model>
        """
    }

    /// A new folder holding `Model.xcdatamodeld` with the given versions (name → entities).
    static func bundle(_ versions: [String: String], current: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migration-\(UUID().uuidString)")
        let bundle = folder.appendingPathComponent("Model.xcdatamodeld")
        for (name, entities) in versions {
            let version = bundle.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(xml(entities).utf8).write(to: version.appendingPathComponent("contents"))
        }
        let marker = try PropertyListSerialization.data(
            fromPropertyList: ["_XCCurrentVersionName": current + ".xcdatamodel"], format: .xml, options: 0)
        try marker.write(to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    static func model(_ bundle: URL, _ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel.load(contentsOf: bundle.appendingPathComponent(version + ".xcdatamodel"))
    }

    static func store(in bundle: URL) -> URL {
        bundle.deletingLastPathComponent().appendingPathComponent("Store.sqlite")
    }

    /// A coordinator of the model with the store at `url` added, and a context on it.
    static func open(
        _ model: NSManagedObjectModel, _ url: URL, options: [AnyHashable: Any]? = migrate
    ) throws
        -> (NSPersistentStoreCoordinator, NSManagedObjectContext)
    {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    /// Closes every store of the coordinator, so that the file is complete without its WAL.
    static func close(_ coordinator: NSPersistentStoreCoordinator) throws {
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    static func insert(_ entity: String, _ values: [String: Any?], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
        return object
    }

    static func fetch(_ entity: String, in context: NSManagedObjectContext, sortedBy key: String) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    /// The bytes of a store file and of its companions, to show a failure changed nothing.
    static func bytes(of url: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-journal"] {
            if let data = FileManager.default.contents(atPath: url.path + suffix), !data.isEmpty { result[suffix] = data }
        }
        return result
    }
}

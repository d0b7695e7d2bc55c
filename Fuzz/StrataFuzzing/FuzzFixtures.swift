import Foundation
import Strata

/// The models and stores the targets share, made once per process in its scratch folder.
enum FuzzFixtures {
    /// A model with an attribute of every stored type, to-many, ordered and to-one
    /// relationships, and an abstract entity with a subentity: the model of the stores the
    /// store targets open and import into.
    static let libraryModelXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" attributeType="String" defaultValueString="untitled"/>
                <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="size" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <attribute name="total" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="ratio" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
                <attribute name="price" optional="YES" attributeType="Decimal"/>
                <attribute name="done" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="blob" optional="YES" attributeType="Binary"/>
                <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="extra" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                <relationship name="parts" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Part" inverseName="item" inverseEntity="Part"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            </entity>
            <entity name="Part" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="number" attributeType="Integer 32" defaultValueString="1" usesScalarValueType="YES"/>
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="parts" inverseEntity="Item"/>
            </entity>
            <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" attributeType="String" defaultValueString=""/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
            </entity>
            <entity name="Base" representedClassName="NSManagedObject" isAbstract="YES" syncable="YES">
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Special" representedClassName="NSManagedObject" parentEntity="Base" syncable="YES">
                <attribute name="level" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            </entity>
        </model>
        """

    static let libraryModel: Result<NSManagedObjectModel, FuzzFinding> = loadModel(libraryModelXML)

    /// `Library.xcdatamodel`, for the tool's `--model`.
    static let libraryModelFile: Result<URL, FuzzFinding> = Result { () throws(FuzzFinding) in
        let folder = FuzzScratch.processFolder.appendingPathComponent("Library.xcdatamodel")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(libraryModelXML.utf8).write(to: folder.appendingPathComponent("contents"))
        } catch {
            throw FuzzFinding("cannot write the fixture model: \(error)")
        }
        return folder
    }

    /// A store of the library model with a few objects of every entity.
    static let libraryStore: Result<URL, FuzzFinding> = Result { () throws(FuzzFinding) in
        let model = try libraryModel.get()
        return try makeStore("Library.sqlite", model: model) { context in
            let tag = try insert("Tag", ["name": "red"], into: context)
            for index in 1...3 {
                let item = try insert(
                    "Item",
                    [
                        "title": "item \(index)", "count": Int16(index), "total": Int64(index) << 40,
                        "rating": Double(index) / 3, "price": NSDecimalNumber(string: "\(index).25"),
                        "created": Date(timeIntervalSinceReferenceDate: Double(index)), "blob": Data([UInt8(index)]),
                        "identifier": UUID(), "link": URL(string: "https://example.com/\(index)") as Any,
                    ], into: context)
                item.setValue(NSSet(object: tag), forKey: "tags")
                let part = try insert("Part", ["number": Int32(index)], into: context)
                part.setValue(item, forKey: "item")
            }
            _ = try insert("Special", ["note": "special", "level": Int16(2)], into: context)
        }
    }

    static func loadModel(_ xml: String) -> Result<NSManagedObjectModel, FuzzFinding> {
        Result { () throws(FuzzFinding) in
            do {
                return try NSManagedObjectModel.load(xml: Data(xml.utf8))
            } catch {
                throw FuzzFinding("a fixture model does not load: \(error)")
            }
        }
    }

    /// Makes a SQLite store in the process folder, fills it and closes it.
    static func makeStore(
        _ name: String, model: NSManagedObjectModel, fill: (NSManagedObjectContext) throws -> Void
    ) throws(FuzzFinding) -> URL {
        let url = FuzzScratch.processFolder.appendingPathComponent(name)
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                // Breaks the cycles of the objects' relationships once saved.
                defer { context.reset() }
                try fill(context)
                try context.save()
            }
            try coordinator.remove(store)
        } catch {
            throw FuzzFinding("cannot make the fixture store \(name): \(error)")
        }
        return url
    }

    static func insert(
        _ entity: String, _ values: [String: Any], into context: NSManagedObjectContext
    ) throws
        -> NSManagedObject
    {
        guard let description = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entity] else {
            throw FuzzFinding("the fixture model has no entity \(entity)")
        }
        let object = NSManagedObject(entity: description, insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    /// Copies a fixture store (with its `-wal` and `-shm`, when present) into a scratch folder.
    static func copyStore(_ source: URL, to destination: URL) throws(FuzzFinding) {
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: source.path + suffix)
            guard FileManager.default.fileExists(atPath: from.path) else { continue }
            do {
                try FileManager.default.copyItem(at: from, to: URL(fileURLWithPath: destination.path + suffix))
            } catch {
                throw FuzzFinding("cannot copy the fixture store: \(error)")
            }
        }
    }
}

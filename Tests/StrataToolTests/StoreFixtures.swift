import Foundation
import GRDB
import Strata

/// Stores and models the `strata store` tests run the tool on: a small shop model with every
/// attribute type, inheritance, ordered and many-to-many relationships and external storage,
/// and the corpus of Apple-written stores in ../shared/testdata (read from copies only).
enum StoreFixtures {
    /// The shop model's XML (Xcode's `contents` format).
    static func shopModelXML(extraAttribute: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="shop">
            <entity name="Box" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="box" inverseEntity="Item"/>
            </entity>
            <entity name="Gadget" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES">
                <attribute name="voltage" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            </entity>
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="amount" optional="YES" attributeType="Decimal"/>
                <attribute name="big" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="blob" optional="YES" attributeType="Binary"/>
                <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="notes" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>
                \(extraAttribute)
                <relationship name="box" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Box" inverseName="items" inverseEntity="Box"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
            </entity>
        </model>
        """
    }

    /// A new temporary folder, removed by the caller.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes the shop model as `Shop.xcdatamodel` in the folder.
    static func writeShopModel(in folder: URL, name: String = "Shop", extraAttribute: String = "") throws -> URL {
        let model = folder.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(shopModelXML(extraAttribute: extraAttribute).utf8).write(to: model.appendingPathComponent("contents"))
        return model
    }

    /// Makes `Shop.sqlite` in the folder with a few objects of every kind (one item with a
    /// photo large enough to go to an external file), optionally with persistent history.
    @discardableResult
    static func makeShopStore(in folder: URL, history: Bool = false, items: Int = 5) throws -> (store: URL, model: URL) {
        let modelURL = try writeShopModel(in: folder)
        let model = try NSManagedObjectModel.load(contentsOf: modelURL)
        let storeURL = folder.appendingPathComponent("Shop.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        var options: [AnyHashable: Any] = [:]
        if history { options[NSPersistentHistoryTrackingKey] = NSNumber(value: true) }
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: storeURL, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            context.transactionAuthor = "fixture"
            let tags = ["home", "work", "garden"].map { title -> NSManagedObject in
                let tag = NSManagedObject(entity: model.entitiesByName["Tag"]!, insertInto: context)
                tag.setValue(title, forKey: "title")
                return tag
            }
            let box = NSManagedObject(entity: model.entitiesByName["Box"]!, insertInto: context)
            box.setValue("Box A", forKey: "label")
            var boxed: [NSManagedObject] = []
            for index in 0..<items {
                let entity = model.entitiesByName[index % 3 == 2 ? "Gadget" : "Item"]!
                let item = NSManagedObject(entity: entity, insertInto: context)
                item.setValue("item \(index), \"quoted\"", forKey: "name")
                item.setValue(Int16(index * 7 - 3), forKey: "count")
                item.setValue(Int64(9_007_199_254_740_993) + Int64(index), forKey: "big")
                item.setValue(0.1 + Double(index) / 3, forKey: "price")
                item.setValue(Float(1) / Float(index + 3), forKey: "ratio")
                item.setValue(Decimal(string: "1234.5\(index)"), forKey: "amount")
                item.setValue(index % 2 == 0, forKey: "flag")
                item.setValue(Date(timeIntervalSinceReferenceDate: 737_057_646.841_234 + Double(index)), forKey: "created")
                item.setValue(UUID(), forKey: "identifier")
                item.setValue(URL(string: "https://example.com/items/\(index)?q=a%20b"), forKey: "link")
                item.setValue(Data([0, 1, 2, 255, UInt8(index)]), forKey: "blob")
                item.setValue(NSArray(array: ["note \(index)", "second"]), forKey: "notes")
                if index == 0 { item.setValue(Data(repeating: 0xAB, count: 200 * 1024), forKey: "photo") }
                if entity.name == "Gadget" { item.setValue(230.5, forKey: "voltage") }
                item.setValue(NSSet(array: Array(tags.prefix(index % 3 + 1))), forKey: "tags")
                if index % 2 == 0 { boxed.append(item) }
            }
            box.setValue(NSOrderedSet(array: boxed.reversed()), forKey: "items")
            try context.save()
        }
        try coordinator.remove(store)
        return (storeURL, modelURL)
    }

    /// Runs SQL on a store file (a test's own copy).
    static func execute(_ sql: String, in store: URL) throws {
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
    }

    /// Reads one integer from a store file.
    static func integer(_ sql: String, in store: URL) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    /// Deletes every object row (entity tables and join tables) and resets Z_MAX: the store is
    /// as Core Data would have made it empty, with its metadata and cached model.
    static func emptyObjects(of store: URL) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Apple's derived-attribute triggers call these (STORE-FORMAT §3.1); no-ops do here.
            for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
                db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { _ in nil })
            }
        }
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        defer { try? queue.close() }
        try queue.write { db in
            let roots = try String.fetchAll(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 AND Z_ENT < 16000")
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            for table in roots.map({ "Z" + $0.uppercased() }) where tables.contains(table) {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            for table in tables where table.range(of: #"^Z_[0-9]+"#, options: .regularExpression) != nil {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 0 WHERE Z_ENT < 16000")
        }
    }

    /// The first line where two texts differ, for a readable failure.
    static func firstDifference(_ left: String, _ right: String) -> String {
        let leftLines = left.split(separator: "\n", omittingEmptySubsequences: false)
        let rightLines = right.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (a, b)) in zip(leftLines, rightLines).enumerated() where a != b {
            let same = zip(a, b).prefix { $0 == $1 }.count
            let start = max(0, same - 60)
            return
                "line \(index + 1), column \(same + 1):\n…\(a.dropFirst(start).prefix(160))\n…\(b.dropFirst(start).prefix(160))"
        }
        return "line counts \(leftLines.count) and \(rightLines.count)"
    }

    /// Reads a column of integers from a store file.
    static func integers(_ sql: String, in store: URL) throws -> [Int] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchAll(db, sql: sql) }
    }

    /// Reads one string from a store file.
    static func string(_ sql: String, in store: URL) throws -> String {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchOne(db, sql: sql) ?? "" }
    }

    /// The bytes of a store and its `-wal`/`-shm` files (absent ones as nil).
    static func bytes(of store: URL) -> [Data?] {
        ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: store.path + $0) }
    }

    // MARK: Corpus

    static let corpus: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.deletingLastPathComponent().appendingPathComponent("shared/testdata/coredata")
    }()

    /// Whether the corpus tests run (their `.enabled(if:)` condition, so that a run without the
    /// corpus lists them as skipped): the corpus is beside the repository, or
    /// `STRATA_REQUIRE_CORPUS=1` says it must be (they then fail where it is absent).
    static var corpusIsAvailable: Bool {
        if ProcessInfo.processInfo.environment["STRATA_REQUIRE_CORPUS"] == "1" { return true }
        let available = FileManager.default.fileExists(atPath: corpus.appendingPathComponent("stores").path)
        if !available { print("NOTICE: \(corpus.path) is absent; strata store corpus tests are skipped") }
        return available
    }

    /// The corpus stores' names; an error when the corpus is absent.
    static func corpusStores() throws -> [String] {
        let stores = corpus.appendingPathComponent("stores")
        let names = try FileManager.default.contentsOfDirectory(atPath: stores.path).filter { $0.hasSuffix(".sqlite") }
        return names.sorted()
    }

    /// Copies a corpus store with its -wal/-shm into a new folder: originals are never opened.
    static func copyOfCorpusStore(_ name: String) throws -> URL {
        let directory = try folder()
        for suffix in ["", "-wal", "-shm"] {
            let source = corpus.appendingPathComponent("stores").appendingPathComponent(name + suffix)
            if FileManager.default.fileExists(atPath: source.path) {
                try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(name + suffix))
            }
        }
        return directory.appendingPathComponent(name)
    }

    /// The `--model` arguments for a corpus store: none when the store caches its model (the
    /// model Apple's Core Data wrote it with), else the model PAIRS.tsv pairs it with, if any.
    static func modelArguments(for name: String, copy: URL) throws -> [String] {
        let cached = try integer("SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'", in: copy) > 0
        if cached, try integer("SELECT count(*) FROM Z_MODELCACHE", in: copy) > 0 { return [] }
        return try pairedModel(of: name).map { ["--model", $0.path] } ?? []
    }

    /// The corpus model paired with a store in PAIRS.tsv, when it is an Xcode model file.
    static func pairedModel(of store: String) throws -> URL? {
        let text = try String(contentsOf: corpus.appendingPathComponent("stores/PAIRS.tsv"), encoding: .utf8)
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count > 1, columns[0] == store, columns[1].hasSuffix(".xcdatamodel") else { continue }
            let url = corpus.appendingPathComponent("models").appendingPathComponent(columns[1])
            return FileManager.default.fileExists(atPath: url.path) ? url : nil
        }
        return nil
    }
}

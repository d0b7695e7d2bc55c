import Foundation
import Testing

@testable import Strata

/// Writes compiled mapping models (`.cdm`) as Xcode's mapping compiler does: an
/// `NSKeyedArchiver` archive whose root is an `NSMappingModel`, with Core Data's coding keys
/// (`NSEntityMappings`, `NSMappingName`, `NSMappingType`, `NSSourceEntityVersionHash`…,
/// `NSDestinationPropertyName`, `NSValueExpression`) and value expressions archived as
/// `NSExpression`s. The corpus holds no `.cdm`: the layout follows Core Data's published
/// `NSCoding` keys, not a file Apple's tools wrote.
struct CompiledMappingArchiveWriter {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var classes: [String: Int] = [:]

    struct Entity {
        var name: String
        var type: NSEntityMappingType
        var source: NSEntityDescription?
        var destination: NSEntityDescription?
        /// Destination attribute → source key path read through `$source`.
        var attributes: [(String, String?)] = []
    }

    static func archive(_ entities: [Entity]) -> Data {
        var writer = CompiledMappingArchiveWriter()
        let mappings = entities.map { writer.entityMapping($0) }
        let array = writer.array(mappings)
        let byName = writer.dictionary(Dictionary(uniqueKeysWithValues: zip(entities.map(\.name), mappings)))
        let root = writer.object("NSMappingModel", ["NSEntityMappings": array, "NSEntityMappingsByName": byName])
        return BinaryPropertyList.write(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": root]), "$objects": .array(writer.objects),
            ]))
    }

    private mutating func add(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(objects.count - 1)
    }

    private mutating func classReference(_ name: String) -> PropertyListValue {
        if let known = classes[name] { return .uid(known) }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
        classes[name] = objects.count - 1
        return .uid(objects.count - 1)
    }

    private mutating func object(_ className: String, _ fields: [String: PropertyListValue]) -> PropertyListValue {
        var entries = fields
        entries["$class"] = classReference(className)
        return add(.dictionary(entries))
    }

    private mutating func array(_ items: [PropertyListValue]) -> PropertyListValue {
        object("NSArray", ["NS.objects": .array(items)])
    }

    private mutating func dictionary(_ entries: [String: PropertyListValue]) -> PropertyListValue {
        let keys = entries.keys.sorted()
        let keyValues = keys.map { add(.string($0)) }
        return object("NSDictionary", ["NS.keys": .array(keyValues), "NS.objects": .array(keys.compactMap { entries[$0] })])
    }

    /// `$source.<path>`: a key-path expression on the `source` variable.
    private mutating func sourceKeyPath(_ path: String) -> PropertyListValue {
        let variable = object("NSVariableExpression", ["NSExpressionType": .integer(2), "NSVariable": add(.string("source"))])
        let key = object("NSKeyPathSpecifierExpression", ["NSExpressionType": .integer(10), "NSKeyPath": add(.string(path))])
        return object(
            "NSKeyPathExpression",
            [
                "NSExpressionType": .integer(3), "NSOperand": variable, "NSSelectorName": add(.string("valueForKey:")),
                "NSArguments": array([key]),
            ])
    }

    private mutating func entityMapping(_ entity: Entity) -> PropertyListValue {
        var fields: [String: PropertyListValue] = [
            "NSMappingName": add(.string(entity.name)), "NSMappingType": .integer(Int64(entity.type.rawValue)),
        ]
        if let source = entity.source {
            fields["NSSourceEntityName"] = add(.string(source.name ?? ""))
            fields["NSSourceEntityVersionHash"] = add(.data(source.versionHash))
        }
        if let destination = entity.destination {
            fields["NSDestinationEntityName"] = add(.string(destination.name ?? ""))
            fields["NSDestinationEntityVersionHash"] = add(.data(destination.versionHash))
        }
        var attributes: [PropertyListValue] = []
        for (name, path) in entity.attributes {
            var property: [String: PropertyListValue] = ["NSDestinationPropertyName": add(.string(name))]
            if let path { property["NSValueExpression"] = sourceKeyPath(path) }
            attributes.append(object("NSPropertyMapping", property))
        }
        fields["NSAttributeMappings"] = array(attributes)
        fields["NSRelationshipMappings"] = array([])
        return object("NSEntityMapping", fields)
    }
}

/// Compiled mapping models load and migrate; mapping models are found by the version hashes of
/// both models (never for another version of either), and compare equal when read twice.
@Suite struct CompiledMappingModelTests {
    static let v1 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
        </entity>
        <entity name="Note">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    static let v2 = """
        <entity name="Item">
            <attribute name="title" attributeType="String"/>
        </entity>
        <entity name="Note">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        """

    /// Still V1's Item (same hash), Note changed.
    static let v3 = """
        <entity name="Item">
            <attribute name="name" attributeType="String"/>
        </entity>
        <entity name="Note">
            <attribute name="text" optional="YES" attributeType="String"/>
            <attribute name="pinned" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
        </entity>
        """

    /// V1 → V2: Item's name becomes title, Note copied.
    static func entities(
        _ source: NSManagedObjectModel, _ destination: NSManagedObjectModel
    )
        -> [CompiledMappingArchiveWriter.Entity]
    {
        [
            .init(
                name: "ItemToItem", type: .transformEntityMappingType, source: source.entitiesByName["Item"],
                destination: destination.entitiesByName["Item"], attributes: [("title", "name")]),
            .init(
                name: "NoteToNote", type: .copyEntityMappingType, source: source.entitiesByName["Note"],
                destination: destination.entitiesByName["Note"], attributes: [("text", "text")]),
        ]
    }

    struct Fixture {
        let bundle: URL
        let v1: NSManagedObjectModel
        let v2: NSManagedObjectModel
        let v3: NSManagedObjectModel
        var folder: URL { bundle.deletingLastPathComponent() }
        var resources: URL { folder.appendingPathComponent("Resources") }
    }

    static func fixture() throws -> Fixture {
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2, "V3": v3], current: "V2")
        let fixture = Fixture(
            bundle: bundle, v1: try MigrationFixtures.model(bundle, "V1"), v2: try MigrationFixtures.model(bundle, "V2"),
            v3: try MigrationFixtures.model(bundle, "V3"))
        try FileManager.default.createDirectory(at: fixture.resources, withIntermediateDirectories: true)
        try CompiledMappingArchiveWriter.archive(entities(fixture.v1, fixture.v2))
            .write(to: fixture.resources.appendingPathComponent("V1toV2.cdm"))
        return fixture
    }

    @Test func compiledMappingModelLoadsWithItsHashesAndExpressions() throws {
        let fixture = try Self.fixture()
        let url = fixture.resources.appendingPathComponent("V1toV2.cdm")
        let mapping = try #require(NSMappingModel(contentsOf: url))
        #expect(mapping.entityMappings.map(\.name) == ["ItemToItem", "NoteToNote"])
        let item = try #require(mapping.entityMappingsByName["ItemToItem"])
        #expect(item.mappingType == .transformEntityMappingType)
        #expect(item.sourceEntityName == "Item")
        #expect(item.sourceEntityVersionHash == fixture.v1.entitiesByName["Item"]?.versionHash)
        #expect(item.destinationEntityVersionHash == fixture.v2.entitiesByName["Item"]?.versionHash)
        #expect(item.attributeMappings?.first?.name == "title")
        #expect(item.attributeMappings?.first?.valueExpression?.expressionFormat == "$source.name")
        // Read twice, equal (and equal hashes), as Apple's mapping models are.
        let again = try #require(NSMappingModel(contentsOf: url))
        #expect(again == mapping)
        #expect(again.hash == mapping.hash)
        #expect(again.entityMappings[0] == mapping.entityMappings[0])
        #expect(again.entityMappings[0].attributeMappings?[0] == mapping.entityMappings[0].attributeMappings?[0])
        #expect(again.entityMappings[0] != mapping.entityMappings[1])
        // A damaged archive is no mapping model.
        try Data("bplist00garbage".utf8).write(to: fixture.folder.appendingPathComponent("Damaged.cdm"))
        #expect(NSMappingModel(contentsOf: fixture.folder.appendingPathComponent("Damaged.cdm")) == nil)
    }

    /// Found in a bundle by the hashes of both models, and only for them: V3 keeps V1's Item
    /// but not its Note, so V3 → V2 finds nothing (progressive migration does not loop).
    @Test func compiledMappingModelIsFoundByTheHashesOfBothModels() throws {
        let fixture = try Self.fixture()
        let bundle = try #require(Bundle(url: fixture.folder))
        let found = try #require(NSMappingModel(from: [bundle], forSourceModel: fixture.v1, destinationModel: fixture.v2))
        #expect(found.entityMappings.map(\.name) == ["ItemToItem", "NoteToNote"])
        #expect(NSMappingModel(from: [bundle], forSourceModel: fixture.v3, destinationModel: fixture.v2) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: fixture.v1, destinationModel: fixture.v3) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: fixture.v2, destinationModel: fixture.v1) == nil)
    }

    /// A store of V1 migrates with the compiled mapping model: explicitly, and when added with
    /// the automatic options and the bundle that ships only the `.cdm`.
    @Test func storeMigratesWithACompiledMappingModel() throws {
        let fixture = try Self.fixture()
        let url = MigrationFixtures.store(in: fixture.bundle)
        let (coordinator, context) = try MigrationFixtures.open(fixture.v1, url, options: nil)
        try context.performAndWait {
            _ = MigrationFixtures.insert("Item", ["name": "first"], into: context)
            _ = MigrationFixtures.insert("Note", ["text": "hello"], into: context)
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        let bundle = try #require(Bundle(url: fixture.folder))
        var options = MigrationFixtures.migrate
        options[NSInferMappingModelAutomaticallyOption] = false
        options[MappingModelBundlesKey] = [bundle]
        let (migrated, migratedContext) = try MigrationFixtures.open(fixture.v2, url, options: options)
        defer { try? MigrationFixtures.close(migrated) }
        try migratedContext.performAndWait {
            let items = try MigrationFixtures.fetch("Item", in: migratedContext, sortedBy: "title")
            #expect(items.map { $0.value(forKey: "title") as? String } == ["first"])
            let notes = try MigrationFixtures.fetch("Note", in: migratedContext, sortedBy: "text")
            #expect(notes.map { $0.value(forKey: "text") as? String } == ["hello"])
        }
    }

    /// Xcode mapping models (no hashes) are matched against the models their editor recorded:
    /// a V1 → V2 `.xcmappingmodel` is not found for V3 → V2.
    @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func xcodeMappingModelIsNotFoundForAnotherSourceVersion()
        throws
    {
        let file = "jessesquires__JSQCoreDataKit__Version1_to_Version2"
        let (v1, v2) = try MappingModelFileTests.models(file)
        let mapping = try MappingModelFileTests.mapping(file)
        #expect(MappingModelLookup.matches(mapping, source: v1, destination: v2))
        // V2 → V2 would loop: V2's Employee has every source property V1's mapping reads.
        #expect(!MappingModelLookup.matches(mapping, source: v2, destination: v2))
        // Loaded twice, equal.
        #expect(try MappingModelFileTests.mapping(file) == mapping)
    }
}

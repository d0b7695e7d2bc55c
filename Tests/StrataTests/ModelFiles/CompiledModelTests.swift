import Foundation
import GRDB
import Testing

@testable import Strata

/// Binary property lists, raw DEFLATE, and models in Apple's compiled form (`.mom` archives and
/// a store's `Z_MODELCACHE`), written and read back; the corpus half is in
/// `CompiledModelCorpusTests`.
struct CompiledModelTests {
    // MARK: Binary property lists

    static let sample: PropertyListValue = .dictionary([
        "null": .null, "yes": .bool(true), "no": .bool(false), "small": .integer(7), "word": .integer(65_000),
        "big": .integer(5_000_000_000), "negative": .integer(-3), "real": .real(2.5), "date": .date(631_152_000),
        "data": .data(Data([0, 1, 2, 255])), "ascii": .string("Strata"), "unicode": .string("张三 ✓"),
        "long": .string(String(repeating: "x", count: 300)), "uid": .uid(300),
        "array": .array((0..<20).map { .integer(Int64($0)) }), "set": .set([.string("a")]),
        "nested": .dictionary(["inner": .array([.string("Strata"), .dictionary([:])])]),
    ])

    @Test func binaryPropertyListsReadBackWhatWasWritten() throws {
        let data = BinaryPropertyList.write(Self.sample)
        #expect(data.starts(with: Data("bplist00".utf8)))
        #expect(try BinaryPropertyList.read(data) == Self.sample)
    }

    @Test func binaryPropertyListsAgreeWithFoundation() throws {
        let plist: [String: Any] = [
            "name": "Strata", "count": 42, "ratio": 0.25, "flag": true, "bytes": Data([9, 8, 7]),
            "list": ["a", "β", 3], "when": Date(timeIntervalSinceReferenceDate: 1000),
        ]
        let foundation = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let read = try BinaryPropertyList.read(foundation)
        #expect(read["name"] == .string("Strata"))
        #expect(read["count"] == .integer(42))
        #expect(read["ratio"] == .real(0.25))
        #expect(read["flag"] == .bool(true))
        #expect(read["bytes"] == .data(Data([9, 8, 7])))
        #expect(read["list"] == .array([.string("a"), .string("β"), .integer(3)]))
        #expect(read["when"] == .date(1000))
        // And Foundation reads what Strata writes.
        let written = BinaryPropertyList.write(read)
        let back = try PropertyListSerialization.propertyList(from: written, format: nil) as? [String: Any]
        #expect(back?["name"] as? String == "Strata")
        #expect((back?["count"] as? NSNumber)?.intValue == 42)
        #expect(back?["bytes"] as? Data == Data([9, 8, 7]))
        #expect((back?["list"] as? [Any])?.count == 3)
    }

    @Test func damagedBinaryPropertyListsGiveErrors() throws {
        let good = BinaryPropertyList.write(.array([.integer(1)]))
        // Truncated, not a list, and an array that holds itself (its one reference patched to 0).
        #expect(throws: PropertyListFormatError.self) { try BinaryPropertyList.read(good.prefix(good.count - 5)) }
        #expect(throws: PropertyListFormatError.self) { try BinaryPropertyList.read(Data("bplist01 nothing".utf8)) }
        var looping = Array(good)
        #expect(looping[8] == 0xA1)
        looping[9] = 0
        #expect(throws: PropertyListFormatError.self) { try BinaryPropertyList.read(Data(looping)) }
        // Every truncation and every single-byte change is an error or a value, never a crash.
        let sample = BinaryPropertyList.write(Self.sample)
        var errors = 0
        for length in stride(from: 0, to: sample.count, by: 7) {
            if (try? BinaryPropertyList.read(sample.prefix(length))) == nil { errors += 1 }
        }
        for position in stride(from: 8, to: sample.count, by: 3) {
            var changed = Array(sample)
            changed[position] ^= 0xFF
            _ = try? BinaryPropertyList.read(Data(changed))
        }
        #expect(errors == (sample.count + 6) / 7)
    }

    // MARK: DEFLATE

    @Test func rawDeflateRoundTripsAndRefusesDamage() throws {
        let text = Data(String(repeating: "Core Data on Linux. ", count: 500).utf8)
        let deflated = try #require(RawDeflate.deflate(text))
        #expect(deflated.count < text.count / 10)
        // A raw stream: no zlib header (0x78).
        #expect(deflated.first != 0x78)
        #expect(RawDeflate.inflate(deflated) == text)
        #expect(RawDeflate.inflate(deflated.prefix(deflated.count / 2)) == nil)
        #expect(RawDeflate.inflate(Data([0xFF, 0xFF, 0xFF])) == nil)
        #expect(RawDeflate.inflate(deflated, limit: 100) == nil)
    }

    // MARK: Models

    /// A model with every kind of thing the archive holds.
    static func richModel() throws -> NSManagedObjectModel {
        try XcodeModelFixtures.load(XcodeModelFixtures.everything)
    }

    @Test func aModelReadsBackFromItsArchiveWithEqualHashes() throws {
        let model = try Self.richModel()
        let archive = CompiledModelEncoder.archive(model)
        let decoded = NSManagedObjectModel()
        try CompiledModelDecoder.read(archive, file: nil, into: decoded)
        #expect(decoded.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(decoded.entityVersionHashesByName.count == model.entities.count)
        #expect(decoded.versionIdentifiers == model.versionIdentifiers)
        #expect(Set(decoded.configurations) == Set(model.configurations))
        for name in model.configurations {
            #expect(
                Set((decoded.entities(forConfigurationName: name) ?? []).compactMap(\.name))
                    == Set((model.entities(forConfigurationName: name) ?? []).compactMap(\.name)))
        }
        for entity in model.entities {
            let name = try #require(entity.name)
            let other = try #require(decoded.entitiesByName[name])
            #expect(other.superentity?.name == entity.superentity?.name)
            #expect(other.isAbstract == entity.isAbstract)
            #expect(other.managedObjectClassName == entity.managedObjectClassName)
            #expect(other.renamingIdentifier == entity.renamingIdentifier)
            #expect(other.uniquenessConstraintNames == entity.uniquenessConstraintNames)
            #expect(other.indexes.map(\.name) == entity.indexes.map(\.name))
            #expect(other.indexes.map { $0.elements.map(\.isAscending) } == entity.indexes.map { $0.elements.map(\.isAscending) })
            #expect(Set(other.declaredProperties.map(\.name)) == Set(entity.declaredProperties.map(\.name)))
            for property in entity.declaredProperties {
                let counterpart = try #require(other.propertiesByName[property.name])
                #expect(type(of: counterpart) == type(of: property), "\(name).\(property.name)")
                #expect(counterpart.isOptional == property.isOptional, "\(name).\(property.name)")
                #expect(counterpart.isIndexed == property.isIndexed, "\(name).\(property.name)")
                #expect(counterpart.renamingIdentifier == property.renamingIdentifier, "\(name).\(property.name)")
                #expect(counterpart.versionHash == property.versionHash, "\(name).\(property.name)")
                if let relationship = property as? NSRelationshipDescription,
                    let decodedRelationship = counterpart as? NSRelationshipDescription
                {
                    #expect(decodedRelationship.deleteRule == relationship.deleteRule)
                    #expect(decodedRelationship.inverseRelationship?.name == relationship.inverseRelationship?.name)
                    #expect(decodedRelationship.destinationEntity?.name == relationship.destinationEntity?.name)
                }
                if let attribute = property as? NSAttributeDescription,
                    let decodedAttribute = counterpart as? NSAttributeDescription
                {
                    #expect(decodedAttribute.valueTransformerName == attribute.valueTransformerName)
                    #expect(
                        decodedAttribute.defaultValue.map { "\($0)" } == attribute.defaultValue.map { "\($0)" },
                        "\(name).\(property.name)")
                }
                if let fetched = property as? NSFetchedPropertyDescription {
                    let decodedRequest = (counterpart as? NSFetchedPropertyDescription)?.fetchRequest
                    #expect(decodedRequest?.entityName == fetched.fetchRequest?.entityName)
                    #expect(decodedRequest?.predicate?.predicateFormat == fetched.fetchRequest?.predicate?.predicateFormat)
                }
            }
        }
        let template = try #require(decoded.fetchRequestTemplate(forName: "booksByTitle"))
        #expect(
            template.predicate?.predicateFormat == model.fetchRequestTemplate(forName: "booksByTitle")?.predicate?.predicateFormat
        )
        #expect(template.predicate?.predicateFormat.contains("$TITLE") == true)
        #expect(template.fetchLimit == 10)
    }

    @Test func anUnboundedMaximumIsArchivedAsApplesMinusOne() throws {
        let model = try Self.richModel()
        let chapters = try #require(model.entitiesByName["Book"]?.relationshipsByName["chapters"])
        chapters.maxCount = Int.max
        let archive = try KeyedArchive(CompiledModelEncoder.archive(model))
        let archived = archive.objects.first { object in
            archive.className(of: object) == "NSRelationshipDescription"
                && archive.string(object["NSPropertyName"]) == "chapters"
        }
        #expect(archive.integer(archived?["NSMaxCount"]) == -1)
        let decoded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(model), file: nil, into: decoded)
        #expect(decoded.entitiesByName["Book"]?.relationshipsByName["chapters"]?.maxCount == Int.max)
        #expect(decoded.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test func xcodesCompiledModelFilesLoad() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try Self.richModel()
        let mom = directory.appendingPathComponent("Model.mom")
        try CompiledModelEncoder.archive(model).write(to: mom)
        let loaded = try #require(NSManagedObjectModel(contentsOf: mom))
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        // An Xcode .momd: a binary VersionInfo.plist and binary versions.
        let momd = directory.appendingPathComponent("Model.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try CompiledModelEncoder.archive(model).write(to: momd.appendingPathComponent("Model 2.mom"))
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Model 2"], format: .binary, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(NSManagedObjectModel(contentsOf: momd)?.entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test func damagedCompiledModelsGiveATypedError() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mom = directory.appendingPathComponent("Model.mom")
        // A keyed archive of something else, and an archive cut short.
        let other = try PropertyListSerialization.data(
            fromPropertyList: ["$archiver": "NSKeyedArchiver"], format: .binary, options: 0)
        try other.write(to: mom)
        #expect(NSManagedObjectModel(contentsOf: mom) == nil)
        #expect(throws: ModelError(.damagedCompiledModel(reason: "not an NSKeyedArchiver archive"), file: mom)) {
            try NSManagedObjectModel.load(contentsOf: mom)
        }
        let archive = CompiledModelEncoder.archive(try Self.richModel())
        try archive.prefix(archive.count / 2).write(to: mom)
        do {
            _ = try NSManagedObjectModel.load(contentsOf: mom)
            Issue.record("a truncated archive loaded")
        } catch {
            guard case .damagedCompiledModel = error.kind else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }

    /// A compiled model is a model file compiled, and XML holds no control character but tab
    /// and line breaks: one that holds another is damaged, not a model written back as XML no
    /// reader takes (found by fuzzing: Fuzz/Regressions/compiled-model).
    @Test func textAModelFileCannotHoldIsDamage() throws {
        let model = NSManagedObjectModel {
            Entity("Note") {
                Attribute("body", .transformableAttributeType)
            }
        }
        model.entitiesByName["Note"]?.attributesByName["body"]?.valueTransformerName = "NSSecureUnarchiveFro\u{1}\u{0}"
        let archive = CompiledModelEncoder.archive(model)
        do {
            try CompiledModelDecoder.read(archive, file: nil, into: NSManagedObjectModel())
            Issue.record("a model holding U+0001 loaded")
        } catch {
            #expect(
                error.kind
                    == .damagedCompiledModel(
                        reason: #"the text "NSSecureUnarchiveFro\u{01}\0" holds a character no model file can hold"#))
        }
        // Tabs and line breaks are text XML holds (as character references): the model loads and
        // writes back as it was.
        model.entitiesByName["Note"]?.attributesByName["body"]?.valueTransformerName = "Name\twith\nbreaks"
        let loaded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(model), file: nil, into: loaded)
        #expect(try NSManagedObjectModel.load(xml: loaded.xcodeModelContents()).isEqual(loaded))
    }

    /// A shelf whose `spot` is a composite attribute of the elements given (a row, by default).
    static func compositeModel(
        typeName: String?, elements: [NSAttributeDescription]? = nil, more: [NSAttributeDescription] = []
    ) -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            return attribute
        }
        let spot = NSCompositeAttributeDescription()
        spot.name = "spot"
        spot.compositeTypeName = typeName
        spot.elements = elements ?? [attribute("row", .integer16AttributeType)]
        let shelf = NSEntityDescription()
        shelf.name = "Shelf"
        shelf.managedObjectClassName = "NSManagedObject"
        shelf.properties = [spot] + more
        let model = NSManagedObjectModel()
        model.entities = [shelf]
        return model
    }

    /// A model file declares each composite type once (`<composite>`) and its attributes name it,
    /// so an archive whose composite attribute has elements but no type, whose attributes of one
    /// type disagree on its elements, or whose attribute class and type disagree, holds what no
    /// model file can say: damage, not a model that changes once written as XML (found by
    /// fuzzing: Fuzz/Regressions/compiled-model/composite-without-type.mom).
    @Test func compositeAttributesNoModelFileCanSayAreDamage() throws {
        func error(loading model: NSManagedObjectModel) -> ModelError? {
            do {
                try CompiledModelDecoder.read(CompiledModelEncoder.archive(model), file: nil, into: NSManagedObjectModel())
                return nil
            } catch {
                return error
            }
        }
        let untyped = try #require(error(loading: Self.compositeModel(typeName: nil)))
        #expect(untyped.kind == .damagedCompiledModel(reason: "a composite attribute has elements but names no composite type"))
        #expect(untyped.entity == "Shelf" && untyped.property == "spot")

        func text() -> NSAttributeDescription {
            let text = NSAttributeDescription()
            text.name = "label"
            text.attributeType = .stringAttributeType
            return text
        }
        let label = NSCompositeAttributeDescription()
        label.name = "home"
        label.compositeTypeName = "Place"
        label.elements = [text()]
        let disagreeing = try #require(error(loading: Self.compositeModel(typeName: "Place", more: [label])))
        #expect(
            disagreeing.kind == .damagedCompiledModel(reason: "the composite type Place has other elements in another attribute"))

        let plain = NSAttributeDescription()
        plain.name = "place"
        plain.attributeType = .compositeAttributeType
        let misclassed = try #require(error(loading: Self.compositeModel(typeName: "Place", more: [plain])))
        #expect(misclassed.kind == .damagedCompiledModel(reason: "NSAttributeDescription of attribute type Composite"))
        #expect(misclassed.property == "place")

        // Attributes of one type with the same elements, and a composite with neither type nor
        // elements, are what model files say: they load and survive the XML round trip.
        let agreeing = Self.compositeModel(typeName: "Place", elements: [text()], more: [label])
        let loaded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(agreeing), file: nil, into: loaded)
        #expect(loaded.compositeTypes.map(\.name) == ["Place"])
        let home = loaded.entitiesByName["Shelf"]?.attributesByName["home"] as? NSCompositeAttributeDescription
        #expect(home?.elements.map(\.name) == ["label"])
        #expect(try NSManagedObjectModel.load(xml: loaded.xcodeModelContents()).isEqual(loaded))
        let empty = NSManagedObjectModel()
        try CompiledModelDecoder.read(
            CompiledModelEncoder.archive(Self.compositeModel(typeName: nil, elements: [])), file: nil, into: empty)
        #expect(try NSManagedObjectModel.load(xml: empty.xcodeModelContents()).isEqual(empty))
    }

    /// A default value a model file cannot write as the attribute's default text (a string for
    /// a Double, NaN) is damage, not a default that changes once written as XML (found by
    /// fuzzing: Fuzz/Regressions/compiled-model/double-default-text.mom).
    @Test func aDefaultValueNoModelFileCanWriteIsDamage() throws {
        func model(_ value: Any) -> NSManagedObjectModel {
            let rating = NSAttributeDescription()
            rating.name = "rating"
            rating.attributeType = .doubleAttributeType
            rating.defaultValue = value
            let item = NSEntityDescription()
            item.name = "Item"
            item.properties = [rating]
            let model = NSManagedObjectModel()
            model.entities = [item]
            return model
        }
        for (value, shown) in [("size", #""size""#), (Double.nan, "nan")] as [(Any, String)] {
            do {
                try CompiledModelDecoder.read(CompiledModelEncoder.archive(model(value)), file: nil, into: NSManagedObjectModel())
                Issue.record("a Double default \(shown) loaded")
            } catch {
                #expect(error.kind == .damagedCompiledModel(reason: "the default value \(shown) is no Double value"))
                #expect(error.entity == "Item" && error.property == "rating")
            }
        }
        let loaded = NSManagedObjectModel()
        try CompiledModelDecoder.read(CompiledModelEncoder.archive(model(2.5)), file: nil, into: loaded)
        #expect(loaded.entitiesByName["Item"]?.attributesByName["rating"]?.defaultValue as? Double == 2.5)
        #expect(try NSManagedObjectModel.load(xml: loaded.xcodeModelContents()).isEqual(loaded))
    }

    // MARK: Stores

    @Test func storesCarryTheirModelInZModelCache() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try XcodeModelFixtures.load(
            XcodeModelFixtures.single(
                attribute: #"<attribute name="title" optional="YES" attributeType="String" defaultValueString="New"/>"#))
        let url = directory.appendingPathComponent("Store.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        let cached = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
        #expect(cached.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(cached.entitiesByName["Item"]?.attributesByName["title"]?.defaultValue as? String == "New")
        // The cache is raw DEFLATE of a keyed archive, as Apple's.
        let queue = try DatabaseQueue(path: url.path)
        let content = try queue.read { db in try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") }
        let stored = try #require(content)
        let archive = try #require(RawDeflate.inflate(stored))
        #expect(try KeyedArchive(archive).objects.count > 5)
    }

    @Test func aStoreWithoutACachedModelGivesCoreDatasError() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Plain.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)") }
        try queue.close()
        let before = try Data(contentsOf: url)
        do {
            _ = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
            Issue.record("a store with no cached model gave one")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSMigrationMissingSourceModelError)
        }
        #expect(try Data(contentsOf: url) == before)
    }
}

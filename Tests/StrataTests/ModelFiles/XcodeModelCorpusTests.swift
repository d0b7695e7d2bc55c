import Foundation
import Testing

@testable import Strata

/// The `contents` files of the corpus's model bundles, as paths relative to `models/`.
enum ModelCorpus {
    static let contentsPaths: [String] = {
        guard TestCorpus.isAvailable,
            let enumerator = FileManager.default.enumerator(atPath: TestCorpus.models.path)
        else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".xcdatamodel/contents") }.sorted()
    }()

    static func url(_ path: String) -> URL { TestCorpus.models.appendingPathComponent(path) }

    static func raw(_ path: String) throws -> RawModelXML {
        let text = try String(contentsOf: url(path), encoding: .utf8)
        return try #require(RawModelXML(text: text), "the independent scanner cannot read \(path)")
    }
}

@Suite("Xcode model corpus") struct XcodeModelCorpusTests {
    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func corpusHasAllModelFiles() {
        #expect(ModelCorpus.contentsPaths.count >= 165)
    }

    /// Every model of the corpus loads, each bundle's current version too, and compiles into
    /// the `.momd` the build plugin makes, which loads to the same model; the failures are
    /// listed together, by path.
    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func everyCorpusModelLoads() throws {
        var failures: [String] = []
        for path in ModelCorpus.contentsPaths {
            do {
                _ = try NSManagedObjectModel.load(contentsOf: ModelCorpus.url(path))
            } catch {
                failures.append("\(path): \(error)")
            }
        }
        let bundles = try FileManager.default.contentsOfDirectory(atPath: TestCorpus.models.path).filter { name in
            var isDirectory: ObjCBool = false
            let url = TestCorpus.models.appendingPathComponent(name)
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }.sorted()
        let output = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        for name in bundles {
            do {
                // The corpus names its bundles without the extension; a copy gets it back.
                let copy = output.appendingPathComponent(name + ".xcdatamodeld")
                try FileManager.default.copyItem(at: TestCorpus.models.appendingPathComponent(name), to: copy)
                let current = try XcodeModelBundle(url: copy).currentModel()
                let momd = output.appendingPathComponent(name + ".momd")
                try CompiledModelFiles.compile(copy, to: momd)
                let compiled = try NSManagedObjectModel.load(contentsOf: momd)
                if !compiled.isEqual(current) { failures.append("\(name).momd: not the bundle's current version") }
            } catch {
                failures.append("\(name): \(error)")
            }
        }
        #expect(failures.isEmpty, "models that fail to load:\n\(failures.joined(separator: "\n"))")
        #expect(ModelCorpus.contentsPaths.count >= 165)
        #expect(bundles.count >= 100)
    }

    /// Every model loads, and matches what an independent reading of its XML declares:
    /// entities, inheritance, and every attribute's and relationship's flags and types.
    @Test(
        .enabled(if: TestCorpus.isAvailable, "the model corpus is absent"),
        arguments: ModelCorpus.contentsPaths)
    func modelMatchesItsXML(path: String) throws {
        let model = try NSManagedObjectModel.load(contentsOf: ModelCorpus.url(path))
        let raw = try ModelCorpus.raw(path)

        #expect(model.entities.count == raw.entities.count)
        #expect(model.fetchRequestTemplatesByName.count == raw.root.children(named: "fetchRequest").count)
        #expect(model.configurations.count == raw.root.children(named: "configuration").count)
        #expect(model.compositeTypes.count == raw.root.children(named: "composite").count)
        let byName = model.entitiesByName
        for rawEntity in raw.entities {
            let name = try #require(rawEntity.attributes["name"])
            let entity = try #require(byName[name], "entity \(name)")
            try checkEntity(entity, against: rawEntity)
        }
    }

    private func checkEntity(_ entity: NSEntityDescription, against raw: RawModelXML.Element) throws {
        let name = entity.name ?? ""
        #expect(entity.superentity?.name == raw.attributes["parentEntity"], "\(name)")
        #expect(entity.isAbstract == (raw.attributes["isAbstract"] == "YES"), "\(name)")
        #expect(entity.managedObjectClassName == (raw.attributes["representedClassName"] ?? "NSManagedObject"))
        let declared = entity.declaredProperties
        let attributes = declared.compactMap { $0 as? NSAttributeDescription }
        let relationships = declared.compactMap { $0 as? NSRelationshipDescription }
        let rawAttributes = raw.children(named: "attribute")
        let rawRelationships = raw.children(named: "relationship")
        #expect(attributes.count == rawAttributes.count, "attributes of \(name)")
        #expect(relationships.count == rawRelationships.count, "relationships of \(name)")
        #expect(declared.count(where: { $0 is NSFetchedPropertyDescription }) == raw.children(named: "fetchedProperty").count)
        #expect(entity.uniquenessConstraints.count == raw.children(named: "uniquenessConstraints").flatMap { $0.children }.count)
        #expect(entity.indexes.count == raw.children(named: "fetchIndex").count)

        for rawAttribute in rawAttributes {
            let values = rawAttribute.attributes
            let attribute = try #require(attributes.first { $0.name == values["name"] }, "\(name).\(values["name"] ?? "?")")
            let label = "\(name).\(attribute.name)"
            #expect(attribute.isOptional == (values["optional"] == "YES"), "\(label)")
            #expect(attribute.isTransient == (values["transient"] == "YES"), "\(label)")
            #expect(attribute.isIndexed == (values["indexed"] == "YES"), "\(label)")
            let rawType = try #require(RawModelXML.attributeTypeRawValues[values["attributeType"] ?? "Undefined"])
            #expect(attribute.attributeType.rawValue == rawType, "\(label)")
            #expect((attribute is NSDerivedAttributeDescription) == (values["derived"] == "YES"), "\(label)")
            #expect(attribute.valueTransformerName == values["valueTransformerName"], "\(label)")
            if let text = values["defaultValueString"], attribute.attributeType != .dateAttributeType, !text.isEmpty {
                #expect(attribute.defaultValue != nil, "\(label) default \(text)")
                #expect(attribute.defaultValueString == text, "\(label)")
            }
        }
        for rawRelationship in rawRelationships {
            let values = rawRelationship.attributes
            let relationship = try #require(relationships.first { $0.name == values["name"] })
            let label = "\(name).\(relationship.name)"
            #expect(relationship.isOptional == (values["optional"] == "YES"), "\(label)")
            #expect(relationship.isTransient == (values["transient"] == "YES"), "\(label)")
            #expect(relationship.isToMany == (values["toMany"] == "YES"), "\(label)")
            #expect(relationship.isOrdered == (values["ordered"] == "YES"), "\(label)")
            #expect(relationship.minCount == Int(values["minCount"] ?? "0"), "\(label)")
            let rule = try #require(RawModelXML.deleteRuleRawValues[values["deletionRule"] ?? "Nullify"])
            #expect(relationship.deleteRule.rawValue == rule, "\(label)")
            #expect(relationship.destinationEntity?.name == values["destinationEntity"], "\(label)")
            #expect(relationship.inverseRelationship?.name == values["inverseName"], "\(label)")
        }
    }

    /// Writing a model and reading the result gives an equal model, and writing that model
    /// gives the same XML again.
    @Test(
        .enabled(if: TestCorpus.isAvailable, "the model corpus is absent"),
        arguments: ModelCorpus.contentsPaths)
    func writeReadRoundTrip(path: String) throws {
        let url = ModelCorpus.url(path)
        let model1 = try NSManagedObjectModel.load(contentsOf: url)
        let xml1 = model1.xcodeModelContents()
        let model2 = try NSManagedObjectModel.load(xml: xml1, file: url)
        #expect(model1.isEqual(model2))
        #expect(model2.xcodeModelContents() == xml1)
    }

    /// The XML written from a model read from a file says what the file says: the same
    /// elements and attributes, whatever their order.
    @Test(
        .enabled(if: TestCorpus.isAvailable, "the model corpus is absent"),
        arguments: ModelCorpus.contentsPaths)
    func rewrittenXMLIsSemanticallyTheOriginal(path: String) throws {
        let model = try NSManagedObjectModel.load(contentsOf: ModelCorpus.url(path))
        let original = try ModelCorpus.raw(path)
        let rewritten = try #require(RawModelXML(text: XcodeModelWriter.contentsXML(for: model)))
        #expect(rewritten.root.canonicalText == original.root.canonicalText)
    }

    /// The rewritten XML is byte for byte the original (one file's trailing newline aside):
    /// this pins the writer's formatting, order and attribute choices on real Xcode files.
    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func everyCorpusFileRewritesByteForByte() throws {
        var different: [String] = []
        for path in ModelCorpus.contentsPaths {
            var original = try String(contentsOf: ModelCorpus.url(path), encoding: .utf8)
            if original.hasSuffix("\n") { original.removeLast() }
            let model = try NSManagedObjectModel.load(contentsOf: ModelCorpus.url(path))
            if XcodeModelWriter.contentsXML(for: model) != original { different.append(path) }
        }
        #expect(different.isEmpty, "rewritten differently: \(different)")
        #expect(!ModelCorpus.contentsPaths.isEmpty)
    }
}

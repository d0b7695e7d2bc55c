import Foundation

/// Reads Xcode's mapping models (`.xcmappingmodel`): a folder whose `xcmapping.xml` is Core
/// Data's old XML store format, with one `<object>` per mapping element — `XDDEVMAPPINGMODEL`,
/// `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING`, `XDDEVRELATIONSHIPMAPPING` — whose
/// `<attribute>`s hold names, mapping types and policy class names, and whose value
/// expressions are keyed archives of `NSExpression` (`valueexpressiondata`).
///
/// What Xcode leaves to its compiler is left unresolved here and completed against the two
/// models when a migration starts (`NSMappingModel.resolve`): mapping types written
/// `Undefined`, entity mapping names, source expressions, and the default value expressions
/// of properties (`autogenerateexpression`).
enum MappingModelFile {
    /// The mapping model of an `.xcmappingmodel` folder (or of its `xcmapping.xml`).
    static func read(_ url: URL) throws -> NSMappingModel {
        var file = url
        if (try? file.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            file = url.appendingPathComponent("xcmapping.xml")
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CoreDataError.make(
                NSFileReadNoSuchFileError, "The mapping model \(url.path) cannot be read.",
                userInfo: [NSURLErrorKey: url, NSUnderlyingErrorKey: error as NSError])
        }
        if CompiledMappingModelFile.isCompiled(data) { return try CompiledMappingModelFile.parse(data, file: file) }
        return try parse(data, file: file)
    }

    /// A mapping model from the text of an `xcmapping.xml`.
    static func parse(_ data: Data, file: URL?) throws -> NSMappingModel {
        let root: XcodeModelXMLElement
        do {
            root = try XcodeModelXMLElement.parse(withoutDocumentType(data), file: file)
        } catch {
            throw Self.damaged(file, "it is not well-formed XML (\(error))")
        }
        var objects: [String: Object] = [:]
        for element in root.children(named: "object") {
            guard let id = element.attributes["id"], let type = element.attributes["type"] else { continue }
            var object = Object(type: type)
            for child in element.children {
                guard let name = child.attributes["name"] else { continue }
                if child.name == "attribute" {
                    object.attributes[name] = child.text.trimmingCharacters(in: .whitespacesAndNewlines)
                } else if child.name == "relationship" {
                    object.relationships[name] = (child.attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                }
            }
            objects[id] = object
        }
        guard let model = objects.values.first(where: { $0.type == "XDDEVMAPPINGMODEL" }) else {
            throw Self.damaged(file, "it has no XDDEVMAPPINGMODEL object")
        }
        let mappingModel = NSMappingModel()
        mappingModel.sourceModelPath = model.attributes["sourcemodelpath"]
        mappingModel.destinationModelPath = model.attributes["destinationmodelpath"]
        mappingModel.sourceEntityProperties = model.attributes["sourcemodeldata"].flatMap(Self.entityProperties)
        mappingModel.destinationEntityProperties = model.attributes["destinationmodeldata"].flatMap(Self.entityProperties)
        var entityMappings: [(number: Int, mapping: NSEntityMapping)] = []
        for id in model.relationships["entitymappings"] ?? [] {
            guard let object = objects[id], object.type == "XDDEVENTITYMAPPING" else {
                throw Self.damaged(file, "the entity mapping \(id) is missing")
            }
            let mapping = NSEntityMapping()
            mapping.name = object.attributes["name"].flatMap { $0.isEmpty ? nil : $0 }
            mapping.sourceEntityName = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
            mapping.destinationEntityName = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
            mapping.mappingType = mappingType(object.attributes["mappingtypename"])
            mapping.entityMigrationPolicyClassName = object.attributes["migrationpolicyclassname"].flatMap {
                $0.isEmpty ? nil : $0
            }
            mapping.generatesSourceExpression = object.attributes["autogenerateexpression"] != "0"
            mapping.attributeMappings = try (object.relationships["attributemappings"] ?? []).map { id in
                try propertyMapping(objects[id], id: id, file: file)
            }
            mapping.relationshipMappings = try (object.relationships["relationshipmappings"] ?? []).map { id in
                try propertyMapping(objects[id], id: id, file: file)
            }
            entityMappings.append((Int(object.attributes["mappingnumber"] ?? "") ?? Int.max, mapping))
        }
        // Xcode numbers the entity mappings in the order its editor lists them, the order a
        // compiled mapping model runs them.
        mappingModel.entityMappings = entityMappings.enumerated().sorted {
            ($0.element.number, $0.offset) < ($1.element.number, $1.offset)
        }.map(\.element.mapping)
        mappingModel.needsResolution = true
        return mappingModel
    }

    /// The entities of a model as Xcode's editor keeps it inside a mapping model
    /// (`sourcemodeldata`, `destinationmodeldata`: a keyed archive of `XDPMModel`, one
    /// `XDPMEntity` per entity, its attributes and relationships in its owned-attributes
    /// bucket): each entity's name with the names of its properties. `nil` when the archive
    /// cannot be read that way.
    static func entityProperties(_ base64: String) -> [String: Set<String>]? {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters),
            let archive = try? KeyedArchive(data)
        else { return nil }
        var result: [String: Set<String>] = [:]
        for object in archive.objects where archive.className(of: object) == "XDPMEntity" {
            guard let name = archive.string(archive.field(object, "_name")) else { return nil }
            let bucket = archive.field(object, "XDBucketForOwnedAttributesstorage")
            let members = archive.entries(bucket)?.map(\.value) ?? archive.elements(bucket) ?? []
            result[name] = Set(members.compactMap { archive.string(archive.field($0, "_name")) })
        }
        return result.isEmpty ? nil : result
    }

    private struct Object {
        var type: String
        var attributes: [String: String] = [:]
        var relationships: [String: [String]] = [:]
    }

    private static func propertyMapping(_ object: Object?, id: String, file: URL?) throws -> NSPropertyMapping {
        guard let object else { throw Self.damaged(file, "the property mapping \(id) is missing") }
        let mapping = NSPropertyMapping()
        mapping.name = object.attributes["name"]
        if let text = object.attributes["valueexpressiondata"] {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
                let expression = ArchivedExpressionReader.expression(from: data)
            else {
                throw Self.damaged(file, "the value expression of \(mapping.name ?? id) cannot be read")
            }
            mapping.valueExpression = expression
        } else {
            // Attribute mappings carry no flag: an empty one takes the source's value of the
            // same name, as Xcode's editor shows it.
            mapping.generatesExpression = object.attributes["autogenerateexpression"] != "0"
            mapping.generatedSourceKeyPath = object.attributes["sourcekeypath"].flatMap { $0.isEmpty ? nil : $0 }
            mapping.generatedSourceMappingName = object.attributes["sourcemappingname"].flatMap { $0.isEmpty ? nil : $0 }
        }
        return mapping
    }

    /// Xcode's names of the entity mapping types.
    private static func mappingType(_ name: String?) -> NSEntityMappingType {
        switch name?.lowercased() {
        case "add", "addentitymappingtype": .addEntityMappingType
        case "remove", "removeentitymappingtype": .removeEntityMappingType
        case "copy", "copyentitymappingtype": .copyEntityMappingType
        case "transform", "transformentitymappingtype": .transformEntityMappingType
        case "custom", "customentitymappingtype": .customEntityMappingType
        default: .undefinedEntityMappingType
        }
    }

    /// The file without its `<!DOCTYPE database SYSTEM …>` line, which names Apple's DTD:
    /// the XML reader refuses document types (entity expansion and external entities).
    private static func withoutDocumentType(_ data: Data) -> Data {
        guard let start = data.range(of: Data("<!DOCTYPE".utf8)),
            let end = data[start.upperBound...].firstIndex(of: UInt8(ascii: ">"))
        else { return data }
        var copy = data
        copy.removeSubrange(start.lowerBound...end)
        return copy
    }

    private static func damaged(_ file: URL?, _ reason: String) -> NSError {
        CoreDataError.make(
            NSFileReadCorruptFileError, "The mapping model \(file?.path ?? "") is damaged: \(reason).",
            userInfo: file.map { [NSURLErrorKey: $0] } ?? [:])
    }
}

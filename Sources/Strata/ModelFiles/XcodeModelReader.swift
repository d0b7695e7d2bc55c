import Foundation

/// Reads the `contents` XML of an Xcode data model (`.xcdatamodel`) into a managed object
/// model. See STORE-FORMAT.md §1 for the grammar.
///
/// The reader builds the model as the file states it and leaves semantic checks
/// (inverses, constraints, derivations, default values…) to `validationErrors()`. It throws
/// only for what prevents building a model: XML that is not well formed, a root element
/// other than `<model>`, a missing required name, an enumerated value it does not know
/// (`attributeType`, `deletionRule`…), a number that is not one, a parent entity that is not
/// in the model, and inheritance cycles. Unknown elements are ignored; unknown XML
/// attributes are kept in `modelFileAttributes`.
enum XcodeModelReader {
    /// Reads model XML into `model`, a new empty model.
    ///
    /// - Parameters:
    ///   - data: The `contents` XML.
    ///   - file: The file the data comes from; it only serves to name the source in errors.
    ///   - model: The model to fill.
    static func read(_ data: Data, file: URL?, into model: NSManagedObjectModel) throws(ModelError) {
        let root = try XcodeModelXMLElement.parse(data, file: file)
        let builder = XcodeModelAssembler(reader: XcodeModelElementReader(file: file), model: model)
        try builder.build(from: root)
    }
}

/// Builds a model from the root element: the parts that concern the model as a whole
/// (inheritance, composite types, templates, configurations, layout).
private struct XcodeModelAssembler {
    let reader: XcodeModelElementReader
    let model: NSManagedObjectModel

    func build(from root: XcodeModelXMLElement) throws(ModelError) {
        guard root.name == "model" else {
            throw reader.error(.malformedXML(reason: "the root element is <\(root.name)>, not <model>"), root)
        }
        readRootAttributes(root)

        let compositeTypes = try root.children(named: "composite").map { element throws(ModelError) in
            try reader.compositeType(element)
        }
        var entities: [NSEntityDescription] = []
        var parentNames: [(entity: NSEntityDescription, parent: String, element: XcodeModelXMLElement)] = []
        for element in root.children(named: "entity") {
            let entity = try reader.entity(element)
            entities.append(entity)
            if let parent = element.attributes["parentEntity"] {
                parentNames.append((entity, parent, element))
            }
        }
        try wireInheritance(entities, parentNames)
        try resolveComposites(types: compositeTypes, entities: entities, root: root)

        model.compositeTypes = compositeTypes
        model.entities = entities

        for element in root.children(named: "fetchRequest") {
            guard let name = element.attributes["name"] else {
                throw reader.error(.missingXMLAttribute(element: "fetchRequest", attribute: "name"), element)
            }
            model.setFetchRequestTemplate(try reader.fetchRequest(element), forName: name)
        }
        for element in root.children(named: "configuration") {
            try readConfiguration(element)
        }
        model.diagramLayout = root.children(named: "elements").flatMap { elements in
            elements.children(named: "element").map(\.attributes)
        }
    }

    private func readRootAttributes(_ root: XcodeModelXMLElement) {
        var attributes = root.attributes
        if let identifier = attributes.removeValue(forKey: "userDefinedModelVersionIdentifier") {
            model.versionIdentifiers = [identifier]
        } else {
            model.versionIdentifiers = []
        }
        model.modelFileAttributes = attributes
    }

    /// Links each entity to its parent by name. A parent that is not in the model, or a
    /// cycle, is an error here: the model cannot even hold such an inheritance tree.
    private func wireInheritance(
        _ entities: [NSEntityDescription],
        _ parentNames: [(entity: NSEntityDescription, parent: String, element: XcodeModelXMLElement)]
    ) throws(ModelError) {
        var byName: [String: NSEntityDescription] = [:]
        for entity in entities {
            if let name = entity.name, byName[name] == nil { byName[name] = entity }
        }
        var parentOf: [ObjectIdentifier: NSEntityDescription] = [:]
        for (entity, parentName, element) in parentNames {
            guard let parent = byName[parentName] else {
                throw reader.error(.unknownParentEntity(name: parentName), element, entity: entity.name)
            }
            parentOf[ObjectIdentifier(entity)] = parent
        }
        for (entity, _, element) in parentNames {
            var visited: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
            var current = parentOf[ObjectIdentifier(entity)]
            while let ancestor = current {
                guard visited.insert(ObjectIdentifier(ancestor)).inserted else {
                    throw reader.error(.inheritanceCycle, element, entity: entity.name)
                }
                current = parentOf[ObjectIdentifier(ancestor)]
            }
        }
        for (entity, _, _) in parentNames {
            if let parent = parentOf[ObjectIdentifier(entity)] { parent.subentities.append(entity) }
        }
    }

    /// The most attributes that composite types may expand to in one model. Each composite
    /// attribute holds its own copy of its type's elements, so types that nest one another
    /// could otherwise make a small file expand without end.
    static let compositeExpansionLimit = 100_000

    /// Gives every composite attribute (in entities and in composite types) copies of the
    /// elements of the composite type it names. A type that contains itself, directly or
    /// not, stops at the repetition; validation does not need more.
    private func resolveComposites(
        types: [NSCompositeAttributeDescription], entities: [NSEntityDescription], root: XcodeModelXMLElement
    ) throws(ModelError) {
        var byName: [String: NSCompositeAttributeDescription] = [:]
        for type in types where byName[type.name] == nil { byName[type.name] = type }
        let roots: [(attribute: NSCompositeAttributeDescription, visiting: Set<String>)] =
            types.flatMap { type in
                type.elements.compactMap { $0 as? NSCompositeAttributeDescription }.map { ($0, [type.name]) }
            }
            + entities.flatMap { entity in
                entity.declaredProperties.compactMap { $0 as? NSCompositeAttributeDescription }.map { ($0, []) }
            }

        func count(_ attribute: NSCompositeAttributeDescription, visiting: Set<String>, total: inout Int) {
            guard total <= Self.compositeExpansionLimit, let typeName = attribute.compositeTypeName,
                !visiting.contains(typeName), let type = byName[typeName]
            else { return }
            for element in type.elements {
                total += 1
                if let nested = element as? NSCompositeAttributeDescription {
                    count(nested, visiting: visiting.union([typeName]), total: &total)
                }
            }
        }
        var total = 0
        for (attribute, visiting) in roots { count(attribute, visiting: visiting, total: &total) }
        guard total <= Self.compositeExpansionLimit else {
            throw reader.error(
                .malformedXML(reason: "composite types expand to more than \(Self.compositeExpansionLimit) attributes"),
                root)
        }

        func fill(_ attribute: NSCompositeAttributeDescription, visiting: Set<String>) {
            guard let typeName = attribute.compositeTypeName, !visiting.contains(typeName),
                let type = byName[typeName]
            else { return }
            attribute.elements = type.elements.compactMap { $0.copy() as? NSAttributeDescription }
            for case let nested as NSCompositeAttributeDescription in attribute.elements {
                fill(nested, visiting: visiting.union([typeName]))
            }
        }
        for (attribute, visiting) in roots { fill(attribute, visiting: visiting) }
    }

    /// A `<configuration>`: its members are recorded by name, including names that are not
    /// in the model, so that validation can report them.
    private func readConfiguration(_ element: XcodeModelXMLElement) throws(ModelError) {
        guard let name = element.attributes["name"] else {
            throw reader.error(.missingXMLAttribute(element: "configuration", attribute: "name"), element)
        }
        let members = element.children(named: "memberEntity").compactMap { member in
            member.attributes["name"].map { memberName in
                let placeholder = NSEntityDescription()
                placeholder.name = memberName
                return placeholder
            }
        }
        model.setEntities(members, forConfigurationName: name)
        var attributes = element.attributes
        attributes["name"] = nil
        if !attributes.isEmpty { model.configurationAttributes[name] = attributes }
    }
}

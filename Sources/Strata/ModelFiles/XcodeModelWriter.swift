import Foundation

/// Writes a managed object model as the `contents` XML of an Xcode data model, in Xcode's
/// own style: four-space indentation, entities and their properties sorted by name, XML
/// attributes in Xcode's order, YES/NO booleans, and nothing written for a value at its
/// default.
///
/// A model read from a file writes back the attributes the file had, including the ones
/// that carry no meaning (`syncable`, tool versions), which the model keeps in its
/// `modelFileAttributes`.
enum XcodeModelWriter {
    /// The model's `contents` XML.
    static func contentsXML(for model: NSManagedObjectModel) -> String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        modelNode(model).render(depth: 0, into: &lines)
        return lines.joined(separator: "\n")
    }

    /// The root attributes of a model built in code, which has none of its own.
    static let defaultModelAttributes = [
        "type": "com.apple.IDECoreDataModeler.DataModel",
        "documentVersion": "1.0",
        "lastSavedToolsVersion": "22758",
        "systemVersion": "23F79",
        "minimumToolsVersion": "Automatic",
        "sourceLanguage": "Swift",
    ]

    private typealias Order = XcodeModelXMLAttributes

    // MARK: Model

    private static func modelNode(_ model: NSManagedObjectModel) -> XMLNode {
        var typed: [String: String] = [:]
        // The file holds a single identifier; a model built in code may have several.
        let identifiers = model.versionIdentifiers.map { ($0.base as? String) ?? String(describing: $0.base) }
        typed["userDefinedModelVersionIdentifier"] = identifiers.sorted().first
        let extra = model.modelFileAttributes.isEmpty ? defaultModelAttributes : model.modelFileAttributes
        let order = extra["sourceLanguage"] == nil ? Order.legacyModelOrder : Order.modelOrder

        var children = model.entities.sorted { xcodeOrder($0.name ?? "", $1.name ?? "") }.map(entityNode)
        children += model.fetchRequestTemplatesByName.sorted { xcodeOrder($0.key, $1.key) }.map { name, request in
            XMLNode("fetchRequest", Order.ordered(Order.fetchRequest(request, name: name), order: Order.fetchRequestOrder))
        }
        children += model.configurations.map { configuration in
            let attributes = ["name": configuration].merging(model.configurationAttributes[configuration] ?? [:]) { a, _ in a }
            return XMLNode(
                "configuration", Order.ordered(attributes, order: ["name"]),
                model.configurationMemberNames(configuration).map { XMLNode("memberEntity", [("name", $0)]) })
        }
        children += model.compositeTypes.map { type in
            XMLNode("composite", [("name", type.name)], type.elements.map(attributeNode))
        }
        // Xcode writes the layout of an empty model as an empty `<elements/>`.
        if !model.diagramLayout.isEmpty || children.isEmpty {
            children.append(
                XMLNode(
                    "elements", [],
                    model.diagramLayout.map { XMLNode("element", Order.ordered($0, order: Order.layoutOrder)) }))
        }
        return XMLNode("model", Order.ordered(typed, extra: extra, order: order), children)
    }

    // MARK: Entities

    private static func entityNode(_ entity: NSEntityDescription) -> XMLNode {
        let attributes = Order.ordered(
            Order.entity(entity), extra: entity.modelFileAttributes, order: Order.entityOrder)
        let properties = entity.declaredProperties.sorted { xcodeOrder($0.name, $1.name) }
        var children: [XMLNode] = []
        children += properties.compactMap { $0 as? NSAttributeDescription }.map(attributeNode)
        children += properties.compactMap { $0 as? NSRelationshipDescription }.map(relationshipNode)
        children += properties.compactMap { $0 as? NSFetchedPropertyDescription }.map(fetchedPropertyNode)
        children += entity.indexes.map(fetchIndexNode)
        let compoundIndexes = entity.compoundIndexNames
        if !compoundIndexes.isEmpty {
            children.append(
                XMLNode(
                    "compoundIndexes", [],
                    compoundIndexes.map { names in
                        XMLNode("compoundIndex", [], names.map { XMLNode("index", [("value", $0)]) })
                    }))
        }
        children += userInfoNode(entity.userInfo)
        let constraints = entity.uniquenessConstraints.map { constraint in
            constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }
        }
        if !constraints.isEmpty {
            children.append(
                XMLNode(
                    "uniquenessConstraints", [],
                    constraints.map { names in
                        XMLNode("uniquenessConstraint", [], names.map { XMLNode("constraint", [("value", $0)]) })
                    }))
        }
        return XMLNode("entity", attributes, children)
    }

    private static func attributeNode(_ attribute: NSAttributeDescription) -> XMLNode {
        XMLNode(
            "attribute",
            Order.ordered(
                Order.attribute(attribute), extra: attribute.modelFileAttributes, order: Order.attributeOrder),
            userInfoNode(attribute.userInfo))
    }

    private static func relationshipNode(_ relationship: NSRelationshipDescription) -> XMLNode {
        XMLNode(
            "relationship",
            Order.ordered(
                Order.relationship(relationship), extra: relationship.modelFileAttributes,
                order: Order.relationshipOrder),
            userInfoNode(relationship.userInfo))
    }

    private static func fetchedPropertyNode(_ property: NSFetchedPropertyDescription) -> XMLNode {
        var children: [XMLNode] = []
        if let request = property.fetchRequest {
            let attributes = Order.fetchRequest(request, name: "fetchedPropertyFetchRequest")
            children.append(XMLNode("fetchRequest", Order.ordered(attributes, order: Order.fetchRequestOrder)))
        }
        children += userInfoNode(property.userInfo)
        return XMLNode(
            "fetchedProperty",
            Order.ordered(
                Order.fetchedProperty(property), extra: property.modelFileAttributes,
                order: Order.fetchedPropertyOrder),
            children)
    }

    private static func fetchIndexNode(_ index: NSFetchIndexDescription) -> XMLNode {
        XMLNode(
            "fetchIndex", [("name", index.name)],
            index.elements.map { element in
                var attributes: [(String, String)] = []
                if let expression = element.expressionFormat {
                    attributes.append(("expression", expression))
                    if let type = element.expressionTypeName { attributes.append(("expressionType", type)) }
                } else {
                    attributes.append(("property", element.propertyName ?? element.property?.name ?? ""))
                }
                attributes.append(("type", element.collationType == .rTree ? "RTree" : "Binary"))
                attributes.append(("order", element.isAscending ? "ascending" : "descending"))
                return XMLNode("fetchIndexElement", attributes)
            })
    }

    /// `<userInfo>` with its entries sorted by key; an empty but present dictionary is
    /// written `<userInfo/>`, as older Xcode versions do.
    private static func userInfoNode(_ userInfo: [AnyHashable: Any]?) -> [XMLNode] {
        guard let userInfo else { return [] }
        let entries = userInfo.map { key, value in
            ((key.base as? String) ?? String(describing: key.base), (value as? String) ?? String(describing: value))
        }
        return [
            XMLNode(
                "userInfo", [],
                entries.sorted { xcodeOrder($0.0, $1.0) }.map { XMLNode("entry", [("key", $0.0), ("value", $0.1)]) })
        ]
    }

    /// The first text of the model that its `contents` XML could not hold, if any.
    static func textXMLCannotHold(in model: NSManagedObjectModel) -> String? {
        modelNode(model).firstText(where: { !canHold($0) })
    }

    /// Whether XML can hold the text: XML 1.0 allows no control character but tab, line feed
    /// and carriage return, even as a character reference, nor U+FFFE and U+FFFF.
    static func canHold(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xFFFD, 0x10000...: true
            default: false
            }
        }
    }

    /// Xcode's order of names: case-insensitive, ties broken by code points.
    static func xcodeOrder(_ lhs: String, _ rhs: String) -> Bool {
        switch lhs.caseInsensitiveCompare(rhs) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: lhs < rhs
        }
    }
}

/// An element to write: a name, attributes in order, and children.
private struct XMLNode {
    var name: String
    var attributes: [(String, String)]
    var children: [XMLNode]

    init(_ name: String, _ attributes: [(String, String)], _ children: [XMLNode] = []) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The first attribute value, in document order, that meets the condition.
    func firstText(where condition: (String) -> Bool) -> String? {
        if let found = attributes.first(where: { condition($0.1) }) { return found.1 }
        for child in children {
            if let found = child.firstText(where: condition) { return found }
        }
        return nil
    }

    func render(depth: Int, into lines: inout [String]) {
        let indent = String(repeating: "    ", count: depth)
        let attributeText = attributes.map { " \($0.0)=\"\(Self.escape($0.1))\"" }.joined()
        guard !children.isEmpty else {
            lines.append("\(indent)<\(name)\(attributeText)/>")
            return
        }
        lines.append("\(indent)<\(name)\(attributeText)>")
        for child in children { child.render(depth: depth + 1, into: &lines) }
        lines.append("\(indent)</\(name)>")
    }

    /// Escapes an attribute value: markup characters as entities, and control characters
    /// (including line breaks and tabs, which XML would otherwise normalize to spaces) as
    /// character references.
    static func escape(_ value: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "&#\(scalar.value);"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension NSManagedObjectModel {
    /// The model as the `contents` XML of an Xcode data model, UTF-8 encoded.
    ///
    /// ```swift
    /// let data = model.xcodeModelContents()
    /// let again = try NSManagedObjectModel.load(xml: data)   // equal to `model`
    /// ```
    ///
    /// A model read from a model file writes back the attributes the file had, so that
    /// reading the result gives an equal model.
    public func xcodeModelContents() -> Data {
        Data(XcodeModelWriter.contentsXML(for: self).utf8)
    }

    /// Writes the model as an Xcode model file.
    ///
    /// - For a URL ending in `.xcdatamodel`, creates that directory (if needed) and writes
    ///   its `contents` file.
    /// - For a URL ending in `.xcdatamodeld`, creates the bundle with one version named
    ///   like the bundle (`Model.xcdatamodeld/Model.xcdatamodel/contents`) and a
    ///   `.xccurrentversion` that makes it current. Other versions already in the bundle are
    ///   left alone.
    ///
    /// ```swift
    /// try model.write(toXcodeModelAt: URL(fileURLWithPath: "Model.xcdatamodeld"))
    /// ```
    ///
    /// - Throws: `ModelError` with `.notAModelFile` for another extension, or the file
    ///   system's error when a directory or file cannot be written.
    public func write(toXcodeModelAt url: URL) throws {
        let fileManager = FileManager.default
        switch url.pathExtension {
        case "xcdatamodel":
            try fileManager.createDirectory(at: url, withIntermediateDirectories: true)
            try xcodeModelContents().write(to: url.appendingPathComponent("contents"), options: .atomic)
        case "xcdatamodeld":
            let versionName = url.deletingPathExtension().lastPathComponent + ".xcdatamodel"
            try write(toXcodeModelAt: url.appendingPathComponent(versionName))
            let marker = try PropertyListSerialization.data(
                fromPropertyList: ["_XCCurrentVersionName": versionName], format: .xml, options: 0)
            try marker.write(to: url.appendingPathComponent(".xccurrentversion"), options: .atomic)
        default:
            throw ModelError(.notAModelFile, file: url)
        }
    }
}

/// Writes one entity's generated code, in the order and shape of Xcode's
/// `+CoreDataClass.swift` and `+CoreDataProperties.swift` files.
struct EntitySourceWriter {
    let entity: GeneratedEntity

    func write(into writer: inout SwiftSourceWriter) {
        let className = entity.className
        writer.line("// MARK: - \(entity.entityName)")
        writer.blankLine()
        if entity.kind == .classDefinition {
            writer.line("public class \(className): \(entity.superclassName) {}")
            writer.blankLine()
        }
        writer.block("extension \(className)") { writer in
            writer.block("@nonobjc public class func fetchRequest() -> NSFetchRequest<\(className)>") { writer in
                writer.line("return NSFetchRequest<\(className)>(entityName: \(Self.stringLiteral(entity.entityName)))")
            }
            if !entity.properties.isEmpty { writer.blankLine() }
            for property in entity.properties {
                writer.line("@Managed public var \(property.declaredName): \(property.swiftType)")
            }
        }
        for relationship in entity.toManyRelationships {
            writer.blankLine()
            writer.line("// MARK: Generated accessors for \(relationship.key)")
            writer.block("extension \(className)") { writer in
                ToManyAccessorWriter(relationship: relationship).write(into: &writer)
            }
        }
        if entity.declaresIdentifiable {
            writer.blankLine()
            writer.line("extension \(className): Identifiable {}")
        }
    }

    /// A Swift string literal of the text.
    static func stringLiteral(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"\(escaped)\""
    }
}

/// Writes the accessors Xcode generates for a to-many relationship (`addToTags(_:)`…),
/// with bodies that change the relationship through `mutableSetValue(forKey:)` or, when it is
/// ordered, `orderedToManyEditor(forKey:)` (the same changes without the live ordered set, which
/// keeps a copy of the relationship for Foundation).
struct ToManyAccessorWriter {
    let relationship: GeneratedProperty.ToMany

    func write(into writer: inout SwiftSourceWriter) {
        if relationship.isOrdered {
            writeOrdered(into: &writer)
        } else {
            writeUnordered(into: &writer)
        }
    }

    private var name: String { SwiftIdentifier.capitalized(relationship.key) }
    private var element: String { relationship.elementClassName }
    private var key: String { EntitySourceWriter.stringLiteral(relationship.key) }

    private func writeUnordered(into writer: inout SwiftSourceWriter) {
        let set = "mutableSetValue(forKey: \(key))"
        method("addToX(_ value: \(element))", [set + ".add(value)"], &writer)
        method("removeFromX(_ value: \(element))", [set + ".remove(value)"], &writer)
        method("addToX(_ values: NSSet)", [set + ".addObjects(from: values.allObjects)"], &writer)
        method(
            "removeFromX(_ values: NSSet)",
            [set + ".minus(Set(values.allObjects.compactMap { $0 as? AnyHashable }))"],
            &writer,
            last: true
        )
    }

    private func writeOrdered(into writer: inout SwiftSourceWriter) {
        let set = "orderedToManyEditor(forKey: \(key))"
        let local = "let objects = \(set)"
        method("insertIntoX(_ value: \(element), at idx: Int)", [set + ".insert(value, at: idx)"], &writer)
        method("removeFromX(at idx: Int)", [set + ".removeObject(at: idx)"], &writer)
        method(
            "insertIntoX(_ values: [\(element)], at indexes: NSIndexSet)",
            [local, "for (value, index) in zip(values, indexes) {", "    objects.insert(value, at: index)", "}"],
            &writer
        )
        method(
            "removeFromX(at indexes: NSIndexSet)",
            [local, "for index in indexes.reversed() {", "    objects.removeObject(at: index)", "}"],
            &writer
        )
        method("replaceX(at idx: Int, with value: \(element))", [set + ".replaceObject(at: idx, with: value)"], &writer)
        method(
            "replaceX(at indexes: NSIndexSet, with values: [\(element)])",
            [local, "for (index, value) in zip(indexes, values) {", "    objects.replaceObject(at: index, with: value)", "}"],
            &writer
        )
        method("addToX(_ value: \(element))", [set + ".add(value)"], &writer)
        method("removeFromX(_ value: \(element))", [set + ".remove(value)"], &writer)
        method(
            "addToX(_ values: NSOrderedSet)",
            [local, "for value in values.array {", "    objects.add(value)", "}"],
            &writer
        )
        method(
            "removeFromX(_ values: NSOrderedSet)",
            [local, "for value in values.array {", "    objects.remove(value)", "}"],
            &writer,
            last: true
        )
    }

    /// Writes `public func <signature>` with `X` replaced by the capitalised relationship name.
    private func method(_ signature: String, _ body: [String], _ writer: inout SwiftSourceWriter, last: Bool = false) {
        let declaration = signature.replacingFirst("X", with: name)
        writer.block("public func \(declaration)") { writer in
            for line in body { writer.line(line) }
        }
        if !last { writer.blankLine() }
    }
}

extension String {
    fileprivate func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let index = firstIndex(of: target) else { return self }
        return String(self[..<index]) + replacement + String(self[index...].dropFirst())
    }
}

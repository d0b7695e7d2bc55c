import Foundation

/// The text `strata model describe` prints for people: the model's versions and
/// configurations, then each entity with its version hash, attributes, relationships, fetched
/// properties, indexes and constraints in aligned columns (properties' own version hashes are
/// in the JSON).
///
/// ```
/// Todos.xcdatamodeld  version Todos (current)  checksum 3Fq…=
/// Entity Todo  class TodoEntity  hash 9xk…=
///   attributes
///     title      String  default ""
///   relationships
///     tags       -> Tag  to-many  inverse todos  Nullify
/// ```
enum ModelDescriptionText {
    /// The model's header lines, then one block per entity.
    static func render(_ description: ModelDescription) -> String {
        var lines: [String] = []
        var header = "\(description.source)  (\(description.kind))"
        if let version = description.version { header += "  version \(version)" }
        lines.append(header)
        if let versions = description.versions { lines.append("versions: \(versions.joined(separator: ", "))") }
        let identifiers = description.versionIdentifiers.filter { !$0.isEmpty }
        if !identifiers.isEmpty { lines.append("version identifiers: \(identifiers.joined(separator: ", "))") }
        lines.append("version checksum: \(description.versionChecksum)")
        lines.append("entities: \(description.entities.count)")
        for configuration in description.configurations {
            lines.append("configuration \(configuration.name): \(configuration.entities.joined(separator: ", "))")
        }
        for template in description.fetchRequestTemplates {
            let predicate = template.predicate.map { " where \($0)" } ?? ""
            lines.append("fetch request \(template.name): \(template.entity ?? "?")\(predicate)")
        }
        for entity in description.entities {
            lines.append("")
            lines += entityLines(entity)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An entity's block; sections without content are left out.
    private static func entityLines(_ entity: ModelDescription.Entity) -> [String] {
        var title = "entity \(entity.name)"
        if entity.isAbstract { title += "  abstract" }
        if let parent = entity.parent { title += "  parent \(parent)" }
        title += "  class \(entity.className)"
        var lines = [title, "  version hash \(entity.versionHash)"]
        if let modifier = entity.versionHashModifier { lines.append("  version hash modifier \(modifier)") }
        if let renaming = entity.renamingIdentifier { lines.append("  renaming identifier \(renaming)") }
        if !entity.subentities.isEmpty { lines.append("  subentities \(entity.subentities.joined(separator: ", "))") }
        if !entity.attributes.isEmpty {
            lines.append("  attributes")
            lines += table(entity.attributes.map { [$0.name, $0.type, attributeTraits($0)] })
        }
        if !entity.relationships.isEmpty {
            lines.append("  relationships")
            lines += table(entity.relationships.map { ["\($0.name)", "-> \($0.destination)", relationshipTraits($0)] })
        }
        if !entity.fetchedProperties.isEmpty {
            lines.append("  fetched properties")
            lines += table(
                entity.fetchedProperties.map { [$0.name, "-> \($0.entity ?? "?")", $0.predicate.map { "where \($0)" } ?? ""] })
        }
        if !entity.indexes.isEmpty {
            lines.append("  indexes")
            lines += table(
                entity.indexes.map {
                    [$0.name, "(\($0.elements.joined(separator: ", ")))", $0.partialPredicate.map { "where \($0)" } ?? ""]
                }
            )
        }
        if !entity.uniquenessConstraints.isEmpty {
            lines.append("  uniqueness constraints")
            lines += entity.uniquenessConstraints.map { "    (\($0.joined(separator: ", ")))" }
        }
        return lines
    }

    /// What sets an attribute apart from the defaults, in words.
    private static func attributeTraits(_ attribute: ModelDescription.Attribute) -> String {
        var traits: [String] = [attribute.isOptional ? "optional" : "required"]
        if attribute.isTransient { traits.append("transient") }
        if attribute.isIndexed { traits.append("indexed") }
        if let value = attribute.defaultValue { traits.append("default \(quoted(value))") }
        if let derivation = attribute.derivation { traits.append("derived \(derivation)") }
        if attribute.allowsExternalBinaryDataStorage { traits.append("external storage") }
        if let transformer = attribute.valueTransformerName { traits.append("transformer \(transformer)") }
        if let className = attribute.valueClassName { traits.append("class \(className)") }
        if let composite = attribute.compositeType { traits.append("composite \(composite)") }
        if let min = attribute.minValue { traits.append("min \(min)") }
        if let max = attribute.maxValue { traits.append("max \(max)") }
        if let pattern = attribute.regularExpression { traits.append("matches \(quoted(pattern))") }
        if attribute.preservesValueInHistoryOnDeletion { traits.append("kept in history") }
        return traits.joined(separator: "  ")
    }

    /// Cardinality, inverse, delete rule and counts of a relationship, in words.
    private static func relationshipTraits(_ relationship: ModelDescription.Relationship) -> String {
        var traits = [relationship.isToMany ? (relationship.isOrdered ? "to-many ordered" : "to-many") : "to-one"]
        traits.append(relationship.isOptional ? "optional" : "required")
        if relationship.isTransient { traits.append("transient") }
        traits.append(relationship.inverse.map { "inverse \($0)" } ?? "no inverse")
        traits.append("delete \(relationship.deleteRule)")
        if relationship.isToMany {
            traits.append("min \(relationship.minCount) max \(relationship.maxCount == 0 ? "-" : String(relationship.maxCount))")
        }
        return traits.joined(separator: "  ")
    }

    /// Rows with their columns padded to the widest cell, indented under their heading.
    private static func table(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            return ("    " + cells.joined(separator: "  ")).trimmingSuffixWhitespace()
        }
    }

    /// A value in double quotes, so that spaces and empty strings show.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// Text helpers of the description.
extension String {
    /// The text without trailing spaces (a padded last column leaves some).
    func trimmingSuffixWhitespace() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

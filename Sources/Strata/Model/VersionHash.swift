import Foundation

/// Version hashes: the 32-byte digests by which Core Data tells whether a store was written
/// with a given model (`NSStoreModelVersionHashes` in store metadata).
///
/// Apple documents what a hash covers, not its bytes. This construction was reconstructed
/// and checked against every entity hash recorded in the Apple-written stores of the test
/// corpus (95 of 95, see `VersionHashTests`). Each hash is SHA-256 over plain
/// concatenation: strings are UTF-8 without terminator (nothing for `nil`), integers are
/// little-endian.
///
/// - Property: `name`, a 16-bit flag word (optional 1, transient 2, read-only 4), `versionHashModifier`.
/// - Attribute: SHA-256 of the property hash, the 32-bit attribute type, then one byte
///   `01` each for external binary storage and for preserving the value in history.
/// - Derived attribute: only its derivation expression counts, in `NSExpression` format
///   (`pages.@count` is `count:(pages)`).
/// - Relationship: SHA-256 of the property hash, the destination's name, the inverse's name
///   (unless the relationship is its own inverse), the 32-bit maximum and minimum counts,
///   and a 16-bit `1` when ordered. The delete rule does not count.
/// - Entity: name, one byte for abstract, the superentity's hash, the hashes of every stored
///   (non-transient) attribute and relationship including inherited ones in name order, the
///   `versionHashModifier`, and each uniqueness constraint's names joined with "." in sorted order.
enum VersionHash {
    static func hash(of entity: NSEntityDescription) -> Data {
        var hasher = SHA256()
        hasher.update(entity.name?.utf8 ?? "".utf8)
        hasher.update([entity.isAbstract ? 1 : 0])
        // A circular inheritance chain (an invalid model) hashes as if it ended there.
        if let superentity = entity.superentity, !superentity.selfAndAncestors.contains(where: { $0 === entity }) {
            hasher.update(hash(of: superentity))
        }
        let stored = entity.properties.filter { property in
            !property.isTransient && (property is NSAttributeDescription || property is NSRelationshipDescription)
        }
        for property in stored.sorted(by: { codeUnitOrder($0.name, $1.name) }) {
            hasher.update(hash(of: property))
        }
        hasher.update(entity.versionHashModifier?.utf8 ?? "".utf8)
        let constraints = entity.uniquenessConstraints.map { constraint in
            constraint.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name }.joined(separator: ".")
        }
        for constraint in constraints.sorted(by: codeUnitOrder) { hasher.update(constraint.utf8) }
        return Data(hasher.finalize())
    }

    static func hash(of property: NSPropertyDescription) -> Data {
        switch property {
        case let derived as NSDerivedAttributeDescription:
            return Data(SHA256.hash(expressionFormat(of: derived).utf8))
        case let composite as NSCompositeAttributeDescription:
            var hasher = SHA256()
            for element in leafElements(of: composite).sorted(by: { codeUnitOrder($0.name, $1.name) }) {
                hasher.update(hash(of: element))
            }
            return Data(hasher.finalize())
        case let attribute as NSAttributeDescription:
            var hasher = SHA256()
            hasher.update(baseHash(of: attribute))
            hasher.update(littleEndian(Int32(truncatingIfNeeded: attribute.attributeType.rawValue)))
            if attribute.allowsExternalBinaryDataStorage { hasher.update([1]) }
            if attribute.preservesValueInHistoryOnDeletion { hasher.update([1]) }
            return Data(hasher.finalize())
        case let relationship as NSRelationshipDescription:
            var hasher = SHA256()
            hasher.update(baseHash(of: relationship))
            hasher.update(relationship.destinationName?.utf8 ?? "".utf8)
            if relationship.inverseRelationship !== relationship, let inverse = relationship.inverseRelationshipName,
                !(inverse == relationship.name && relationship.inverseEntityNameInModel == relationship.entity?.name)
            {
                hasher.update(inverse.utf8)
            }
            hasher.update(littleEndian(Int32(truncatingIfNeeded: relationship.maxCount)))
            hasher.update(littleEndian(Int32(truncatingIfNeeded: relationship.minCount)))
            if relationship.isOrdered { hasher.update(littleEndian(UInt16(1))) }
            return Data(hasher.finalize())
        default:
            return Data(baseHash(of: property))
        }
    }

    /// The hash over what every property has.
    private static func baseHash(of property: NSPropertyDescription) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(property.name.utf8)
        let flags: UInt16 = (property.isOptional ? 1 : 0) | (property.isTransient ? 2 : 0) | (property.isReadOnly ? 4 : 0)
        hasher.update(littleEndian(flags))
        hasher.update(property.versionHashModifier?.utf8 ?? "".utf8)
        return hasher.finalize()
    }

    /// The derivation as `NSExpression.description` prints it: aggregates of key paths print
    /// as functions (`count:(pages)`); other forms print as written.
    static func expressionFormat(of derived: NSDerivedAttributeDescription) -> String {
        switch derived.derivation {
        case .count(let relationship): "count:(\(relationship))"
        case .sum(let relationship, let attribute): "sum:(\(relationship).\(attribute))"
        default: derived.derivationExpressionFormat ?? ""
        }
    }

    private static func leafElements(of composite: NSCompositeAttributeDescription) -> [NSAttributeDescription] {
        composite.elements.flatMap { element -> [NSAttributeDescription] in
            if let nested = element as? NSCompositeAttributeDescription { return leafElements(of: nested) }
            return element.isTransient ? [] : [element]
        }
    }

    /// Names compare by UTF-16 code units, as Foundation's literal string comparison does.
    static func codeUnitOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf16.lexicographicallyPrecedes(rhs.utf16)
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

extension NSManagedObjectModel {
    /// A digest of all entity version hashes (base64 of SHA-256 over the hashes in entity
    /// name order), as stores record it in `NSStoreModelVersionChecksumKey`.
    public var versionChecksum: String {
        var hasher = SHA256()
        for (_, hash) in entityVersionHashesByName.sorted(by: { VersionHash.codeUnitOrder($0.key, $1.key) }) {
            hasher.update(hash)
        }
        return Data(hasher.finalize()).base64EncodedString()
    }
}

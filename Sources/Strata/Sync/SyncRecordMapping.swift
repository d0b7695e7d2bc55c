import Foundation
import StrataSyncProtocol

/// How objects become records, as CloudKit's mirroring of Core Data does it: a record of type
/// `CD_<root entity>` per object, named `CD_<Entity>_<UUID>` once and for good; attribute `foo`
/// as field `CD_foo`; a to-one relationship as a `reference` field holding the related record's
/// name; a many-to-many link as a `CDMR` record of its own whose name is derived from what it
/// links, so that two devices adding the same link make the same record.
enum SyncRecordMapping {
    /// The record type of many-to-many links ("mirrored relationship").
    static let linkRecordType = "CDMR"
    /// The field every object record carries with its real entity, as inheritance flattens a
    /// hierarchy into the root's record type.
    static let entityNameField = "CD_entityName"
    /// Binary values larger than this travel as assets, uploaded before the push.
    static let assetThreshold = 64 * 1024

    /// The record type of an entity's objects: its root entity's name after `CD_`.
    static func recordType(of entity: NSEntityDescription) -> String {
        var root = entity
        while let parent = root.superentity { root = parent }
        return "CD_" + (root.name ?? "")
    }

    /// A new record name for an object of the entity.
    ///
    /// The UUID is a time-ordered one (version 7 of RFC 9562: the milliseconds since 1970, then
    /// random bits), so that the names a device makes one after another sort one after another:
    /// the sync tables' indexes on record names then grow at one end instead of taking every
    /// new name at a random place (which, past SQLite's page cache, made each save of a large
    /// import rewrite thousands of index pages).
    static func newRecordName(for entity: NSEntityDescription, at date: Date = Date()) -> String {
        "CD_\(entity.name ?? "")_\(timeOrderedUUID(at: date).uuidString)"
    }

    /// A version 7 UUID: 48 bits of Unix time in milliseconds, the version, 74 random bits and
    /// the variant.
    static func timeOrderedUUID(at date: Date) -> UUID {
        var random = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        let high = random.next()
        let low = random.next()
        for index in 6..<16 {
            let word = index < 11 ? high : low
            bytes[index] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index % 8)))
        }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)
        bytes[8] = 0x80 | (bytes[8] & 0x3F)
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The field of a property.
    static func field(of property: NSPropertyDescription) -> String { "CD_" + property.name }

    /// A short text that is equal for two field values exactly when the values are equal, kept
    /// beside a field's clock: the value this store last sent or received for the field. The
    /// exporter gives a field a new clock only when its value differs from it, so that an edit
    /// that writes a property with the value it already had (Core Data counts that as a change)
    /// does not outdate another device's real edit of the same field. Small values are their
    /// own text; bytes, and an asset of the same bytes, are their SHA-256, as is any text past
    /// 64 bytes.
    static func digest(of value: FieldValue) -> String {
        let text: String
        switch value {
        case .null: return "n"
        case .int(let number): return "i\(number)"
        case .double(let number): return "d\(number.bitPattern)"
        case .bool(let flag): return flag ? "b1" : "b0"
        case .date(let seconds): return "t\(seconds.bitPattern)"
        case .uuid(let uuid): return "u" + uuid.uuidString
        case .bytes(let data): return "h" + hexSHA256(data)
        case .asset(let reference): return "h" + reference.sha256.lowercased()
        case .string(let string): text = "s" + string
        case .decimal(let string): text = "m" + string
        case .url(let string): text = "l" + string
        case .reference(let name): text = "r" + name
        }
        return text.utf8.count <= 64 ? text : "H" + hexSHA256(Data(text.utf8))
    }

    /// The SHA-256 of bytes in lowercase hex, as asset references name their bytes.
    static func hexSHA256(_ data: Data) -> String {
        SHA256.hash(Array(data)).map { String(format: "%02x", $0) }.joined()
    }

    /// How a relationship travels: on its own record (to-one), as link records (many-to-many),
    /// or not at all (the to-many side of a one-to-many, which the other side carries).
    enum RelationshipForm: Equatable {
        case reference
        case links
        case carriedByInverse
    }

    static func form(of relationship: NSRelationshipDescription) -> RelationshipForm {
        if !relationship.isToMany { return .reference }
        if let inverse = relationship.inverseRelationship, !inverse.isToMany { return .carriedByInverse }
        return .links
    }

    /// The attributes that sync: stored ones whose values have a field form.
    static func syncedAttributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.properties.compactMap { property in
            guard let attribute = property as? NSAttributeDescription, !attribute.isTransient,
                !(attribute is NSDerivedAttributeDescription)
            else { return nil }
            switch attribute.attributeType {
            case .objectIDAttributeType, .undefinedAttributeType: return nil
            default: return attribute
            }
        }
    }

    /// The relationships that travel as link records or references.
    static func syncedRelationships(of entity: NSEntityDescription) -> [NSRelationshipDescription] {
        entity.properties.compactMap { property in
            guard let relationship = property as? NSRelationshipDescription, !relationship.isTransient,
                form(of: relationship) != .carriedByInverse
            else { return nil }
            return relationship
        }
    }

    // MARK: Indexes

    /// The kind of field an attribute's values take (`fieldValue(_:of:)`), nil for none.
    static func fieldKind(of attribute: NSAttributeDescription) -> FieldValue.Kind? {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: .int
        case .doubleAttributeType, .floatAttributeType: .double
        case .booleanAttributeType: .bool
        case .decimalAttributeType: .decimal
        case .stringAttributeType: .string
        case .dateAttributeType: .date
        case .binaryDataAttributeType, .transformableAttributeType, .compositeAttributeType: .bytes
        case .UUIDAttributeType: .uuid
        case .URIAttributeType: .url
        default: nil
        }
    }

    /// The server indexes a model asks for: each synced attribute the model indexes
    /// (`isIndexed`, or an element of one of its entity's fetch indexes) whose kind the server
    /// can order, on the record type of its root entity; queryable and sortable, as CloudKit's
    /// dashboard marks a field's indexes.
    static func indexes(of model: NSManagedObjectModel) -> [FieldIndex] {
        var found: [String: FieldIndex] = [:]
        for entity in model.entities {
            var root = entity
            while let parent = root.superentity { root = parent }
            let indexed = Set(entity.indexes.flatMap { $0.elements.compactMap { $0.property?.name ?? $0.propertyName } })
            for attribute in syncedAttributes(of: entity) where attribute.isIndexed || indexed.contains(attribute.name) {
                guard let kind = fieldKind(of: attribute), [.string, .int, .double, .date, .bool, .uuid].contains(kind)
                else { continue }
                let index = FieldIndex(recordType: recordType(of: root), field: field(of: attribute), kind: kind)
                found["\(index.recordType).\(index.field)"] = index
            }
        }
        return found.keys.sorted().compactMap { found[$0] }
    }

    // MARK: Values

    /// An attribute's value as a field value; `nil` when the value has no field form (a
    /// transformable value that is not bytes). Large bytes are left as `.bytes`: the exporter
    /// turns them into assets.
    static func fieldValue(_ value: Any?, of attribute: NSAttributeDescription) -> FieldValue? {
        guard let value, !(value is NSNull) else { return .null }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return (value as? NSNumber).map { .int($0.int64Value) } ?? (value as? Int).map { .int(Int64($0)) }
        case .doubleAttributeType, .floatAttributeType:
            return (value as? NSNumber).map { .double($0.doubleValue) } ?? (value as? Double).map { .double($0) }
        case .booleanAttributeType:
            return (value as? NSNumber).map { .bool($0.boolValue) } ?? (value as? Bool).map { .bool($0) }
        case .decimalAttributeType:
            if let decimal = value as? Decimal { return .decimal("\(decimal)") }
            return (value as? NSDecimalNumber).map { .decimal($0.stringValue) }
        case .stringAttributeType:
            return (value as? String).map { .string($0) }
        case .dateAttributeType:
            return (value as? Date).map { .date($0.timeIntervalSinceReferenceDate) }
        case .binaryDataAttributeType, .transformableAttributeType:
            return (value as? Data).map { .bytes($0) }
        case .UUIDAttributeType:
            return (value as? UUID).map { .uuid($0) }
        case .URIAttributeType:
            return (value as? URL).map { .url($0.absoluteString) }
        case .compositeAttributeType:
            // One field holding the composite's elements as a binary property list (the form a
            // history tombstone keeps it in).
            guard let composite = attribute as? NSCompositeAttributeDescription,
                let data = try? PropertyListValues.compositeData(value, attribute: composite)
            else { return nil }
            return .bytes(data)
        default:
            return nil
        }
    }

    /// A field value as the attribute's value (`NSNull` for null); `nil` when the field's kind
    /// does not fit the attribute (another client's model): such a field is left alone.
    static func attributeValue(_ field: FieldValue, of attribute: NSAttributeDescription) -> Any? {
        switch (field, attribute.attributeType) {
        case (.null, _): return NSNull()
        case (.int(let value), .integer16AttributeType): return NSNumber(value: Int16(truncatingIfNeeded: value))
        case (.int(let value), .integer32AttributeType): return NSNumber(value: Int32(truncatingIfNeeded: value))
        case (.int(let value), .integer64AttributeType): return NSNumber(value: value)
        case (.double(let value), .doubleAttributeType): return NSNumber(value: value)
        case (.double(let value), .floatAttributeType): return NSNumber(value: Float(value))
        case (.int(let value), .doubleAttributeType): return NSNumber(value: Double(value))
        case (.bool(let value), .booleanAttributeType): return NSNumber(value: value)
        case (.decimal(let text), .decimalAttributeType):
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { NSDecimalNumber(decimal: $0) }
        case (.string(let value), .stringAttributeType): return value
        case (.date(let seconds), .dateAttributeType): return Date(timeIntervalSinceReferenceDate: seconds)
        case (.bytes(let data), .binaryDataAttributeType), (.bytes(let data), .transformableAttributeType): return data
        case (.bytes(let data), .compositeAttributeType):
            return (attribute as? NSCompositeAttributeDescription).flatMap {
                PropertyListValues.compositeValue(from: data, attribute: $0)
            }
        case (.uuid(let value), .UUIDAttributeType): return value
        case (.url(let text), .URIAttributeType): return URL(string: text)
        default: return nil
        }
    }

    // MARK: Many-to-many links

    /// One end of a many-to-many link: the object's record and the relationship from it.
    struct LinkEnd: Hashable, Sendable, Comparable {
        var entity: String
        var recordName: String
        var relationship: String

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.recordName, lhs.relationship, lhs.entity) < (rhs.recordName, rhs.relationship, rhs.entity)
        }
    }

    /// The record name of the link between two ends: a hash of both ends, sorted, so that
    /// whichever side (and device) adds the link names it the same.
    static func linkRecordName(_ one: LinkEnd, _ other: LinkEnd) -> String {
        let (first, second) = one < other ? (one, other) : (other, one)
        let text = [first.recordName, first.relationship, second.recordName, second.relationship].joined(separator: "\u{1F}")
        let digest = SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
        return "CDMR_" + digest
    }

    /// A link's fields: both ends, sorted as in its name.
    static func linkFields(_ one: LinkEnd, _ other: LinkEnd) -> [String: FieldValue] {
        let (first, second) = one < other ? (one, other) : (other, one)
        return [
            "CD_entity1": .string(first.entity), "CD_recordName1": .reference(first.recordName),
            "CD_relationship1": .string(first.relationship),
            "CD_entity2": .string(second.entity), "CD_recordName2": .reference(second.recordName),
            "CD_relationship2": .string(second.relationship),
        ]
    }

    /// The two ends a link record's fields name; nil for fields that do not.
    static func linkEnds(of fields: [String: FieldValue]) -> (LinkEnd, LinkEnd)? {
        func text(_ key: String) -> String? {
            switch fields[key] {
            case .string(let value), .reference(let value): value
            default: nil
            }
        }
        guard let entity1 = text("CD_entity1"), let record1 = text("CD_recordName1"),
            let relationship1 = text("CD_relationship1"), let entity2 = text("CD_entity2"),
            let record2 = text("CD_recordName2"), let relationship2 = text("CD_relationship2")
        else { return nil }
        return (
            LinkEnd(entity: entity1, recordName: record1, relationship: relationship1),
            LinkEnd(entity: entity2, recordName: record2, relationship: relationship2)
        )
    }
}

extension FieldValue {
    /// The SHA-256 of the asset a field names; nil for values carried in the record.
    var assetHash: String? {
        if case .asset(let reference) = self { reference.sha256 } else { nil }
    }
}

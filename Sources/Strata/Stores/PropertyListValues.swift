import Foundation

/// Property values as property-list objects, for the stores that keep rows in property lists
/// (the binary store's file, persistent history's recorded values): decimals, UUIDs and URIs
/// as strings, transformable values transformed, relationships as `[entity name, key]` pairs.
enum PropertyListValues {
    /// Throws when a transformable value cannot be transformed (the save then fails).
    static func encode(_ value: Any?, index: Int, layout: EntityLayout) throws -> Any? {
        guard let value else { return nil }
        switch layout.kinds[index] {
        case .toOne:
            return (value as? NSManagedObjectID).map(reference)
        case .toMany:
            return (value as? [NSManagedObjectID])?.map(reference)
        default:
            guard let attribute = layout.properties[index] as? NSAttributeDescription else { return nil }
            return try encode(value, attribute: attribute)
        }
    }

    /// An attribute's value (a composite's as a dictionary of its elements' encoded values).
    static func encode(_ value: Any, attribute: NSAttributeDescription) throws -> Any? {
        if let composite = attribute as? NSCompositeAttributeDescription {
            if let problem = CompositeValues.problem(with: value, of: composite) {
                throw CoreDataError.make(
                    NSManagedObjectValidationError, "\(attribute.entity?.name ?? "?").\(attribute.name): \(problem).",
                    userInfo: [NSValidationKeyErrorKey: attribute.name])
            }
            var encoded: [String: Any] = [:]
            for element in composite.elements {
                guard let elementValue = CompositeValues.value(at: [element.name], in: value) else { continue }
                encoded[element.name] = try encode(elementValue, attribute: element)
            }
            return encoded
        }
        // Before the cases by value type: a transformable string or data is transformed too.
        if attribute.attributeType == .transformableAttributeType {
            return try TransformableValue.forward(value, attribute: attribute)
        }
        switch value {
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).stringValue
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let bool as Bool: return bool
        case let date as Date: return date
        case let text as String: return text
        case let data as Data: return data
        default:
            if let number = NumberValue.double(value), attribute.attributeType.isNumeric, !attribute.attributeType.isInteger {
                return NSNumber(value: number)
            }
            return NumberValue.int64(value).map { NSNumber(value: $0) }
        }
    }

    private static func reference(_ id: NSManagedObjectID) -> [Any] {
        [id.entity.name ?? "", NSNumber(value: id.primaryKey)]
    }

    static func decode(
        _ stored: Any?, index: Int, layout: EntityLayout, entities: [String: NSEntityDescription],
        objectID: (NSEntityDescription, Int64) -> NSManagedObjectID
    ) -> Any? {
        func id(_ reference: Any) -> NSManagedObjectID? {
            guard let pair = reference as? [Any], pair.count == 2, let name = pair[0] as? String, let entity = entities[name],
                let key = (pair[1] as? NSNumber)?.int64Value
            else { return nil }
            return objectID(entity, key)
        }
        switch layout.kinds[index] {
        case .toOne: return stored.flatMap(id)
        case .toMany: return ((stored as? [Any]) ?? []).compactMap(id)
        default:
            guard let stored, let attribute = layout.properties[index] as? NSAttributeDescription else { return nil }
            return decode(stored, attribute: attribute)
        }
    }

    /// A composite's value as bytes, where one column or field holds it all (a history
    /// tombstone, a sync record): a binary property list of its elements as a flat array of
    /// names and values sorted by name, so that equal values give equal bytes (a dictionary's
    /// order changes from one process to the next).
    static func compositeData(_ value: Any, attribute: NSCompositeAttributeDescription) throws -> Data? {
        func pairs(_ value: Any) -> Any {
            guard let dictionary = value as? [String: Any] else { return value }
            return dictionary.keys.sorted().flatMap { key in [key, dictionary[key].map(pairs) ?? NSNull()] }
        }
        guard let plist = try encode(value, attribute: attribute) else { return nil }
        return try PropertyListSerialization.data(fromPropertyList: pairs(plist), format: .binary, options: 0)
    }

    /// The composite value of `compositeData`'s bytes.
    static func compositeValue(from data: Data, attribute: NSCompositeAttributeDescription) -> Any? {
        (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil))
            .flatMap { decode($0, attribute: attribute) }
    }

    static func decode(_ stored: Any, attribute: NSAttributeDescription) -> Any? {
        if let composite = attribute as? NSCompositeAttributeDescription {
            var dictionary = stored as? [String: Any]
            if dictionary == nil, let pairs = stored as? [Any], pairs.count % 2 == 0 {
                dictionary = [:]
                for offset in stride(from: 0, to: pairs.count, by: 2) {
                    guard let name = pairs[offset] as? String else { return nil }
                    dictionary?[name] = pairs[offset + 1]
                }
            }
            guard let dictionary else { return nil }
            var values: [String: Any] = [:]
            for element in composite.elements {
                guard let value = dictionary[element.name] else { continue }
                values[element.name] = decode(value, attribute: element)
            }
            return values
        }
        switch attribute.attributeType {
        case .decimalAttributeType: return (stored as? String).flatMap { Decimal(string: $0) }
        case .UUIDAttributeType: return (stored as? String).flatMap { UUID(uuidString: $0) }
        case .URIAttributeType: return (stored as? String).flatMap { URL(string: $0) }
        case .transformableAttributeType:
            return (stored as? Data).flatMap { TransformableValue.reverse($0, attribute: attribute) }
        default: return ManagedValueCoercion.attributeValue(stored, type: attribute.attributeType) ?? stored
        }
    }
}

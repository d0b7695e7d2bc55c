import Foundation

/// Recorded history values (tombstones, an update's old and new values) by property name, as a
/// binary property list, in the forms `PropertyListValues` gives them: the same bytes for
/// every store that keeps them.
enum HistoryValueCoding {
    /// The values as a property-list dictionary (names the entity does not have are left out).
    static func plist(_ values: [String: Any], entity: NSEntityDescription) throws -> [String: Any] {
        let layout = entity.layout
        var stored: [String: Any] = [:]
        for (name, value) in values {
            guard let index = layout.indexByName[name] else { continue }
            if let encoded = try PropertyListValues.encode(value, index: index, layout: layout) { stored[name] = encoded }
        }
        return stored
    }

    static func encode(_ values: [String: Any], entity: NSEntityDescription) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: try plist(values, entity: entity), format: .binary, options: 0)
    }

    /// The values of a property-list dictionary, typed by the entity's properties.
    static func values(
        _ stored: [String: Any], entity: NSEntityDescription, objectID: (NSEntityDescription, Int64) -> NSManagedObjectID
    ) -> [String: Any] {
        let layout = entity.layout
        let entities = entity.managedObjectModel?.entitiesByName ?? [:]
        var values: [String: Any] = [:]
        for (name, value) in stored {
            guard let index = layout.indexByName[name],
                let decoded = PropertyListValues.decode(
                    value, index: index, layout: layout, entities: entities, objectID: objectID)
            else { continue }
            values[name] = decoded
        }
        return values
    }

    static func decode(
        _ data: Data?, entity: NSEntityDescription, objectID: (NSEntityDescription, Int64) -> NSManagedObjectID
    ) -> [String: Any]? {
        guard let data,
            let stored = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
        else { return nil }
        return values(stored, entity: entity, objectID: objectID)
    }
}

import Foundation
import Strata

/// Reads an export (`GraphExport`) into a store, all or nothing: every object is made in one
/// context and saved once, so that any error leaves the store as it was.
///
/// Into an empty store, objects keep their primary keys (and so their ids): each hierarchy's
/// objects are inserted in key order, with a placeholder object where a key is missing that is
/// given its permanent ID and then deleted before the save. Exporting the imported store then
/// writes the same file.
struct GraphImport {
    let store: OpenedStore
    /// The export, parsed.
    let entities: [String: [[String: Any]]]

    /// Parses an export file, or fails naming what is wrong with it.
    static func parse(_ data: Data, path: String) throws -> [String: [[String: Any]]] {
        let json: Any
        do {
            json = try ExportJSONParser.parse(data)
        } catch {
            throw StoreToolFailure("import: \(path) is not JSON (\(error))")
        }
        guard let root = json as? [String: Any], root["format"] as? String == "strata-store-export" else {
            throw StoreToolFailure("import: \(path) is not a strata store export (no \"format\": \"strata-store-export\")")
        }
        guard let entities = root["entities"] as? [String: Any] else {
            throw StoreToolFailure("import: \(path) has no \"entities\" object")
        }
        var parsed: [String: [[String: Any]]] = [:]
        for (name, objects) in entities {
            guard let list = objects as? [[String: Any]] else {
                throw StoreToolFailure("import: \"\(name)\" is not a list of objects")
            }
            parsed[name] = list
        }
        return parsed
    }

    /// Inserts every object, sets its values and relationships, and saves once; returns the
    /// number of objects imported and the transformable values to write as stored bytes.
    func run() throws -> (count: Int, transformables: [(attribute: NSAttributeDescription, primaryKey: Int64, bytes: Data)]) {
        let context = store.newContext()
        let total = entities.values.reduce(0) { $0 + $1.count }
        let progress = ProgressBar("import", total: total * 2 + 1)
        defer { progress.finish() }
        return try context.performAndWait {
            // The objects hold one another through their relationships, which would keep them
            // alive once the context is gone: faulting them breaks the cycles.
            defer { context.reset() }
            var records: [(id: String, entity: NSEntityDescription, values: [String: Any], key: Int64?)] = []
            records.reserveCapacity(total)
            for name in entities.keys.sorted() {
                guard let entity = store.model.entitiesByName[name] else {
                    let names = store.model.entities.compactMap(\.name).sorted().joined(separator: ", ")
                    throw StoreToolFailure("import: unknown entity '\(name)' (the store's entities: \(names))")
                }
                guard !entity.isAbstract else { throw StoreToolFailure("import: entity '\(name)' is abstract") }
                for values in entities[name] ?? [] {
                    guard let id = values["@id"] as? String else {
                        throw StoreToolFailure("import: an object of \(name) has no \"@id\"")
                    }
                    for key in values.keys where key != "@id" && entity.propertiesByName[key] == nil {
                        throw StoreToolFailure("import: \(id): unknown key '\(key)' on entity \(name)")
                    }
                    records.append((id, entity, values, Self.primaryKey(of: id, entity: name)))
                }
            }
            let empty = try isEmpty(context)
            let objects = try insert(records.map { ($0.id, $0.entity, $0.key) }, into: context, keepingKeys: empty)
            var done = 0
            var transformables: [(object: NSManagedObject, attribute: NSAttributeDescription, bytes: Data)] = []
            for record in records {
                guard let object = objects[record.id] else { continue }
                for attribute in record.entity.attributesByName.values {
                    if attribute.isTransient || attribute is NSDerivedAttributeDescription { continue }
                    guard let json = record.values[attribute.name] else {
                        // Absent means nil, not the model's default value.
                        if attribute.defaultValue != nil { object.setValue(nil, forKey: attribute.name) }
                        continue
                    }
                    if attribute.attributeType == .transformableAttributeType, !(json is NSNull) {
                        guard let text = json as? String, let bytes = Data(base64Encoded: text) else {
                            throw StoreToolFailure("import: \(record.id).\(attribute.name) is not base64 data")
                        }
                        // The exact bytes are written after the save; an optional value need not
                        // be unarchived at all, a required one is set for validation.
                        transformables.append((object, attribute, bytes))
                        if attribute.isOptional { continue }
                        let transformer = GraphValueCoding.transformer(of: attribute)
                        object.setValue(transformer?.transformedValue(bytes) ?? bytes, forKey: attribute.name)
                        continue
                    }
                    object.setValue(try GraphValueCoding.read(json, for: attribute, object: record.id), forKey: attribute.name)
                }
                done += 1
                progress.update(done)
            }
            for record in records {
                guard let object = objects[record.id] else { continue }
                for (key, json) in record.values where key != "@id" {
                    guard let relationship = record.entity.relationshipsByName[key] else { continue }
                    // Both sides' ids are checked; one side is set (the context sets the other).
                    try link(object, relationship, json, id: record.id, objects: objects, set: Self.setsSide(relationship))
                }
                done += 1
                progress.update(done)
            }
            do {
                try context.save()
            } catch {
                throw StoreToolFailure("import: nothing was imported: \(StoreTool.describe(error))")
            }
            progress.update(done + 1)
            return (
                records.count,
                transformables.compactMap { value in
                    value.object.objectID.primaryKey.map { (value.attribute, $0, value.bytes) }
                }
            )
        }
    }

    /// The primary key in an id `Entity/pN` naming that entity.
    static func primaryKey(of id: String, entity: String) -> Int64? {
        guard id.hasPrefix(entity + "/p") else { return nil }
        return Int64(id.dropFirst(entity.count + 2))
    }

    private func isEmpty(_ context: NSManagedObjectContext) throws -> Bool {
        for entity in store.model.entities where entity.superentity == nil {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
            if try context.count(for: request) > 0 { return false }
        }
        return true
    }

    /// Inserts the objects; into an empty store, with the keys their ids name.
    private func insert(
        _ records: [(id: String, entity: NSEntityDescription, key: Int64?)], into context: NSManagedObjectContext,
        keepingKeys: Bool
    ) throws -> [String: NSManagedObject] {
        var objects: [String: NSManagedObject] = [:]
        objects.reserveCapacity(records.count)
        var byRoot: [String: [(id: String, entity: NSEntityDescription, key: Int64?)]] = [:]
        for record in records {
            var root = record.entity
            while let parent = root.superentity { root = parent }
            byRoot[root.name ?? "", default: []].append(record)
        }
        for rootName in byRoot.keys.sorted() {
            var group = byRoot[rootName] ?? []
            let keys = group.compactMap(\.key)
            let maxKey = keys.max() ?? 0
            let gaps = maxKey - Int64(keys.count)
            let placeholderEntity = group.first?.entity
            // Keys are kept when every object has one, they are unique, and the holes between
            // them are few enough to fill with placeholders.
            let keepKeys =
                keepingKeys && keys.count == group.count && Set(keys).count == keys.count
                && gaps <= max(10_000, Int64(keys.count))
            if keepKeys { group.sort { ($0.key ?? 0) < ($1.key ?? 0) } }
            var inserted: [NSManagedObject] = []
            var placeholders: [NSManagedObject] = []
            var expected: Int64 = 1
            for record in group {
                if keepKeys, let key = record.key, let placeholderEntity {
                    while expected < key {
                        let placeholder = NSManagedObject(entity: placeholderEntity, insertInto: context)
                        inserted.append(placeholder)
                        placeholders.append(placeholder)
                        expected += 1
                    }
                    expected = key + 1
                }
                guard objects[record.id] == nil else { throw StoreToolFailure("import: the id \(record.id) appears twice") }
                let object = NSManagedObject(entity: record.entity, insertInto: context)
                inserted.append(object)
                objects[record.id] = object
            }
            if keepKeys {
                try context.obtainPermanentIDs(for: inserted)
                for placeholder in placeholders { context.delete(placeholder) }
            }
        }
        return objects
    }

    /// Whether the import sets this side of a relationship: one side of each pair is enough
    /// (the context maintains inverses), and an ordered side is always set so that its order
    /// is kept.
    static func setsSide(_ relationship: NSRelationshipDescription) -> Bool {
        guard let inverse = relationship.inverseRelationship else { return true }
        if relationship.isOrdered { return true }
        if inverse.isOrdered { return false }
        if relationship.isToMany != inverse.isToMany { return !relationship.isToMany }
        let mine = (relationship.entity.name ?? "", relationship.name)
        let theirs = (inverse.entity.name ?? "", inverse.name)
        return mine <= theirs
    }

    private func link(
        _ object: NSManagedObject, _ relationship: NSRelationshipDescription, _ json: Any, id: String,
        objects: [String: NSManagedObject], set: Bool
    ) throws {
        func target(_ value: Any) throws -> NSManagedObject {
            guard let targetID = value as? String else {
                throw StoreToolFailure("import: \(id).\(relationship.name): \(value) is not an id")
            }
            guard let found = objects[targetID] else {
                throw StoreToolFailure("import: \(id).\(relationship.name) names \(targetID), which is not in the file")
            }
            return found
        }
        if json is NSNull { return }
        if relationship.isToMany {
            guard let list = json as? [Any] else {
                throw StoreToolFailure("import: \(id).\(relationship.name) is not a list of ids")
            }
            let members = try list.map(target)
            guard set else { return }
            if relationship.isOrdered {
                object.setValue(NSOrderedSet(array: members), forKey: relationship.name)
            } else {
                object.setValue(NSSet(array: members), forKey: relationship.name)
            }
        } else {
            let related = try target(json)
            if set { object.setValue(related, forKey: relationship.name) }
        }
    }
}

import Foundation
import Strata

/// The whole object graph of a store written as JSON, one object per line, entity by entity:
///
/// ```json
/// {"format":"strata-store-export","version":1,"entities":{
/// "Tag":[
/// {"@id":"Tag/p1","title":"home","todos":["Todo/p1","Todo/p2"]}
/// ],
/// ...
/// }}
/// ```
///
/// Values are written so that they read back exactly (`GraphValueCoding`); relationships hold
/// the related objects' ids (`Entity/pN`). Objects are fetched a batch at a time and the
/// output is written as it is made, so memory stays flat however large the store.
struct GraphExport {
    let store: OpenedStore
    let output: OutputStream
    var batchSize = 2000

    /// The entities an export holds: every concrete entity, by name.
    static func exportedEntities(of model: NSManagedObjectModel) -> [NSEntityDescription] {
        model.entities.filter { !$0.isAbstract }.sorted { ($0.name ?? "") < ($1.name ?? "") }
    }

    func run() throws {
        let context = store.newContext()
        let entities = Self.exportedEntities(of: store.model)
        let progress = ProgressBar("export", total: 1)
        let hasTransformables = entities.contains { entity in
            entity.attributesByName.values.contains { $0.attributeType == .transformableAttributeType }
        }
        let raw = hasTransformables ? try TransformableColumns(storeURL: store.url, readOnly: true) : nil
        try context.performAndWait {
            var totals: [Int] = []
            for entity in entities {
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
                request.includesSubentities = false
                totals.append(try context.count(for: request))
            }
            let total = totals.reduce(0, +)
            var done = 0
            output.write("{\"format\":\"strata-store-export\",\"version\":1,\"entities\":{")
            for (index, entity) in entities.enumerated() {
                output.write(index == 0 ? "\n" : ",\n")
                output.appendJSONString(entity.name ?? "")
                output.write(":[")
                let writer = EntityWriter(entity: entity, transformables: raw)
                var first = true
                if totals[index] > 0 {
                    let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                    request.includesSubentities = false
                    request.fetchBatchSize = batchSize
                    request.relationshipKeyPathsForPrefetching = writer.prefetchedKeys
                    let objects = try context.fetchLazily(request)
                    for object in objects {
                        output.write(first ? "\n" : ",\n")
                        first = false
                        try writer.write(object, to: output)
                        done += 1
                        // The lazy results keep one batch; the context does not keep objects
                        // nothing holds, so memory stays that of a batch.
                        if done % batchSize == 0 { progress.update(done, total: total) }
                    }
                }
                output.write(first ? "]" : "\n]")
            }
            output.write("\n}}\n")
            progress.update(done, total: total)
        }
        progress.finish()
        output.flush()
    }
}

/// Writes the objects of one entity: its stored properties in a fixed order (by name).
struct EntityWriter {
    let attributes: [NSAttributeDescription]
    let relationships: [NSRelationshipDescription]
    let prefetchedKeys: [String]
    /// Where transformable values' bytes are read as stored.
    let transformables: TransformableColumns?

    init(entity: NSEntityDescription, transformables: TransformableColumns?) {
        self.transformables = transformables
        attributes = entity.attributesByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        relationships = entity.relationshipsByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
        prefetchedKeys = relationships.filter(\.isToMany).map(\.name)
    }

    func write(_ object: NSManagedObject, to output: OutputStream) throws {
        output.write("{\"@id\":")
        output.appendJSONString(object.objectID.toolIdentifier)
        for attribute in attributes {
            if attribute.attributeType == .transformableAttributeType, let transformables,
                transformables.location(of: attribute) != nil, let key = object.objectID.primaryKey
            {
                guard let bytes = try transformables.bytes(of: attribute, primaryKey: key) else { continue }
                output.append(UInt8(ascii: ","))
                output.appendJSONString(attribute.name)
                output.append(UInt8(ascii: ":"))
                output.appendJSONString(bytes.base64EncodedString())
                continue
            }
            // The stored value: no access notifications to send for an export.
            guard let value = object.primitiveValue(forKey: attribute.name) else { continue }
            output.append(UInt8(ascii: ","))
            output.appendJSONString(attribute.name)
            output.append(UInt8(ascii: ":"))
            try GraphValueCoding.write(value, of: attribute, to: output)
        }
        for relationship in relationships {
            let value = object.value(forKey: relationship.name)
            if relationship.isToMany {
                let members: [NSManagedObject]
                if let ordered = value as? NSOrderedSet {
                    members = ordered.array.compactMap { $0 as? NSManagedObject }
                } else if let set = value as? NSSet {
                    members = set.allObjects.compactMap { $0 as? NSManagedObject }
                } else {
                    members = []
                }
                guard !members.isEmpty else { continue }
                var ids = members.map(\.objectID.toolIdentifier)
                if !relationship.isOrdered { ids.sort(by: GraphValueCoding.idOrder) }
                output.append(UInt8(ascii: ","))
                output.appendJSONString(relationship.name)
                output.write(":[")
                for (index, id) in ids.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    output.appendJSONString(id)
                }
                output.append(UInt8(ascii: "]"))
            } else if let related = value as? NSManagedObject {
                output.append(UInt8(ascii: ","))
                output.appendJSONString(relationship.name)
                output.append(UInt8(ascii: ":"))
                output.appendJSONString(related.objectID.toolIdentifier)
            }
        }
        output.append(UInt8(ascii: "}"))
        output.flushIfFull()
    }
}

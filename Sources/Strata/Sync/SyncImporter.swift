import Foundation
internal import GRDB
import StrataSyncProtocol

/// Applies pulled records to the store, field by field: a remote field wins only over a local
/// field with an older clock (local edits were given their clocks when exported, just before),
/// a deletion wins over edits, and a record deleted here comes back only with a newer clock.
/// The importer saves through its own context with the importer's transaction author, so that
/// the exporter never sends its writes back; record names, clocks, links and the pull token go
/// in the same SQLite transaction as the objects.
struct SyncImporter {
    let store: NSPersistentStore
    let metadata: SyncMetadata

    /// What an import page changed.
    struct Outcome {
        var applied = 0
        var deferred = 0
    }

    /// The asset hashes the records' fields name, which the caller downloads first.
    static func assets(in records: [RecordState]) -> Set<String> {
        var hashes = Set<String>()
        for record in records {
            for value in record.fields.values { if case .asset(let reference) = value { hashes.insert(reference.sha256) } }
        }
        return hashes
    }

    /// Applies the records (after those deferred before), then stores the pull token.
    func apply(
        _ page: [RecordState], nextToken: String?, assets: [String: Data], context: NSManagedObjectContext,
        clock: inout SyncClock
    ) throws -> Outcome {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return Outcome() }
        var state = ApplyState(model: model, store: store)
        var byName: [String: RecordState] = [:]
        var order: [String] = []
        for record in try metadata.read({ db in try SyncMetadata.deferred(in: db) }) + page {
            if byName[record.recordName] == nil { order.append(record.recordName) }
            byName[record.recordName] = record
        }
        let records = order.compactMap { byName[$0] }
        try metadata.read { db in
            for record in records where record.recordType != SyncRecordMapping.linkRecordType {
                try applyObject(record, db: db, context: context, assets: assets, clock: &clock, state: &state)
            }
            for record in records where record.recordType == SyncRecordMapping.linkRecordType {
                try applyLink(record, db: db, context: context, clock: &clock, state: &state)
            }
        }
        try context.obtainPermanentIDs(for: state.created.map(\.object))
        let clockReading = clock.last.description
        let finalState = state
        let write: (Database) throws -> Void = { db in
            for (name, object) in finalState.created {
                try SyncMetadata.setRecordName(
                    name, recordType: SyncRecordMapping.recordType(of: object.entity), entity: object.entity.name ?? "",
                    primaryKey: object.objectID.primaryKey, in: db)
            }
            for name in finalState.forgotten { try SyncMetadata.forgetRecord(name, in: db) }
            for (record, field, reading) in finalState.clocks {
                try SyncMetadata.setClock(reading, field: field, of: record, in: db)
            }
            for (name, ends) in finalState.links {
                if let (one, other) = ends { try SyncMetadata.setLink(name, one, other, in: db) } else {
                    try SyncMetadata.removeLink(name, in: db)
                }
            }
            try SyncMetadata.setDeferred(finalState.deferred, in: db)
            if let nextToken { try SyncMetadata.setValue(nextToken, for: .pullToken, in: db) }
            try SyncMetadata.setValue(clockReading, for: .clock, in: db)
            try SyncMetadata.setDate(Date(), for: .lastImport, in: db)
        }
        if context.hasChanges {
            context.attachedStoreWrite = write
            do {
                try context.save()
            } catch {
                context.attachedStoreWrite = nil
                context.rollback()
                throw error
            }
        } else {
            try metadata.write(write)
        }
        return Outcome(applied: state.applied, deferred: state.deferred.count)
    }

    /// What one page decides, written with its save.
    private struct ApplyState {
        let model: NSManagedObjectModel
        let store: NSPersistentStore
        var created: [(name: String, object: NSManagedObject)] = []
        var createdByName: [String: NSManagedObject] = [:]
        var forgotten: [String] = []
        var clocks: [(record: String, field: String, clock: HybridLogicalClock)] = []
        var links: [String: (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)?] = [:]
        var deferred: [RecordState] = []
        var applied = 0

        init(model: NSManagedObjectModel, store: NSPersistentStore) {
            self.model = model
            self.store = store
        }
    }

    /// The local object of a record, if it has one.
    private func object(
        named recordName: String, db: Database, context: NSManagedObjectContext, state: ApplyState
    ) throws -> NSManagedObject? {
        if let created = state.createdByName[recordName] { return created }
        guard let (entityName, primaryKey) = try SyncMetadata.object(named: recordName, in: db),
            let entity = state.model.entitiesByName[entityName]
        else { return nil }
        let id = NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: store)
        guard let object = try? context.existingObject(with: id), !object.isDeleted else { return nil }
        return object
    }

    private func applyObject(
        _ record: RecordState, db: Database, context: NSManagedObjectContext, assets: [String: Data],
        clock: inout SyncClock, state: inout ApplyState
    ) throws {
        for reading in record.clocks.values { clock.observe(reading) }
        if let reading = record.deleteClock { clock.observe(reading) }
        let local = try SyncMetadata.clocks(of: record.recordName, in: db)
        let existing = try object(named: record.recordName, db: db, context: context, state: state)
        if record.deleted {
            if let existing { context.delete(existing) }
            state.forgotten.append(record.recordName)
            if let reading = record.deleteClock {
                state.clocks.append((record.recordName, SyncExporter.deletedField, reading))
            }
            state.applied += 1
            return
        }
        // A record deleted here stays deleted unless changed after the deletion.
        if let deletedHere = local[SyncExporter.deletedField], existing == nil,
            !record.clocks.values.contains(where: { $0 > deletedHere })
        {
            return
        }
        let target: NSManagedObject
        if let existing {
            target = existing
        } else {
            guard let entity = entity(of: record, model: state.model), !entity.isAbstract else { return }
            target = NSEntityDescription.insertNewObject(forEntityName: entity.name ?? "", into: context)
            context.assign(target, to: store)
            state.created.append((record.recordName, target))
            state.createdByName[record.recordName] = target
        }
        var unresolved: [String: FieldValue] = [:]
        var unresolvedClocks: [String: HybridLogicalClock] = [:]
        let isNew = existing == nil
        for (field, value) in record.fields where field.hasPrefix("CD_") && field != SyncRecordMapping.entityNameField {
            let remoteClock = record.clocks[field]
            if !isNew, let localClock = local[field], let remoteClock, remoteClock <= localClock { continue }
            if !isNew, local[field] != nil, remoteClock == nil { continue }
            let name = String(field.dropFirst(3))
            if let attribute = target.entity.attributesByName[name] {
                var resolved = value
                if case .asset(let reference) = value {
                    guard let bytes = assets[reference.sha256] else {
                        unresolved[field] = value
                        unresolvedClocks[field] = remoteClock
                        continue
                    }
                    resolved = .bytes(bytes)
                }
                guard let converted = SyncRecordMapping.attributeValue(resolved, of: attribute) else { continue }
                target.setValue(converted is NSNull ? nil : converted, forKey: name)
            } else if let relationship = target.entity.relationshipsByName[name], !relationship.isToMany {
                switch value {
                case .reference(let other):
                    guard let related = try object(named: other, db: db, context: context, state: state) else {
                        unresolved[field] = value
                        unresolvedClocks[field] = remoteClock
                        continue
                    }
                    target.setValue(related, forKey: name)
                case .null:
                    target.setValue(nil, forKey: name)
                default:
                    continue
                }
            } else {
                continue
            }
            if let remoteClock { state.clocks.append((record.recordName, field, remoteClock)) }
        }
        if !unresolved.isEmpty {
            state.deferred.append(
                RecordState(
                    recordType: record.recordType, recordName: record.recordName, fields: unresolved,
                    clocks: unresolvedClocks, deleted: false, deleteClock: nil, serverSequence: record.serverSequence,
                    changedBy: record.changedBy))
        }
        state.applied += 1
    }

    /// The entity a record's object belongs to: `CD_entityName`, else the record type's.
    private func entity(of record: RecordState, model: NSManagedObjectModel) -> NSEntityDescription? {
        if case .string(let name) = record.fields[SyncRecordMapping.entityNameField], let entity = model.entitiesByName[name] {
            return entity
        }
        guard record.recordType.hasPrefix("CD_") else { return nil }
        return model.entitiesByName[String(record.recordType.dropFirst(3))]
    }

    private func applyLink(
        _ record: RecordState, db: Database, context: NSManagedObjectContext, clock: inout SyncClock,
        state: inout ApplyState
    ) throws {
        for reading in record.clocks.values { clock.observe(reading) }
        if let reading = record.deleteClock { clock.observe(reading) }
        let local = try SyncMetadata.clocks(of: record.recordName, in: db)
        if record.deleted {
            let ends: (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)?
            if let pending = state.links[record.recordName] { ends = pending } else {
                ends = try SyncMetadata.link(named: record.recordName, in: db)
            }
            if let (one, other) = ends,
                let first = try object(named: one.recordName, db: db, context: context, state: state),
                let second = try object(named: other.recordName, db: db, context: context, state: state),
                first.entity.relationshipsByName[one.relationship] != nil
            {
                first.mutableSetValue(forKey: one.relationship).remove(second)
            }
            state.links[record.recordName] = .some(nil)
            if let reading = record.deleteClock {
                state.clocks.append((record.recordName, SyncExporter.deletedField, reading))
            }
            state.applied += 1
            return
        }
        let newest = record.clocks.values.max()
        if let deletedHere = local[SyncExporter.deletedField], let newest, newest <= deletedHere { return }
        if let known = local.values.max(), let newest, newest <= known { return }
        guard let (one, other) = SyncRecordMapping.linkEnds(of: record.fields) else { return }
        guard let first = try object(named: one.recordName, db: db, context: context, state: state),
            let second = try object(named: other.recordName, db: db, context: context, state: state)
        else {
            state.deferred.append(record)
            return
        }
        if first.entity.relationshipsByName[one.relationship] != nil {
            first.mutableSetValue(forKey: one.relationship).add(second)
        } else if second.entity.relationshipsByName[other.relationship] != nil {
            second.mutableSetValue(forKey: other.relationship).add(first)
        }
        state.links[record.recordName] = (one, other)
        for (field, reading) in record.clocks { state.clocks.append((record.recordName, field, reading)) }
        state.applied += 1
    }
}

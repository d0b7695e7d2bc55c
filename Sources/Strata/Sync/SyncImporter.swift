import Foundation
internal import GRDB
import StrataSyncProtocol

/// Applies pulled records to the store, field by field: a remote field wins only over a local
/// field with an older clock (local edits were given their clocks, as of their edit, when
/// exported just before),
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
        Set(records.flatMap { $0.fields.values.compactMap(\.assetHash) })
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
        let deferred = try metadata.read { db in try SyncMetadata.deferred(in: db) }
        for record in deferred + page {
            if byName[record.recordName] == nil { order.append(record.recordName) }
            byName[record.recordName] = record
        }
        // Deferred records hold only their unresolved fields; pulled ones are whole.
        state.partial = Set(deferred.map(\.recordName)).subtracting(page.map(\.recordName))
        let records = order.compactMap { byName[$0] }
        // Metadata is read in short reads of its own: the context's fetches use the same
        // database, and GRDB's reads do not nest.
        // What the store knows of the page's records, read in two queries rather than two
        // per record (nothing here is written before the save).
        try metadata.read { db in
            state.pending = try Self.pendingFields(in: db)
            let names = try SyncMetadata.jsonArray(records.map(\.recordName))
            state.localClocks = try SyncMetadata.clocks(ofRecordsIn: names, in: db)
            state.objects = try SyncMetadata.objects(namedIn: names, in: db)
            state.known = Set(records.map(\.recordName))
            // The newest deletes of the ends of the page's links, which outdate the links
            // older than them.
            let ends = records.compactMap { SyncRecordMapping.linkEnds(of: $0.fields) }.flatMap {
                [$0.0.recordName, $0.1.recordName]
            }
            if !ends.isEmpty {
                state.deletes = try SyncMetadata.deleteClocks(ofRecordsIn: SyncMetadata.jsonArray(ends), in: db)
            }
        }
        for record in records where record.recordType != SyncRecordMapping.linkRecordType {
            if let clock = record.deleteClock { state.noteDelete(clock, of: record.recordName) }
        }
        for record in records where record.recordType != SyncRecordMapping.linkRecordType {
            try applyObject(record, context: context, assets: assets, clock: &clock, state: &state)
        }
        // An object made again (a record that came back after a delete here) gets back the
        // links this store knows for it: the server does not send a link record again unless
        // the link itself changes.
        if !state.created.isEmpty {
            let known = try metadata.read { db in
                try SyncMetadata.links(ofRecordsIn: SyncMetadata.jsonArray(state.created.map(\.name)), in: db)
            }
            for (name, object) in state.created {
                try restoreLinks(known[name] ?? [], of: name, to: object, context: context, state: state)
            }
        }
        // References to records later in the page, now that every record of it has an object.
        let unresolved = state.deferred
        state.deferred = []
        state.partial.formUnion(unresolved.map(\.recordName))
        for record in unresolved {
            try applyObject(record, context: context, assets: assets, clock: &clock, state: &state)
        }
        for record in records where record.recordType == SyncRecordMapping.linkRecordType {
            try applyLink(record, context: context, clock: &clock, state: &state)
        }
        try context.obtainPermanentIDs(for: state.created.map(\.object))
        let clockReading = clock.last.description
        let sightings = clock.encodedSightings
        let finalState = state
        let write: (Database) throws -> Void = { db in
            for (name, object) in finalState.created {
                try SyncMetadata.setRecordName(
                    name, recordType: SyncRecordMapping.recordType(of: object.entity), entity: object.entity.name ?? "",
                    primaryKey: object.objectID.primaryKey, in: db)
            }
            for name in finalState.forgotten { try SyncMetadata.forgetRecord(name, in: db) }
            for (record, field, reading, digest) in finalState.clocks {
                try SyncMetadata.setClock(reading, field: field, of: record, digest: digest, in: db)
            }
            for (record, field) in finalState.droppedClocks {
                try db.execute(
                    sql: "DELETE FROM \(SyncMetadata.clockTable) WHERE ZRECORDNAME = ? AND ZFIELD = ?",
                    arguments: [record, field])
            }
            for (name, ends) in finalState.links {
                if let (one, other) = ends {
                    try SyncMetadata.setLink(name, one, other, in: db)
                } else {
                    try SyncMetadata.removeLink(name, in: db)
                }
            }
            try SyncMetadata.setDeferred(finalState.deferred, in: db)
            if let nextToken { try SyncMetadata.setValue(nextToken, for: .pullToken, in: db) }
            try SyncMetadata.setValue(clockReading, for: .clock, in: db)
            try SyncMetadata.setValue(sightings, for: .sightings, in: db)
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
        /// Clocks applied, with the digest of the value received (nil for deletions and links).
        var clocks: [(record: String, field: String, clock: HybridLogicalClock, digest: String?)] = []
        var links: [String: (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)?] = [:]
        var droppedClocks: [(record: String, field: String)] = []
        var deferred: [RecordState] = []
        var applied = 0
        /// Records given by their unresolved fields only (deferred before).
        var partial = Set<String>()
        /// Fields of records waiting in the outbox, by `recordName + "\u{1F}" + field`.
        var pending = Set<String>()
        /// The page's records' clocks and objects here, read before applying; `known` names
        /// the records they were read for (the others are read when needed).
        var localClocks: [String: [String: HybridLogicalClock]] = [:]
        var objects: [String: (entity: String, primaryKey: Int64)] = [:]
        var known = Set<String>()
        /// The newest delete known of records: the page's records' and their links' ends'.
        var deletes: [String: HybridLogicalClock] = [:]

        mutating func noteDelete(_ clock: HybridLogicalClock, of recordName: String) {
            if let known = deletes[recordName], known >= clock { return }
            deletes[recordName] = clock
        }

        /// Whether a link whose newest clock is `newest` is older than a delete of one of
        /// its ends: the delete won over it.
        func isOutdated(linkClock newest: HybridLogicalClock?, ends: [String]) -> Bool {
            guard let newest else { return false }
            return ends.contains { deletes[$0].map { newest <= $0 } ?? false }
        }

        /// The clocks this store has for a record's fields.
        func clocks(of recordName: String, metadata: SyncMetadata) throws -> [String: HybridLogicalClock] {
            if known.contains(recordName) { return localClocks[recordName] ?? [:] }
            return try metadata.read { db in try SyncMetadata.clocks(of: recordName, in: db) }
        }

        init(model: NSManagedObjectModel, store: NSPersistentStore) {
            self.model = model
            self.store = store
        }
    }

    /// The local object of a record, if it has one.
    private func object(
        named recordName: String, context: NSManagedObjectContext, state: ApplyState
    ) throws -> NSManagedObject? {
        if let created = state.createdByName[recordName] { return created }
        let stored =
            state.known.contains(recordName)
            ? state.objects[recordName] : try metadata.read { db in try SyncMetadata.object(named: recordName, in: db) }
        guard let (entityName, primaryKey) = stored,
            let entity = state.model.entity(named: entityName)
        else { return nil }
        let id = NSManagedObjectID(entity: entity, primaryKey: primaryKey, store: store)
        guard let object = try? context.existingObject(with: id), !object.isDeleted else { return nil }
        return object
    }

    private func applyObject(
        _ record: RecordState, context: NSManagedObjectContext, assets: [String: Data],
        clock: inout SyncClock, state: inout ApplyState
    ) throws {
        for reading in record.clocks.values { clock.observe(reading) }
        if let reading = record.deleteClock { clock.observe(reading) }
        let local = try state.clocks(of: record.recordName, metadata: metadata)
        let existing = try object(named: record.recordName, context: context, state: state)
        if record.deleted && Self.hasChange(in: local, newerThan: record.deleteClock) {
            // A change made here after the delete, not yet pushed, brings the record back on
            // the server (with the fields changed after the delete): keep the object.
            return
        }
        if record.deleted {
            if let existing { context.delete(existing) }
            state.forgotten.append(record.recordName)
            if let reading = record.deleteClock {
                state.clocks.append((record.recordName, SyncExporter.deletedField, reading, nil))
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
        // A record that came back after a delete this store had not heard of: the delete still
        // won over the links to it made before it.
        if let outdated = record.deleteClock, local[SyncExporter.deletedField].map({ $0 < outdated }) ?? true {
            state.clocks.append((record.recordName, SyncExporter.deletedField, outdated, nil))
            if let existing {
                try dropLinks(of: existing, named: record.recordName, olderThan: outdated, context: context, state: &state)
            }
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
            // The digest of the value as this store holds it, read back as the exporter reads
            // it (an attribute's type may round a value the record carried more precisely).
            let digest: String
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
                let held = SyncRecordMapping.fieldValue(target.value(forKey: name), of: attribute) ?? value
                digest = SyncRecordMapping.digest(of: value.kind == .asset ? value : held)
            } else if let relationship = target.entity.relationshipsByName[name], !relationship.isToMany {
                switch value {
                case .reference(let other):
                    guard let related = try object(named: other, context: context, state: state) else {
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
                digest = SyncRecordMapping.digest(of: value)
            } else {
                continue
            }
            if let remoteClock { state.clocks.append((record.recordName, field, remoteClock, digest)) }
        }
        if !isNew && !state.partial.contains(record.recordName) {
            dropFieldsTheServerDropped(record, local: local, from: target, state: &state)
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

    /// A field the server's whole record lacks, though this store has a clock for it that is not
    /// waiting to be pushed, was dropped by a delete newer than it (the record came back
    /// through later changes): it goes back to its default here too, as on a store that makes
    /// the object anew from the record.
    private func dropFieldsTheServerDropped(
        _ record: RecordState, local: [String: HybridLogicalClock], from object: NSManagedObject, state: inout ApplyState
    ) {
        for field in local.keys where field.hasPrefix("CD_") && record.fields[field] == nil {
            guard !state.pending.contains(record.recordName + "\u{1F}" + field) else { continue }
            let name = String(field.dropFirst(3))
            if let attribute = object.entity.attributesByName[name] {
                object.setValue(attribute.defaultValue, forKey: name)
            } else if let relationship = object.entity.relationshipsByName[name], !relationship.isToMany {
                object.setValue(nil, forKey: name)
            } else {
                continue
            }
            state.droppedClocks.append((record.recordName, field))
        }
    }

    /// Adds the links of the link table that name a record (its relationship and the other
    /// end's record) to its new object, but those older than a delete of either end.
    private func restoreLinks(
        _ links: [SyncMetadata.KnownLink], of recordName: String, to object: NSManagedObject,
        context: NSManagedObjectContext, state: ApplyState
    ) throws {
        let clocks = try linkClocks(links, state: state)
        for link in links where object.entity.relationshipsByName[link.relationship]?.isToMany == true {
            guard !state.isOutdated(linkClock: clocks[link.name], ends: [recordName, link.other]),
                let other = try self.object(named: link.other, context: context, state: state)
            else { continue }
            object.mutableSetValue(forKey: link.relationship).add(other)
        }
    }

    /// The newest clock of each link.
    private func linkClocks(_ links: [SyncMetadata.KnownLink], state: ApplyState) throws -> [String: HybridLogicalClock] {
        guard !links.isEmpty else { return [:] }
        let clocks = try metadata.read { db in
            try SyncMetadata.clocks(ofRecordsIn: SyncMetadata.jsonArray(links.map(\.name)), in: db)
        }
        return clocks.compactMapValues { $0.values.max() }
    }

    /// Takes away an object's links older than a delete of its record, which won over them.
    private func dropLinks(
        of object: NSManagedObject, named recordName: String, olderThan delete: HybridLogicalClock,
        context: NSManagedObjectContext, state: inout ApplyState
    ) throws {
        state.noteDelete(delete, of: recordName)
        let links =
            try metadata.read { db in
                try SyncMetadata.links(ofRecordsIn: SyncMetadata.jsonArray([recordName]), in: db)
            }[recordName] ?? []
        let clocks = try linkClocks(links, state: state)
        for link in links {
            guard let newest = clocks[link.name], newest <= delete else { continue }
            if object.entity.relationshipsByName[link.relationship]?.isToMany == true,
                let other = try self.object(named: link.other, context: context, state: state)
            {
                object.mutableSetValue(forKey: link.relationship).remove(other)
            }
            state.links[link.name] = .some(nil)
        }
    }

    /// Whether a record's clocks here hold a change newer than a remote delete.
    static func hasChange(in local: [String: HybridLogicalClock], newerThan delete: HybridLogicalClock?) -> Bool {
        guard let delete else { return false }
        return local.contains { $0.key != SyncExporter.deletedField && $0.value > delete }
    }

    /// The fields of the records in the outbox (local changes the server has not taken yet),
    /// read by SQLite's JSON functions from the batches' JSON rather than decoding every batch
    /// for every page imported.
    static func pendingFields(in db: Database) throws -> Set<String> {
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT json_extract(c.value, '$.recordName'), f.key
                FROM \(SyncMetadata.outboxTable) AS o, json_each(CAST(o.ZBODY AS TEXT), '$.changes') AS c,
                    json_each(c.value, '$.fields') AS f
                """)
        var fields = Set<String>()
        while let row = try rows.next() {
            guard let record = row[0] as String?, let field = row[1] as String? else { continue }
            fields.insert(record + "\u{1F}" + field)
        }
        return fields
    }

    /// The entity a record's object belongs to: `CD_entityName`, else the record type's.
    private func entity(of record: RecordState, model: NSManagedObjectModel) -> NSEntityDescription? {
        if case .string(let name) = record.fields[SyncRecordMapping.entityNameField], let entity = model.entity(named: name) {
            return entity
        }
        guard record.recordType.hasPrefix("CD_") else { return nil }
        return model.entity(named: String(record.recordType.dropFirst(3)))
    }

    private func applyLink(
        _ record: RecordState, context: NSManagedObjectContext, clock: inout SyncClock,
        state: inout ApplyState
    ) throws {
        for reading in record.clocks.values { clock.observe(reading) }
        if let reading = record.deleteClock { clock.observe(reading) }
        let local = try state.clocks(of: record.recordName, metadata: metadata)
        // A link added here after the delete comes back on the server when pushed: keep it.
        if record.deleted && Self.hasChange(in: local, newerThan: record.deleteClock) { return }
        if record.deleted {
            let ends: (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)?
            if let pending = state.links[record.recordName] {
                ends = pending
            } else {
                ends = try metadata.read { db in try SyncMetadata.link(named: record.recordName, in: db) }
            }
            if let (one, other) = ends,
                let first = try object(named: one.recordName, context: context, state: state),
                let second = try object(named: other.recordName, context: context, state: state),
                first.entity.relationshipsByName[one.relationship] != nil
            {
                first.mutableSetValue(forKey: one.relationship).remove(second)
            }
            state.links[record.recordName] = .some(nil)
            if let reading = record.deleteClock {
                state.clocks.append((record.recordName, SyncExporter.deletedField, reading, nil))
            }
            state.applied += 1
            return
        }
        let newest = record.clocks.values.max()
        if let deletedHere = local[SyncExporter.deletedField], let newest, newest <= deletedHere { return }
        if let known = local.values.max(), let newest, newest <= known { return }
        guard let (one, other) = SyncRecordMapping.linkEnds(of: record.fields) else { return }
        // A link made before a delete of one of its ends lost to the delete (the deleting
        // client did not know of it, so nobody deleted its record).
        if state.isOutdated(linkClock: newest, ends: [one.recordName, other.recordName]) { return }
        guard let first = try object(named: one.recordName, context: context, state: state),
            let second = try object(named: other.recordName, context: context, state: state)
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
        for (field, reading) in record.clocks { state.clocks.append((record.recordName, field, reading, nil)) }
        state.applied += 1
    }
}

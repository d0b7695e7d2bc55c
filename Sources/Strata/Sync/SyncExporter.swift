import Foundation
internal import GRDB
import StrataSyncProtocol

/// Turns local history into batches waiting in the outbox: each local transaction (never the
/// importer's) becomes one batch or more of record changes carrying only the changed fields,
/// each with a clock reading as of the transaction's time (not the export's). Record names given here, the clocks, the links and the
/// history cursor are written with the batches in one SQLite transaction: a crash before it
/// loses nothing (the history is still there), after it duplicates nothing.
struct SyncExporter {
    let store: NSPersistentStore
    let metadata: SyncMetadata
    /// The most changes one batch carries (a large transaction becomes several batches).
    let maximumChangesPerBatch: Int

    /// The pseudo-field whose clock records a record's deletion on this device.
    static let deletedField = "__deleted"

    /// What one export run decides, written together at its end.
    private struct Work {
        var names: [NSManagedObjectID: String] = [:]
        var newNames: [(id: NSManagedObjectID, name: String, type: String)] = []
        var newlyNamed = Set<String>()
        var clocks: [(record: String, field: String, clock: HybridLogicalClock, digest: String?)] = []
        /// The digests of the values this run sends, by record and field.
        var digests: [String: [String: String]] = [:]
        /// The links the transaction being exported changed (each end's history names the
        /// change; it is sent once).
        var transactionLinks = Set<String>()
        /// Link changes by link name: the ends when added, nil when removed.
        var links: [String: (SyncRecordMapping.LinkEnd, SyncRecordMapping.LinkEnd)?] = [:]
        var forgotten: [String] = []
        var assets: [String: Data] = [:]
        var changes: [RecordChange] = []
        var batches: [ChangeBatch] = []
        var nextBatch: Int64
        var modelHash: String?
        var maximumChanges: Int

        /// Ends the batch being made (a local transaction, or a part of a large one).
        mutating func closeBatch() {
            guard !changes.isEmpty else { return }
            batches.append(ChangeBatch(batchSequence: nextBatch, modelHash: modelHash, changes: changes))
            nextBatch += 1
            changes = []
        }

        mutating func append(_ change: RecordChange) {
            changes.append(change)
            if changes.count >= maximumChanges { closeBatch() }
        }
    }

    /// Builds batches from the history after the export cursor (and, when `localOnly`, from
    /// every object that has no record yet, or none the server knows), and enqueues them.
    /// Returns the number of record changes enqueued.
    @discardableResult
    func enqueuePending(
        context: NSManagedObjectContext, clock: inout SyncClock, localOnly: Bool = false,
        knownToServer: Set<String>? = nil
    ) throws -> Int {
        guard let storeID = store.identifier else { return 0 }
        let (cursor, nextBatch) = try metadata.read { db in
            (try SyncMetadata.int(.exportedHistory, in: db), try SyncMetadata.int(.nextBatch, in: db) ?? 1)
        }
        var work = Work(
            nextBatch: nextBatch, modelHash: Self.modelHash(of: context), maximumChanges: maximumChangesPerBatch)
        var lastNumber = cursor ?? 0

        if let cursor {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(
                after: NSPersistentHistoryToken(transactionNumbers: [storeID: cursor]))
            let result = try context.execute(request) as? NSPersistentHistoryResult
            let transactions = (result?.result as? [NSPersistentHistoryTransaction] ?? []).filter { $0.storeID == storeID }
            var latest: Int64?
            for transaction in transactions {
                lastNumber = max(lastNumber, transaction.transactionNumber)
                let time = SyncClock.wallMilliseconds(transaction.timestamp)
                latest = max(latest ?? time, time)
                guard transaction.author != NSPersistentCloudKitContainer.importAuthor else { continue }
                // The change's readings as of its save: readings seen after it do not count.
                clock.eventTime = time
                defer { clock.eventTime = nil }
                try export(transaction.changes ?? [], context: context, clock: &clock, work: &work)
                work.closeBatch()
                context.reset()
            }
            // Every transaction up to the latest one read is exported: a later one is saved after
            // the readings seen by then.
            if let latest { clock.fold(upTo: latest) }
        } else {
            // The first export of a store: everything already in it is local-only.
            lastNumber = try (store as? any HistoryStore)?.lastHistoryNumber() ?? 0
        }
        if localOnly || cursor == nil {
            try exportLocalOnly(context: context, clock: &clock, work: &work, knownToServer: knownToServer)
            work.closeBatch()
        }
        let batches = work.batches
        try metadata.write { db in
            for (id, name, type) in work.newNames {
                try SyncMetadata.setRecordName(
                    name, recordType: type, entity: id.entity.name ?? "", primaryKey: id.primaryKey, in: db)
            }
            for name in work.forgotten {
                try db.execute(sql: "DELETE FROM \(SyncMetadata.recordTable) WHERE ZRECORDNAME = ?", arguments: [name])
            }
            for (record, field, reading, digest) in work.clocks {
                try SyncMetadata.setClock(reading, field: field, of: record, digest: digest, in: db)
            }
            for (name, ends) in work.links {
                if let (one, other) = ends {
                    try SyncMetadata.setLink(name, one, other, in: db)
                } else {
                    try SyncMetadata.removeLink(name, in: db)
                }
            }
            for (sha, bytes) in work.assets { try SyncMetadata.keepAsset(bytes, sha256: sha, in: db) }
            for batch in batches { try SyncMetadata.enqueue(batch, in: db) }
            try SyncMetadata.setValue(String(work.nextBatch), for: .nextBatch, in: db)
            try SyncMetadata.setValue(String(lastNumber), for: .exportedHistory, in: db)
            try SyncMetadata.setValue(clock.last.description, for: .clock, in: db)
            try SyncMetadata.setValue(clock.encodedSightings, for: .sightings, in: db)
        }
        return batches.reduce(0) { $0 + $1.changes.count }
    }

    // MARK: One transaction

    private func export(
        _ changes: [NSPersistentHistoryChange], context: NSManagedObjectContext, clock: inout SyncClock,
        work: inout Work
    ) throws {
        // An object's changes within one transaction, merged: inserted, or the properties written.
        var order: [NSManagedObjectID] = []
        var inserted = Set<NSManagedObjectID>()
        var written: [NSManagedObjectID: Set<String>] = [:]
        // The properties an update changed for certain: its history kept the values before and
        // after (`StrataPersistentHistoryValuesKey`, which synced stores have) and they differ.
        var changed: [NSManagedObjectID: Set<String>] = [:]
        // The members each to-many relationship gained and lost in this transaction, when its
        // history kept them.
        var members: [NSManagedObjectID: [String: LinkDiff]] = [:]
        var deleted: [NSManagedObjectID] = []
        work.transactionLinks = []
        for change in changes {
            let id = change.changedObjectID
            switch change.changeType {
            case .insert:
                if written[id] == nil { order.append(id) }
                inserted.insert(id)
                written[id, default: []] = []
            case .update:
                if written[id] == nil { order.append(id) }
                let names = change.updatedProperties?.map(\.name) ?? []
                written[id, default: []].formUnion(names)
                if let after = change.updatedValues, let before = change.previousValues {
                    changed[id, default: []].formUnion(names.filter { !Self.sameValue(before[$0], after[$0]) })
                    for property in change.updatedProperties ?? [] {
                        guard let relationship = property as? NSRelationshipDescription, relationship.isToMany else { continue }
                        let old = Set(before[relationship.name] as? [NSManagedObjectID] ?? [])
                        let new = Set(after[relationship.name] as? [NSManagedObjectID] ?? [])
                        members[id, default: [:]][relationship.name] = LinkDiff(
                            added: new.subtracting(old), removed: old.subtracting(new))
                    }
                }
            case .delete:
                deleted.append(id)
            }
        }
        let objects = try fetch(order, context: context)
        for id in order {
            guard let object = objects[id] else { continue }
            try exportObject(
                object, properties: inserted.contains(id) ? nil : written[id] ?? [], changed: changed[id] ?? [],
                members: members[id] ?? [:], context: context, clock: &clock, work: &work)
        }
        for id in deleted { try exportDelete(of: id, clock: &clock, work: &work) }
    }

    /// The objects of the IDs still in the store, read in bulk per entity.
    private func fetch(_ ids: [NSManagedObjectID], context: NSManagedObjectContext) throws -> [NSManagedObjectID: NSManagedObject]
    {
        var found: [NSManagedObjectID: NSManagedObject] = [:]
        let byEntity = Dictionary(grouping: ids) { $0.entity.name ?? "" }
        for (name, group) in byEntity {
            for start in stride(from: 0, to: group.count, by: 500) {
                let chunk = Array(group[start..<min(start + 500, group.count)])
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.predicate = NSPredicate(format: "self IN %@", chunk)
                request.includesSubentities = false
                // The relationships an export reads, loaded with the objects rather than one
                // query per object.
                if let entity = chunk.first?.entity {
                    request.relationshipKeyPathsForPrefetching = SyncRecordMapping.syncedRelationships(of: entity).map(\.name)
                }
                for object in try context.fetch(request) { found[object.objectID] = object }
            }
        }
        return found
    }

    /// An object's record change: every synced property when `properties` is nil (an insert),
    /// else those of the ones named that a transaction changed for certain (`changed`), or
    /// whose value differs from the value last sent or received for them; many-to-many
    /// relationships as link changes.
    ///
    /// History names every property an update set, also to the value it had (as Apple's does),
    /// and a DAO that copies a whole form onto its object sets them all. A field given a new
    /// clock for an unchanged value would win over another device's real edit of it made
    /// earlier but pushed later, and that edit would be lost everywhere. A value changed and
    /// changed back between two exports is a change all the same when the history kept values
    /// (it is the latest write of the field); without them it looks like none.
    private func exportObject(
        _ object: NSManagedObject, properties: Set<String>?, changed: Set<String> = [],
        members: [String: LinkDiff] = [:], context: NSManagedObjectContext, clock: inout SyncClock, work: inout Work
    ) throws {
        let entity = object.entity
        let recordName = try name(of: object.objectID, work: &work)
        let sent = properties == nil ? [:] : try sentDigests(of: recordName, work: work)
        var fields: [String: (value: FieldValue, digest: String)] = [:]
        func add(_ value: FieldValue, as field: String) {
            let digest = SyncRecordMapping.digest(of: value)
            if sent[field] != digest || changed.contains(String(field.dropFirst(3))) { fields[field] = (value, digest) }
        }
        if properties == nil { add(.string(entity.name ?? ""), as: SyncRecordMapping.entityNameField) }
        for attribute in SyncRecordMapping.syncedAttributes(of: entity)
        where properties?.contains(attribute.name) ?? true {
            guard let value = SyncRecordMapping.fieldValue(object.value(forKey: attribute.name), of: attribute) else {
                continue
            }
            if case .bytes(let data) = value, data.count > SyncRecordMapping.assetThreshold {
                let sha = SyncRecordMapping.hexSHA256(data)
                let field = SyncRecordMapping.field(of: attribute)
                add(.asset(AssetReference(sha256: sha, size: Int64(data.count))), as: field)
                if fields[field] != nil { work.assets[sha] = data }
            } else {
                add(value, as: SyncRecordMapping.field(of: attribute))
            }
        }
        for relationship in SyncRecordMapping.syncedRelationships(of: entity)
        where properties?.contains(relationship.name) ?? true {
            switch SyncRecordMapping.form(of: relationship) {
            case .reference:
                if let target = object.value(forKey: relationship.name) as? NSManagedObject {
                    add(.reference(try name(of: target.objectID, work: &work)), as: SyncRecordMapping.field(of: relationship))
                } else {
                    add(.null, as: SyncRecordMapping.field(of: relationship))
                }
            case .links:
                if let diff = members[relationship.name] {
                    try exportLinkChanges(
                        diff, of: object, recordName: recordName, relationship: relationship, clock: &clock, work: &work)
                } else {
                    try exportLinks(of: object, recordName: recordName, relationship: relationship, clock: &clock, work: &work)
                }
            case .carriedByInverse:
                continue
            }
        }
        guard !fields.isEmpty else { return }
        var clocks: [String: HybridLogicalClock] = [:]
        for (field, (_, digest)) in fields {
            let reading = clock.tick()
            clocks[field] = reading
            work.clocks.append((recordName, field, reading, digest))
            work.digests[recordName, default: [:]][field] = digest
        }
        append(
            RecordChange(
                recordType: SyncRecordMapping.recordType(of: entity), recordName: recordName, operation: .upsert,
                fields: fields.mapValues(\.value), clocks: clocks), work: &work)
    }

    /// Whether two values of a property, as history records them, are the same (to-many
    /// members in any order).
    static func sameValue(_ one: Any?, _ other: Any?) -> Bool {
        let one = one is NSNull ? nil : one
        let other = other is NSNull ? nil : other
        guard let one, let other else { return one == nil && other == nil }
        switch (one, other) {
        case (let left as [NSManagedObjectID], let right as [NSManagedObjectID]): return Set(left) == Set(right)
        case (let left as AnyHashable, let right as AnyHashable): return left == right
        default: return false
        }
    }

    /// The digests of the values last sent or received for a record's fields: this run's,
    /// else the sync metadata's.
    private func sentDigests(of recordName: String, work: Work) throws -> [String: String] {
        var digests =
            work.newlyNamed.contains(recordName)
            ? [:] : try metadata.read { db in try SyncMetadata.digests(of: recordName, in: db) }
        for (field, digest) in work.digests[recordName] ?? [:] { digests[field] = digest }
        return digests
    }

    /// The members a to-many relationship gained and lost in one transaction.
    struct LinkDiff {
        var added: Set<NSManagedObjectID>
        var removed: Set<NSManagedObjectID>
    }

    /// The link records a transaction added and removed, as its history tells them (members
    /// before and after), each with the transaction's clock. The state of the object when the
    /// export runs cannot tell them: a link removed and added again since the last export
    /// would look unchanged, and its newer add would lose to another device's older removal.
    private func exportLinkChanges(
        _ diff: LinkDiff, of object: NSManagedObject, recordName: String, relationship: NSRelationshipDescription,
        clock: inout SyncClock, work: inout Work
    ) throws {
        let end = SyncRecordMapping.LinkEnd(
            entity: object.entity.name ?? "", recordName: recordName, relationship: relationship.name)
        func otherEnd(_ id: NSManagedObjectID, named name: String) -> SyncRecordMapping.LinkEnd {
            SyncRecordMapping.LinkEnd(
                entity: id.entity.name ?? "", recordName: name, relationship: relationship.inverseRelationship?.name ?? "")
        }
        for id in diff.added.sorted(by: { $0.primaryKey < $1.primaryKey }) {
            let other = otherEnd(id, named: try name(of: id, work: &work))
            let name = SyncRecordMapping.linkRecordName(end, other)
            guard work.transactionLinks.insert(name).inserted else { continue }
            var clocks: [String: HybridLogicalClock] = [:]
            let fields = SyncRecordMapping.linkFields(end, other)
            for field in fields.keys {
                let reading = clock.tick()
                clocks[field] = reading
                work.clocks.append((name, field, reading, nil))
            }
            work.links[name] = (end, other)
            append(
                RecordChange(
                    recordType: SyncRecordMapping.linkRecordType, recordName: name, operation: .upsert, fields: fields,
                    clocks: clocks), work: &work)
        }
        for id in diff.removed.sorted(by: { $0.primaryKey < $1.primaryKey }) {
            // A member never synced has no link record to delete.
            guard let otherName = try existingName(of: id, work: work) else { continue }
            let name = SyncRecordMapping.linkRecordName(end, otherEnd(id, named: otherName))
            guard work.transactionLinks.insert(name).inserted else { continue }
            appendDelete(of: name, type: SyncRecordMapping.linkRecordType, clock: &clock, work: &work)
            work.links[name] = .some(nil)
        }
    }

    /// The record name an object has (this run's, or the sync metadata's), without giving one.
    private func existingName(of id: NSManagedObjectID, work: Work) throws -> String? {
        if let name = work.names[id] { return name }
        return try metadata.read { db in
            try SyncMetadata.recordName(entity: id.entity.name ?? "", primaryKey: id.primaryKey, in: db)
        }
    }

    /// Link records added and removed since the links last known for one end.
    private func exportLinks(
        of object: NSManagedObject, recordName: String, relationship: NSRelationshipDescription, clock: inout SyncClock,
        work: inout Work
    ) throws {
        let end = SyncRecordMapping.LinkEnd(
            entity: object.entity.name ?? "", recordName: recordName, relationship: relationship.name)
        // An object named in this run has no links known yet (no read for each new object).
        let isNamedNow = work.newlyNamed.contains(recordName)
        var known =
            isNamedNow
            ? Set<String>()
            : Set(
                try metadata.read { db in
                    try SyncMetadata.links(from: recordName, relationship: relationship.name, in: db).map(\.name)
                })
        for (name, ends) in work.links {
            if let (one, other) = ends,
                (one.recordName == recordName && one.relationship == relationship.name)
                    || (other.recordName == recordName && other.relationship == relationship.name)
            {
                known.insert(name)
            } else if ends == nil {
                known.remove(name)
            }
        }
        var current: [String: SyncRecordMapping.LinkEnd] = [:]
        for target in Self.relatedObjects(object.value(forKey: relationship.name)) {
            let other = SyncRecordMapping.LinkEnd(
                entity: target.entity.name ?? "", recordName: try name(of: target.objectID, work: &work),
                relationship: relationship.inverseRelationship?.name ?? "")
            current[SyncRecordMapping.linkRecordName(end, other)] = other
        }
        for (name, other) in current.sorted(by: { $0.key < $1.key }) where !known.contains(name) {
            var clocks: [String: HybridLogicalClock] = [:]
            let fields = SyncRecordMapping.linkFields(end, other)
            for field in fields.keys {
                let reading = clock.tick()
                clocks[field] = reading
                work.clocks.append((name, field, reading, nil))
            }
            work.links[name] = (end, other)
            append(
                RecordChange(
                    recordType: SyncRecordMapping.linkRecordType, recordName: name, operation: .upsert, fields: fields,
                    clocks: clocks), work: &work)
        }
        for name in known.sorted() where current[name] == nil {
            appendDelete(of: name, type: SyncRecordMapping.linkRecordType, clock: &clock, work: &work)
            work.links[name] = .some(nil)
        }
    }

    private func exportDelete(of id: NSManagedObjectID, clock: inout SyncClock, work: inout Work) throws {
        guard
            let recordName = try work.names[id]
                ?? metadata.read({ db in
                    try SyncMetadata.recordName(entity: id.entity.name ?? "", primaryKey: id.primaryKey, in: db)
                })
        else { return }
        appendDelete(of: recordName, type: SyncRecordMapping.recordType(of: id.entity), clock: &clock, work: &work)
        work.forgotten.append(recordName)
        // The object's links go with it.
        let links = try metadata.read { db in
            try String.fetchAll(
                db, sql: "SELECT ZNAME FROM \(SyncMetadata.linkTable) WHERE ZRECORD1 = ? OR ZRECORD2 = ?",
                arguments: [recordName, recordName])
        }
        for name in links where work.links[name] == nil {
            appendDelete(of: name, type: SyncRecordMapping.linkRecordType, clock: &clock, work: &work)
            work.links[name] = .some(nil)
        }
    }

    private func appendDelete(of recordName: String, type: String, clock: inout SyncClock, work: inout Work) {
        let reading = clock.tick()
        work.clocks.append((recordName, Self.deletedField, reading, nil))
        append(RecordChange(recordType: type, recordName: recordName, operation: .delete, deleteClock: reading), work: &work)
    }

    private func append(_ change: RecordChange, work: inout Work) { work.append(change) }

    /// The model's version hash, which batches carry for the server's diagnostics.
    static func modelHash(of context: NSManagedObjectContext) -> String? {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return nil }
        let hashes = model.entityVersionHashesByName.sorted { $0.key < $1.key }
        var bytes: [UInt8] = []
        for (name, hash) in hashes { bytes += Array(name.utf8) + Array(hash) }
        return SHA256.hash(bytes).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The record name of an object: the one it has, or a new one (written with the batch).
    private func name(of id: NSManagedObjectID, work: inout Work) throws -> String {
        if let name = work.names[id] { return name }
        let entityName = id.entity.name ?? ""
        if let name = try metadata.read({ db in
            try SyncMetadata.recordName(entity: entityName, primaryKey: id.primaryKey, in: db)
        }) {
            work.names[id] = name
            return name
        }
        return newName(for: id, work: &work)
    }

    /// A new record name for an object that has none.
    @discardableResult
    private func newName(for id: NSManagedObjectID, work: inout Work) -> String {
        let name = SyncRecordMapping.newRecordName(for: id.entity)
        work.names[id] = name
        work.newNames.append((id, name, SyncRecordMapping.recordType(of: id.entity)))
        work.newlyNamed.insert(name)
        return name
    }

    // MARK: Local-only objects

    /// Every object without a record (or, after a resync, whose record the server does not
    /// have) as an insert with all its fields.
    private func exportLocalOnly(
        context: NSManagedObjectContext, clock: inout SyncClock, work: inout Work, knownToServer: Set<String>?
    ) throws {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else { return }
        for entity in model.entities where !entity.isAbstract {
            guard let name = entity.name else { continue }
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            request.affectedStores = [store]
            request.fetchBatchSize = 500
            // The relationships an export reads, loaded with each batch of objects rather than
            // one query per object.
            request.relationshipKeyPathsForPrefetching = SyncRecordMapping.syncedRelationships(of: entity).map(\.name)
            let known = try metadata.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT ZPK, ZRECORDNAME FROM \(SyncMetadata.recordTable) WHERE ZENTITY = ?", arguments: [name]
                ).reduce(into: [Int64: String]()) { $0[$1[0]] = $1[1] }
            }
            for object in try context.fetch(request) {
                let id = object.objectID
                if let recordName = known[id.primaryKey] {
                    work.names[id] = recordName
                    guard let knownToServer else { continue }
                    if knownToServer.contains(recordName) {
                        // Its record is there; its links may not be.
                        let links = SyncRecordMapping.syncedRelationships(of: entity).filter {
                            SyncRecordMapping.form(of: $0) == .links
                        }
                        for relationship in links {
                            try exportLinks(
                                of: object, recordName: recordName, relationship: relationship, clock: &clock, work: &work)
                        }
                        continue
                    }
                } else if work.names[id] == nil {
                    // No record name in the table just read: a new one, without looking again.
                    newName(for: id, work: &work)
                }
                try exportObject(object, properties: nil, context: context, clock: &clock, work: &work)
            }
        }
    }

    /// The objects of a to-many relationship's value.
    static func relatedObjects(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        case let set as NSOrderedSet: set.array.compactMap { $0 as? NSManagedObject }
        case let set as Set<NSManagedObject>: Array(set)
        case let array as [NSManagedObject]: array
        default: []
        }
    }
}

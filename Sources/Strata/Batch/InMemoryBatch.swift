import Foundation

/// Batch requests in the in-memory and binary stores: row operations on the store's rows,
/// made on a copy that replaces them (and, for the binary store, is written to its file)
/// only when the whole request succeeded.
extension InMemoryStore: BatchStore {
    func batchInsert(_ plan: BatchInsertPlan) throws -> BatchOutcome {
        try state.withLock { state in
            var working = state
            var outcome = BatchOutcome()
            var unique = UniqueValueIndex(entity: plan.entity, rows: working.rows)
            let root = plan.entity.rootEntity.name ?? ""
            var touched: [RowChange] = []
            while let row = try plan.nextRow() {
                if let existing = unique.match(row.values), let stored = working.rows[existing] {
                    guard plan.replacesStoredRow else { continue }
                    var values = stored.values
                    let written =
                        plan.policy == .overwriteMergePolicyType ? Self.storedAttributes(of: plan.entity) : row.given
                    // The stored row may be of another entity of the hierarchy: positions go by name.
                    let layout = plan.entity.layout
                    let target = existing.entity.layout
                    for index in written {
                        guard let position = target.indexByName[layout.properties[index].name] else { continue }
                        values[position] = row.values[index]
                    }
                    let updated = Snapshot(objectID: existing, version: stored.version + 1, values: values)
                    working.rows[existing] = updated
                    unique.replace(stored.values, with: values, of: existing)
                    Self.note(existing, in: &outcome, collecting: plan.collectsIDs, touched: &touched)
                    continue
                }
                let key = (working.lastKeys[root] ?? 0) + 1
                working.lastKeys[root] = key
                let id = objectID(entity: plan.entity, primaryKey: key)
                working.rows[id] = Snapshot(objectID: id, version: 1, values: row.values)
                unique.add(row.values, of: id)
                Self.note(id, in: &outcome, collecting: plan.collectsIDs, touched: &touched)
            }
            try commit(
                &working, updates: touched, deletes: [], into: &state, author: plan.author,
                updated: { entity in SQLiteStore.attributeIndexes(of: entity) })
            return outcome
        }
    }

    func batchUpdate(_ plan: BatchUpdatePlan) throws -> BatchOutcome {
        try state.withLock { state in
            var working = state
            var outcome = BatchOutcome()
            var touched: [RowChange] = []
            let rows = working.rows
            let source = Self.rowSource(rows)
            for stored in Self.matching(plan.fetch, in: rows) {
                var values = stored.values
                let layout = stored.objectID.entity.layout
                for assignment in plan.assignments {
                    // A subentity's row has its own layout: the attribute is found by name.
                    guard let position = layout.indexByName[assignment.attribute.name] else { continue }
                    switch assignment.value {
                    case .constant(let value):
                        values[position] = value
                    case .expression(let expression):
                        let reader = RowReader(snapshot: stored, rows: source)
                        let value = PredicateEvaluator.value(of: expression, with: reader)
                        values[position] = try BatchRowBuilder.storedValue(
                            value, for: assignment.attribute, entity: stored.objectID.entity)
                    }
                }
                working.rows[stored.objectID] = Snapshot(objectID: stored.objectID, version: stored.version + 1, values: values)
                Self.note(stored.objectID, in: &outcome, collecting: plan.collectsIDs, touched: &touched)
            }
            let names = plan.assignments.map(\.attribute.name)
            try commit(
                &working, updates: touched, deletes: [], into: &state, author: plan.author,
                updated: { entity in names.compactMap { entity.layout.indexByName[$0] } })
            return outcome
        }
    }

    func batchDelete(_ plan: BatchDeletePlan) throws -> BatchOutcome {
        try state.withLock { state in
            var working = state
            let requested = plan.fetch.map { Self.matching($0, in: working.rows).map(\.objectID) } ?? plan.objectIDs
            let doomed = try InMemoryDeleteRules.apply(deleting: requested, in: &working.rows)
            var outcome = BatchOutcome(count: doomed.count)
            if plan.collectsIDs { outcome.objectIDs = doomed }
            let deletes = doomed.map {
                RowChange(objectID: $0, values: ValueRow(untypedCount: 0), changed: [], expectedVersion: 0)
            }
            try commit(&working, updates: [], deletes: deletes, into: &state, author: plan.author, updated: { _ in nil })
            return outcome
        }
    }

    /// Recomputes derived attributes as a save would, writes the rows where they last, and
    /// makes them the store's.
    /// With history tracked, the request's rows are recorded as one transaction: a row not
    /// there before is an insert, others are updates of `updated`'s positions.
    private func commit(
        _ working: inout State, updates: [RowChange], deletes: [RowChange], into state: inout State, author: HistoryAuthor,
        updated: (NSEntityDescription) -> [Int]?
    ) throws {
        var result = StoreSaveResult()
        DerivedAttributeValues.apply(
            to: &working.rows, request: StoreSaveRequest(updates: updates, deletes: deletes), result: &result)
        if tracksHistory {
            var changes: [HistoryChangeRecord] = []
            var seen = Set<NSManagedObjectID>()
            for change in updates where seen.insert(change.objectID).inserted {
                let id = change.objectID
                let isNew = state.rows[id] == nil
                changes.append(
                    HistoryChangeRecord(
                        id: 0, type: isNew ? .insert : .update, entity: id.entity, primaryKey: id.primaryKey,
                        updatedIndexes: isNew ? nil : updated(id.entity) ?? []))
            }
            for change in deletes {
                let id = change.objectID
                changes.append(
                    HistoryChangeRecord(
                        id: 0, type: .delete, entity: id.entity, primaryKey: id.primaryKey,
                        tombstone: InMemoryHistory.tombstone(of: state.rows[id])))
            }
            working.history.record(changes, author: author)
        }
        try persist(working)
        state = working
    }

    private static func note(
        _ id: NSManagedObjectID, in outcome: inout BatchOutcome, collecting: Bool, touched: inout [RowChange]
    ) {
        outcome.count += 1
        if collecting { outcome.objectIDs.append(id) }
        touched.append(RowChange(objectID: id, values: ValueRow(untypedCount: 0), changed: [], expectedVersion: 0))
    }

    private static func storedAttributes(of entity: NSEntityDescription) -> [Int] {
        let layout = entity.layout
        return layout.persistentIndexes.filter { index in
            layout.kinds[index] == .attribute && !(layout.properties[index] is NSDerivedAttributeDescription)
        }
    }

    static func rowSource(_ rows: [NSManagedObjectID: Snapshot]) -> RowSource {
        RowSource(
            row: { rows[$0] },
            related: { id, relationship in
                guard let index = id.entity.layout.indexByName[relationship.name] else { return [] }
                return (rows[id]?.values[index] as? [NSManagedObjectID] ?? []).filter { rows[$0] != nil }
            })
    }
}

/// The unique values of the stored rows of an entity's hierarchy, by constraint: a batch
/// insert finds the row a new one collides with in one lookup per constraint.
struct UniqueValueIndex {
    /// Per constraint: its layout positions, and values → row.
    private var constraints: [(indexes: [Int], rows: [[AnyHashable]: NSManagedObjectID])] = []

    init(entity: NSEntityDescription, rows: [NSManagedObjectID: Snapshot]) {
        let layout = entity.layout
        for names in entity.uniquenessConstraintNames where !names.isEmpty {
            let indexes = names.compactMap { layout.indexByName[$0] }
            guard indexes.count == names.count else { continue }
            constraints.append((indexes, [:]))
        }
        guard !constraints.isEmpty else { return }
        let hierarchy = Set(entity.rootEntity.selfAndDescendants.map(ObjectIdentifier.init))
        for (id, row) in rows where hierarchy.contains(ObjectIdentifier(id.entity)) { add(row.values, of: id) }
    }

    /// The row that has the unique values of `values` for some constraint.
    func match(_ values: ValueRow) -> NSManagedObjectID? {
        for constraint in constraints {
            if let key = Self.key(values, constraint.indexes), let found = constraint.rows[key] { return found }
        }
        return nil
    }

    mutating func add(_ values: ValueRow, of id: NSManagedObjectID) {
        for position in constraints.indices {
            if let key = Self.key(values, constraints[position].indexes) { constraints[position].rows[key] = id }
        }
    }

    mutating func replace(_ old: ValueRow, with new: ValueRow, of id: NSManagedObjectID) {
        for position in constraints.indices {
            if let key = Self.key(old, constraints[position].indexes) { constraints[position].rows[key] = nil }
        }
        add(new, of: id)
    }

    /// The values of a constraint; `nil` when one is missing (as in SQL, such rows never collide).
    private static func key(_ values: ValueRow, _ indexes: [Int]) -> [AnyHashable]? {
        var key: [AnyHashable] = []
        for index in indexes {
            guard values.indices.contains(index), let value = values[index] as? AnyHashable else { return nil }
            key.append(value)
        }
        return key
    }
}

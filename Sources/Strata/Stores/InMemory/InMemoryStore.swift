import Foundation

/// A store that keeps its rows in memory, for tests, previews and sample data. Its
/// objects live as long as the store is added to its coordinator.
class InMemoryStore: NSPersistentStore, @unchecked Sendable {
    override var type: String { NSInMemoryStoreType }

    struct State {
        /// Rows by ID: attribute values, to-one IDs, and every to-many as `[NSManagedObjectID]`.
        var rows: [NSManagedObjectID: Snapshot] = [:]
        /// The last key handed out, by root entity name.
        var lastKeys: [String: Int64] = [:]
        /// Persistent history, when the store tracks it.
        var history = InMemoryHistory()
    }

    let state = Protected(State())

    override func open(model: NSManagedObjectModel) throws {
        identifier = UUID().uuidString
        var metadata = Self.modelMetadata(for: model, type: type)
        metadata[NSStoreUUIDKey] = identifier
        self.loadMetadata(metadata)
    }

    override func fetchSnapshots(_ plan: FetchPlan) throws -> [Snapshot] {
        Self.matching(plan, in: state.withLock { $0.rows })
    }

    /// The rows of `rows` a fetch plan selects, in its order and page.
    static func matching(_ plan: FetchPlan, in rows: [NSManagedObjectID: Snapshot]) -> [Snapshot] {
        let entities = Set(plan.entities.map(ObjectIdentifier.init))
        let source = RowSource(
            row: { rows[$0] },
            related: { id, relationship in
                guard let index = id.entity.layout.indexByName[relationship.name] else { return [] }
                return (rows[id]?.values[index] as? [NSManagedObjectID] ?? []).filter { rows[$0] != nil }
            })
        var matching = rows.values.filter { entities.contains(ObjectIdentifier($0.objectID.entity)) }
        if let predicate = plan.predicate {
            matching = matching.filter { PredicateEvaluator.evaluate(predicate, with: RowReader(snapshot: $0, rows: source)) }
        }
        // Without sort keys, rows come in the order they were made, as a SQLite table's do.
        matching.sort { $0.objectID.primaryKey < $1.objectID.primaryKey }
        let ordered = InMemorySort.sorted(matching, by: plan.sortKeys) {
            RowReader(snapshot: $0, rows: source).value(atKeyPath: $1)
        }
        return Array(ordered.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
    }

    override func snapshot(for objectID: NSManagedObjectID) throws -> Snapshot? {
        state.withLock { $0.rows[objectID] }
    }

    override func relatedObjectIDs(
        of objectID: NSManagedObjectID, relationship: NSRelationshipDescription
    ) throws -> [NSManagedObjectID] {
        guard let index = objectID.entity.layout.indexByName[relationship.name] else { return [] }
        return state.withLock { state in
            let ids = state.rows[objectID]?.values[index] as? [NSManagedObjectID] ?? []
            return ids.filter { state.rows[$0] != nil }
        }
    }

    override func allocatePermanentIDs(for entities: [NSEntityDescription]) throws -> [NSManagedObjectID] {
        state.withLock { state in allocate(entities, in: &state) }
    }

    private func allocate(_ entities: [NSEntityDescription], in state: inout State) -> [NSManagedObjectID] {
        entities.map { entity in
            let root = entity.rootEntity.name ?? ""
            let key = (state.lastKeys[root] ?? 0) + 1
            state.lastKeys[root] = key
            return objectID(entity: entity, primaryKey: key)
        }
    }

    override func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try state.withLock { state in
            var working = state
            var conflicts: [VersionConflict] = []
            for change in request.updates + request.deletes {
                let stored = working.rows[change.objectID]
                if stored?.version != change.expectedVersion {
                    conflicts.append(
                        VersionConflict(
                            objectID: change.objectID, expectedVersion: change.expectedVersion,
                            storedVersion: stored?.version ?? 0, storedSnapshot: stored))
                }
            }
            guard conflicts.isEmpty else { throw VersionConflictError(conflicts: conflicts) }
            var result = StoreSaveResult()
            let temporary = request.inserts.filter { $0.objectID.persistentStore !== self }
            let permanent = allocate(temporary.map(\.objectID.entity), in: &working)
            var idMap = ObjectIDDictionary<NSManagedObjectID>()
            for (change, id) in zip(temporary, permanent) { idMap[change.objectID] = id }
            let resolve: (Any?) -> Any? = { [idMap] value in
                switch value {
                case let target as NSManagedObjectID: idMap[target] ?? target
                case let targets as [NSManagedObjectID]: targets.map { idMap[$0] ?? $0 }
                default: value
                }
            }
            for change in request.inserts {
                let id = idMap[change.objectID] ?? change.objectID
                let values = ValueRow(
                    change.values.enumerated().map { index, value -> Any? in
                        id.entity.layout.isToMany(index) ? (resolve(value) ?? [NSManagedObjectID]()) : resolve(value)
                    }, shape: id.entity.layout.valueShape)
                let snapshot = Snapshot(objectID: id, version: 1, values: values)
                working.rows[id] = snapshot
                result.inserted.append(snapshot)
            }
            for change in request.updates {
                guard let stored = working.rows[change.objectID] else {
                    throw VersionConflictError(conflicts: [
                        VersionConflict(objectID: change.objectID, expectedVersion: change.expectedVersion, storedVersion: 0)
                    ])
                }
                var values = stored.values
                for index in change.changed { values[index] = resolve(change.values[index]) }
                let snapshot = Snapshot(objectID: change.objectID, version: stored.version + 1, values: values)
                working.rows[change.objectID] = snapshot
                result.updated.append(snapshot)
            }
            for change in request.deletes { working.rows[change.objectID] = nil }
            DerivedAttributeValues.apply(to: &working.rows, request: request, result: &result)
            if tracksHistory {
                working.history.record(
                    InMemoryHistory.changes(
                        of: request, result: result, before: state.rows, recordsValues: recordsHistoryValues,
                        resolve: { idMap[$0] ?? $0 }),
                    author: request.historyAuthor)
            }
            try persist(working)
            state = working
            return result
        }
    }

    /// Writes the rows somewhere lasting; the in-memory store keeps them in memory only.
    func persist(_ state: State) throws {}

    override func saveMetadata() throws {
        try persist(state.withLock { $0 })
        metadataNeedsSaving = false
    }
}

import Foundation
import GRDB
import Testing

@testable import Strata

/// Every Apple-written corpus store that PAIRS.tsv pairs with an Xcode model, opened, read and
/// edited through Strata's SQLite store with Core Data's public API, and checked against the
/// raw rows, which this test reads with GRDB and decodes on its own (the raw row is the truth).
@Suite struct SQLiteCorpusStoreTests {
    @Test(.enabled(if: TestCorpus.isAvailable))
    func corpusStoresReadAndWriteLikeAppleWroteThem() throws {
        var totals = CorpusTotals()
        var skipped: [String] = []
        var eligible = 0
        for pair in try TestCorpus.pairs() {
            guard let store = pair["store"] else { continue }
            guard let path = CorpusStorePairs.modelPath(store: store, pair: pair), path.hasSuffix(".xcdatamodel") else {
                skipped.append("\(store): no Xcode model to open it with (\(pair["best_model_version"] ?? "none"))")
                continue
            }
            if CorpusStorePairs.knownMispairedStores.contains(store) {
                skipped.append("\(store): PAIRS.tsv pairs it with \(path), a model with other entities")
                continue
            }
            eligible += 1
            let check = try CorpusStoreCheck(store: store, modelPath: path)
            defer { check.removeCopy() }
            check.run(totals: &totals)
        }
        print("SQLite corpus stores skipped:\n  " + skipped.joined(separator: "\n  "))
        print(
            "corpus stores: \(totals.opened) opened, \(totals.objects) objects and \(totals.relationships) relationships compared, \(totals.edited) edited"
        )
        #expect(eligible > 0)
        #expect(totals.opened == eligible, "\(eligible - totals.opened) of \(eligible) paired stores did not open")
    }
}

struct CorpusTotals {
    var opened = 0
    var objects = 0
    var relationships = 0
    var edited = 0
}

/// The relationship destinations a raw row holds: "Entity/p<Z_PK>" references, in the stored
/// order when `ordered` (otherwise sorted).
struct ExpectedTargets {
    var references: [String]
    var ordered: Bool
}

/// What the edit phase changed in one store, to verify after reopening.
struct CorpusEdits {
    struct StringEdit {
        var entity: NSEntityDescription
        var primaryKey: Int64
        var attribute: NSAttributeDescription
        var column: String
        var value: String
    }
    struct Insert {
        var entity: NSEntityDescription
        var primaryKey: Int64
        var values: [(attribute: NSAttributeDescription, value: Any)]
    }
    struct Delete {
        var entity: NSEntityDescription
        var primaryKey: Int64
        /// Relationships with Nullify rule and the objects they held before the delete.
        var nullified: [(relationship: NSRelationshipDescription, targets: [String])]
    }

    var edit: StringEdit?
    var insert: Insert?
    var delete: Delete?
    var log: [String] = []

    var anySaved: Bool { edit != nil || insert != nil || delete != nil }
}

/// One corpus store under test: a copy of it, its model, Strata's schema mapping for the model
/// (to find the columns in the raw rows), and the mismatches found.
final class CorpusStoreCheck {
    let store: String
    let url: URL
    let model: NSManagedObjectModel
    let layout: SQLiteSchema
    let findings = CorpusFindings()
    let entities: [NSEntityDescription]

    init(store: String, modelPath: String) throws {
        self.store = store
        model = try NSManagedObjectModel.load(contentsOf: TestCorpus.models.appendingPathComponent(modelPath))
        layout = SQLiteSchema(model: model)
        entities = model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        url = try TestCorpus.copyOfStore(named: store)
    }

    func removeCopy() { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }

    private func fail(_ key: String, _ example: String) { findings.fail(key, example) }

    // MARK: The whole check

    func run(totals: inout CorpusTotals) {
        var summary = "\(store):"
        defer { report(summary) }
        let before: RawCorpusStore
        do {
            before = try RawCorpusStore(url: url, layout: layout)
        } catch {
            fail("raw read", "GRDB could not read the copy: \(error)")
            return
        }
        for row in before.foreignEntityRows { findings.note("raw data: \(row)") }
        if model.entityVersionHashesByName != before.versionHashes {
            fail("pairing", "the model's version hashes are not the store's; PAIRS.tsv pairing is wrong")
        }
        var edits = CorpusEdits()
        // 1–4a: open, compare every object, edit, with a first coordinator.
        do {
            let (coordinator, persistentStore) = try open(expecting: before)
            totals.opened += 1
            let pass = try compareAll(context: makeContext(coordinator), raw: before, phase: "read")
            totals.objects += pass.objects
            totals.relationships += pass.relationships
            summary += " \(pass.objects) objects, \(pass.relationships) relationships compared;"
            edits = edit(coordinator: coordinator, raw: before, objectIDs: pass.objectIDs)
            do {
                try coordinator.remove(persistentStore)
            } catch {
                fail("remove store", "\(error)")
            }
        } catch {
            fail("open", "\(error)")
            return
        }
        summary += " " + edits.log.joined(separator: "; ")
        // 4b: what the edits wrote, read back raw and through a new coordinator.
        do {
            let after = try RawCorpusStore(url: url, layout: layout)
            let (coordinator, _) = try open(expecting: after)
            let context = makeContext(coordinator)
            _ = try compareAll(context: context, raw: after, phase: "reopened after edits")
            try verify(edits, before: before, after: after, context: context)
            if edits.anySaved { totals.edited += 1 }
        } catch {
            fail("reopen after edits", "\(error)")
        }
    }

    private func report(_ summary: String) {
        print(summary)
        for note in findings.notes { print("  note: \(note)") }
        for group in findings.groups {
            Issue.record("\(store): \(group.key): \(group.count) mismatch(es); first: \(group.example)")
        }
    }

    // MARK: Opening

    private func open(expecting raw: RawCorpusStore) throws -> (NSPersistentStoreCoordinator, NSPersistentStore) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let persistentStore = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        if persistentStore.identifier != raw.uuid {
            fail("store identifier", "\(String(describing: persistentStore.identifier)), Z_METADATA.Z_UUID \(raw.uuid)")
        }
        let hashes = persistentStore.metadata[NSStoreModelVersionHashesKey] as? [String: Data]
        if hashes != raw.versionHashes {
            fail(
                "metadata version hashes",
                "store.metadata has \(hashes?.keys.sorted() ?? []), Z_PLIST \(raw.versionHashes.keys.sorted())")
        }
        if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: persistentStore.metadata) {
            fail("metadata", "the model is not compatible with store.metadata")
        }
        return (coordinator, persistentStore)
    }

    private func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `body` on the context's queue and returns its result (issues are recorded outside).
    private func perform<T>(_ context: NSManagedObjectContext, _ body: () throws -> T) throws -> T {
        var result: Result<T, any Error>?
        context.performAndWait { result = Result { try body() } }
        guard let result else { throw CorpusStoreError("performAndWait did not run its block") }
        return try result.get()
    }

    // MARK: 2–3: objects and relationships against the raw rows

    struct Pass {
        var objects = 0
        var relationships = 0
        var objectIDs: [String: NSManagedObjectID] = [:]
    }

    private func compareAll(context: NSManagedObjectContext, raw: RawCorpusStore, phase: String) throws -> Pass {
        try perform(context) {
            var pass = Pass()
            for entity in entities where !entity.isAbstract {
                compare(entity: entity, context: context, raw: raw, phase: phase, pass: &pass)
            }
            return pass
        }
    }

    private func compare(
        entity: NSEntityDescription, context: NSManagedObjectContext, raw: RawCorpusStore, phase: String, pass: inout Pass
    ) {
        let name = entity.name ?? ""
        let rows = raw.rows(of: entity)
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        let objects: [NSManagedObject]
        do {
            objects = try context.fetch(request)
        } catch {
            fail("\(phase): fetch \(name)", "\(error)")
            return
        }
        if objects.count != rows.count {
            fail(
                "\(phase): \(name) object count",
                "\(objects.count) objects fetched, \(rows.count) rows of \(name) in \(SQLiteSchema.tableName(entity))")
        }
        var byKey: [Int64: NSManagedObject] = [:]
        for object in objects {
            let url = object.objectID.uriRepresentation()
            guard let uri = CorpusObjectURI(url) else {
                fail("\(phase): \(name) object URI", "\(url.absoluteString) is not x-coredata://<Z_UUID>/\(name)/p<Z_PK>")
                continue
            }
            if uri.storeIdentifier != raw.uuid || uri.entity != name || object.entity.name != name {
                fail(
                    "\(phase): \(name) object URI",
                    "\(url.absoluteString) (entity \(object.entity.name ?? "nil")), expected x-coredata://\(raw.uuid)/\(name)/p…")
            }
            if byKey.updateValue(object, forKey: uri.primaryKey) != nil {
                fail("\(phase): \(name) duplicate objects", "p\(uri.primaryKey) fetched twice")
            }
        }
        for key in byKey.keys.sorted() where rows[key] == nil {
            fail("\(phase): \(name) object without a row", "p\(key)")
        }
        for (key, row) in rows.sorted(by: { $0.key < $1.key }) {
            guard let object = byKey[key] else {
                fail("\(phase): \(name) row not fetched", "Z_PK \(key)")
                continue
            }
            pass.objects += 1
            pass.objectIDs["\(name)/p\(key)"] = object.objectID
            compareAttributes(object, entity: entity, key: key, row: row, phase: phase)
            pass.relationships += compareRelationships(object, entity: entity, key: key, row: row, raw: raw, phase: phase)
        }
        checkSortedFetch(entity: entity, context: context, rows: rows, phase: phase)
    }

    private func storedAttributes(_ entity: NSEntityDescription) -> [(NSAttributeDescription, String)] {
        entity.attributesByName.values.sorted { $0.name < $1.name }.compactMap { attribute in
            guard !attribute.isTransient else { return nil }
            guard let column = layout.columnName(entity: entity, property: attribute.name) else {
                findings.note("\(entity.name ?? "").\(attribute.name) (\(attribute.attributeType)) has no column; not compared")
                return nil
            }
            return (attribute, column)
        }
    }

    private func compareAttributes(
        _ object: NSManagedObject, entity: NSEntityDescription, key: Int64, row: RawStoreRow, phase: String
    ) {
        let name = entity.name ?? ""
        for (attribute, column) in storedAttributes(entity) {
            let expected = RawAttributeValue.decode(row.value(column), attribute: attribute)
            if case .undecodable(let reason) = expected {
                findings.note("\(name).\(attribute.name) p\(key): \(reason); not compared")
                continue
            }
            let actual = object.value(forKey: attribute.name)
            if !expected.matches(actual) {
                fail(
                    "\(phase): \(name).\(attribute.name) (\(column), \(attribute.attributeType.xcodeModelName ?? "?"))",
                    "p\(key): raw row \(expected.description), Strata \(RawAttributeValue.show(actual))")
            }
        }
    }

    private func compareRelationships(
        _ object: NSManagedObject, entity: NSEntityDescription, key: Int64, row: RawStoreRow, raw: RawCorpusStore,
        phase: String
    ) -> Int {
        let name = entity.name ?? ""
        var compared = 0
        for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !relationship.isTransient {
            let label = "\(phase): \(name).\(relationship.name) (\(relationshipKind(relationship)))"
            guard let expected = expectedTargets(key: key, row: row, entity: entity, relationship: relationship, raw: raw)
            else {
                findings.note("\(name).\(relationship.name): no storage found in the schema mapping; not compared")
                continue
            }
            compared += 1
            let value = object.value(forKey: relationship.name)
            let members: [Any]
            if !relationship.isToMany {
                members = value.map { [$0] } ?? []
            } else if relationship.isOrdered {
                guard let set = value as? NSOrderedSet else {
                    fail(label, "p\(key): value is \(RawAttributeValue.show(value)), expected NSOrderedSet")
                    continue
                }
                members = set.array
            } else {
                guard let set = value as? NSSet else {
                    fail(label, "p\(key): value is \(RawAttributeValue.show(value)), expected NSSet")
                    continue
                }
                members = set.allObjects
            }
            var actual: [String] = []
            for member in members {
                guard let target = member as? NSManagedObject, let uri = CorpusObjectURI(target.objectID.uriRepresentation())
                else {
                    actual.append("not an object with a permanent ID: \(RawAttributeValue.show(member))")
                    continue
                }
                let dangling = "?/p\(uri.primaryKey)"
                actual.append(expected.references.contains(dangling) ? dangling : uri.reference)
            }
            if !expected.ordered { actual.sort() }
            if actual != expected.references {
                fail(label, "p\(key): raw rows \(expected.references), Strata \(actual)")
            }
        }
        return compared
    }

    private func relationshipKind(_ relationship: NSRelationshipDescription) -> String {
        guard relationship.isToMany else { return "to-one" }
        let ordered = relationship.isOrdered ? "ordered " : ""
        guard let inverse = relationship.inverseRelationship else { return "\(ordered)to-many without inverse" }
        return inverse.isToMany ? "\(ordered)many-to-many" : "\(ordered)to-many"
    }

    /// The destinations a relationship of the row's object holds, from the raw rows alone:
    /// the FK column (to-one), the rows whose FK points back (to-many with a to-one inverse),
    /// the join table (many-to-many), the hidden `Z<n><NAME>` column (to-many without inverse).
    func expectedTargets(
        key: Int64, row: RawStoreRow, entity: NSEntityDescription, relationship: NSRelationshipDescription,
        raw: RawCorpusStore
    ) -> ExpectedTargets? {
        guard let destination = relationship.destinationEntity, let owner = relationship.entity else { return nil }
        let table = SQLiteSchema.tableName(destination)
        let kinds = Set(destination.selfAndDescendants.compactMap(\.name))
        if !relationship.isToMany {
            guard let column = layout.columnName(entity: entity, property: relationship.name) else { return nil }
            guard let target = row.integer(column) else { return ExpectedTargets(references: [], ordered: false) }
            // A destination with subentities has its entity in the `Z<n>_` column beside the key.
            if let entityColumn = layout.entityColumnNames[entity.name ?? ""]?[relationship.name],
                let number = row.integer(entityColumn), let targetEntity = raw.entityNames[number]
            {
                return ExpectedTargets(references: ["\(targetEntity)/p\(target)"], ordered: false)
            }
            return ExpectedTargets(references: [raw.reference(table: table, pk: target)], ordered: false)
        }
        var found: [(reference: String, order: Int64?)] = []
        if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            guard let inverseOwner = inverse.entity, let column = layout.columnName(entity: inverseOwner, property: inverse.name)
            else { return nil }
            let orderColumn = relationship.isOrdered ? layout.orderColumnNames[inverseOwner.name ?? ""]?[inverse.name] : nil
            for (target, targetRow) in raw.tables[table] ?? [:]
            where targetRow.integer(column) == key && raw.row(targetRow, table: table, isOneOf: kinds) {
                found.append((raw.reference(table: table, pk: target), targetRow.integer(orderColumn)))
            }
        } else if relationship.inverseRelationship != nil {
            guard let join = layout.joinTable(entity: owner, relationship: relationship.name) else { return nil }
            let isSideA = join.sourceEntity == owner.name && join.sourceRelationship == relationship.name
            let mine = isSideA ? join.sourceColumn : join.destinationColumn
            let theirs = isSideA ? join.destinationColumn : join.sourceColumn
            let orderColumn = relationship.isOrdered ? (isSideA ? join.sourceOrderColumn : join.destinationOrderColumn) : nil
            for link in raw.joinTables[join.name] ?? [] where link.integer(mine) == key {
                guard let target = link.integer(theirs) else { continue }
                found.append((raw.reference(table: table, pk: target), link.integer(orderColumn)))
            }
        } else {
            guard let column = layout.hiddenInverseColumns["\(owner.name ?? "").\(relationship.name)"] else { return nil }
            for (target, targetRow) in raw.tables[table] ?? [:]
            where targetRow.integer(column) == key && raw.row(targetRow, table: table, isOneOf: kinds) {
                found.append((raw.reference(table: table, pk: target), nil))
            }
        }
        let orders = found.compactMap(\.order)
        if relationship.isOrdered && orders.count == found.count && Set(orders).count == orders.count {
            return ExpectedTargets(
                references: found.sorted { ($0.order ?? 0) < ($1.order ?? 0) }.map(\.reference), ordered: true)
        }
        if relationship.isOrdered && found.count > 1 {
            findings.note("\(entity.name ?? "").\(relationship.name): Z_FOK_ order keys missing or tied; compared as a set")
        }
        return ExpectedTargets(references: found.map(\.reference).sorted(), ordered: false)
    }

    /// A fetch sorted on a number or date attribute returns the same objects, in ascending
    /// order of the raw values with NULL first (SQLite's order, which Core Data's SQL uses).
    private func checkSortedFetch(
        entity: NSEntityDescription, context: NSManagedObjectContext, rows: [Int64: RawStoreRow], phase: String
    ) {
        let sortable: Set<NSAttributeType> = [
            .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
            .floatAttributeType, .dateAttributeType,
        ]
        guard rows.count >= 2,
            let (attribute, column) = storedAttributes(entity).first(where: { sortable.contains($0.0.attributeType) })
        else { return }
        let name = entity.name ?? ""
        let label = "\(phase): \(name) sorted by \(attribute.name)"
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        request.sortDescriptors = [NSSortDescriptor(key: attribute.name, ascending: true)]
        let objects: [NSManagedObject]
        do {
            objects = try context.fetch(request)
        } catch {
            fail(label, "fetch failed: \(error)")
            return
        }
        let keys = objects.compactMap { CorpusObjectURI($0.objectID.uriRepresentation())?.primaryKey }
        guard keys.sorted() == rows.keys.sorted() else {
            fail(label, "objects p\(keys.sorted()) for rows p\(rows.keys.sorted())")
            return
        }
        let values = keys.map { key in
            rows[key].flatMap { RawAttributeValue.decode($0.value(column), attribute: attribute).sortKey }
        }
        for (index, (a, b)) in zip(values, values.dropFirst()).enumerated() {
            let inOrder: Bool
            switch (a, b) {
            case (nil, _): inOrder = true
            case (.some, nil): inOrder = false
            case (.some(let a), .some(let b)): inOrder = a <= b
            }
            if !inOrder {
                fail(
                    label,
                    "p\(keys[index]) (\(a.map { "\($0)" } ?? "NULL")) before p\(keys[index + 1]) (\(b.map { "\($0)" } ?? "NULL"))"
                )
                return
            }
        }
    }

    // MARK: 4: edits

    /// Whether Core Data's save-time validation would accept the row's object as it is
    /// (it validates every object a save updates).
    private func isValid(entity: NSEntityDescription, key: Int64, row: RawStoreRow, raw: RawCorpusStore) -> Bool {
        for (attribute, column) in storedAttributes(entity) {
            let isNull: Bool
            if case .null = row.value(column).storage { isNull = true } else { isNull = false }
            if !attribute.isOptional && isNull { return false }
            let hasRules =
                attribute.minValueString != nil || attribute.maxValueString != nil || attribute.regularExpressionString != nil
            if hasRules && !isNull { return false }
        }
        for relationship in entity.relationshipsByName.values where !relationship.isTransient {
            let count =
                expectedTargets(key: key, row: row, entity: entity, relationship: relationship, raw: raw)?.references.count ?? 0
            if !relationship.isOptional && count == 0 { return false }
            if relationship.isToMany && count > 0 {
                if relationship.minCount > 0 && count < relationship.minCount { return false }
                if relationship.maxCount > 0 && count > relationship.maxCount { return false }
            }
        }
        return true
    }

    /// Runs a change and a save in a new context of the coordinator.
    private func saveInNewContext<T>(
        _ coordinator: NSPersistentStoreCoordinator, _ change: (NSManagedObjectContext) throws -> T
    ) -> Result<T, any Error> {
        let context = makeContext(coordinator)
        do {
            return .success(try perform(context) { try change(context) })
        } catch {
            return .failure(error)
        }
    }

    /// NSValidation… errors (1550–1699): the store's own model refused the change.
    private func isValidationError(_ error: any Error) -> Bool {
        let error = error as NSError
        return error.domain == NSCocoaErrorDomain && (1550...1699).contains(error.code)
    }

    /// Records a failed save: a validation error moves on to the next candidate, anything
    /// else is a failure of the store.
    private func saveFailed(_ what: String, _ error: any Error, log: inout [String]) {
        if isValidationError(error) {
            log.append("\(what) refused by the model's validation (\((error as NSError).code)), trying another")
        } else {
            fail("save: \(what)", "\(error)")
        }
    }

    private func edit(
        coordinator: NSPersistentStoreCoordinator, raw: RawCorpusStore, objectIDs: [String: NSManagedObjectID]
    ) -> CorpusEdits {
        var edits = CorpusEdits()
        editString(coordinator: coordinator, raw: raw, objectIDs: objectIDs, edits: &edits)
        insertObject(coordinator: coordinator, raw: raw, edits: &edits)
        deleteObject(coordinator: coordinator, raw: raw, objectIDs: objectIDs, edits: &edits)
        return edits
    }

    private static let attemptsPerEdit = 3

    private func editString(
        coordinator: NSPersistentStoreCoordinator, raw: RawCorpusStore, objectIDs: [String: NSManagedObjectID],
        edits: inout CorpusEdits
    ) {
        var candidates: [CorpusEdits.StringEdit] = []
        for entity in entities where !entity.isAbstract {
            let strings = storedAttributes(entity).filter { attribute, _ in
                attribute.attributeType == .stringAttributeType && !(attribute is NSDerivedAttributeDescription)
                    && attribute.minValueString == nil && attribute.maxValueString == nil
                    && attribute.regularExpressionString == nil
            }
            guard let (attribute, column) = strings.first else { continue }
            for (key, row) in raw.rows(of: entity).sorted(by: { $0.key < $1.key })
            where isValid(entity: entity, key: key, row: row, raw: raw) {
                let value = "edited by Strata \(UUID().uuidString)"
                candidates.append(.init(entity: entity, primaryKey: key, attribute: attribute, column: column, value: value))
            }
        }
        guard !candidates.isEmpty else {
            edits.log.append("no String edit (no valid object with a String attribute)")
            return
        }
        for candidate in candidates.prefix(Self.attemptsPerEdit) {
            let what = "edit of \(candidate.entity.name ?? "").\(candidate.attribute.name) of p\(candidate.primaryKey)"
            guard let objectID = objectIDs["\(candidate.entity.name ?? "")/p\(candidate.primaryKey)"] else {
                fail("edit", "\(what): the object was not fetched")
                return
            }
            switch saveInNewContext(
                coordinator,
                { context in
                    let object = context.object(with: objectID)
                    object.setValue(candidate.value, forKey: candidate.attribute.name)
                    try context.save()
                })
            {
            case .success:
                edits.edit = candidate
                edits.log.append(what)
                return
            case .failure(let error):
                saveFailed(what, error, log: &edits.log)
                if !isValidationError(error) { return }
            }
        }
        edits.log.append("String edit skipped: the model's validation refused \(Self.attemptsPerEdit) candidates")
    }

    /// A value of the attribute's type for a new object, within its validation rules; nil
    /// when the test cannot make one.
    private func sampleValue(_ attribute: NSAttributeDescription, raw: RawCorpusStore, column: String) -> Any? {
        let hasRules =
            attribute.minValueString != nil || attribute.maxValueString != nil || attribute.regularExpressionString != nil
        func integer() -> Int64? {
            let unique = attribute.entity.uniquenessConstraintNames.contains { $0.contains(attribute.name) }
            let table = raw.tables[SQLiteSchema.tableName(attribute.entity)] ?? [:]
            var value: Int64 = unique ? (table.values.compactMap { $0.integer(column) }.max() ?? 0) + 1 : 7
            if let minimum = attribute.minValueString.flatMap(Int64.init) { value = max(value, minimum) }
            if let maximum = attribute.maxValueString.flatMap(Int64.init) { value = min(value, maximum) }
            return value
        }
        switch attribute.attributeType {
        case .integer16AttributeType: return integer().flatMap { Int16(exactly: $0) }
        case .integer32AttributeType: return integer().flatMap { Int32(exactly: $0) }
        case .integer64AttributeType: return integer()
        case .decimalAttributeType: return hasRules ? nil : Decimal(string: "12.5")
        case .doubleAttributeType: return hasRules ? nil : 1234.5
        case .floatAttributeType: return hasRules ? nil : Float(2.5)
        case .stringAttributeType: return hasRules ? nil : "inserted by Strata \(UUID().uuidString)"
        case .booleanAttributeType: return true
        case .dateAttributeType: return hasRules ? nil : Date(timeIntervalSinceReferenceDate: 765_432_109.25)
        case .binaryDataAttributeType: return hasRules ? nil : Data([0x53, 0x74, 0x72, 0x61, 0x74, 0x61])
        case .UUIDAttributeType: return UUID()
        case .URIAttributeType: return URL(string: "https://example.com/strata/\(UUID().uuidString)")
        default: return nil
        }
    }

    private func insertObject(coordinator: NSPersistentStoreCoordinator, raw: RawCorpusStore, edits: inout CorpusEdits) {
        var candidates: [(entity: NSEntityDescription, values: [(attribute: NSAttributeDescription, value: Any)])] = []
        for entity in entities where entity.superentity == nil && !entity.isAbstract {
            let name = entity.name ?? ""
            let reserved = raw.maxKeys[name] ?? 0
            if let largest = raw.tables[SQLiteSchema.tableName(entity)]?.keys.max(), reserved < largest {
                edits.log.append("insert skips \(name): Z_MAX \(reserved) is below its largest Z_PK \(largest)")
                continue
            }
            if let required = entity.relationshipsByName.values.first(where: { !$0.isOptional && !$0.isTransient }) {
                edits.log.append("insert skips \(name): relationship \(required.name) is required")
                continue
            }
            var values: [(attribute: NSAttributeDescription, value: Any)] = []
            var usable = true
            for (attribute, column) in storedAttributes(entity) where !(attribute is NSDerivedAttributeDescription) {
                if let value = sampleValue(attribute, raw: raw, column: column) {
                    values.append((attribute, value))
                } else if !attribute.isOptional {
                    edits.log.append("insert skips \(name): no value for required \(attribute.name)")
                    usable = false
                    break
                }
            }
            if usable { candidates.append((entity, values)) }
        }
        for candidate in candidates.prefix(Self.attemptsPerEdit) {
            let name = candidate.entity.name ?? ""
            switch saveInNewContext(
                coordinator,
                { context -> URL in
                    let object = NSManagedObject(entity: candidate.entity, insertInto: context)
                    for (attribute, value) in candidate.values { object.setValue(value, forKey: attribute.name) }
                    try context.save()
                    return object.objectID.uriRepresentation()
                })
            {
            case .success(let url):
                guard let uri = CorpusObjectURI(url), uri.entity == name else {
                    fail("insert", "after save the new \(name) has ID \(url.absoluteString), not a permanent x-coredata URI")
                    return
                }
                edits.insert = .init(entity: candidate.entity, primaryKey: uri.primaryKey, values: candidate.values)
                edits.log.append("inserted \(name) p\(uri.primaryKey) with \(candidate.values.count) attributes")
                return
            case .failure(let error):
                saveFailed("insert of \(name)", error, log: &edits.log)
                if !isValidationError(error) { return }
            }
        }
        if edits.insert == nil { edits.log.append("insert skipped: no root entity could take a new object") }
    }

    private func deleteObject(
        coordinator: NSPersistentStoreCoordinator, raw: RawCorpusStore, objectIDs: [String: NSManagedObjectID],
        edits: inout CorpusEdits
    ) {
        let edited = edits.edit.map { "\($0.entity.name ?? "")/p\($0.primaryKey)" }
        var candidates: [CorpusEdits.Delete] = []
        for entity in entities where !entity.isAbstract {
            let relationships = entity.relationshipsByName.values.filter { !$0.isTransient }.sorted { $0.name < $1.name }
            if let deny = relationships.first(where: { $0.deleteRule == .denyDeleteRule }) {
                edits.log.append("delete skips \(entity.name ?? ""): \(deny.name) has the Deny rule")
                continue
            }
            rows: for (key, row) in raw.rows(of: entity).sorted(by: { $0.key < $1.key }) {
                if "\(entity.name ?? "")/p\(key)" == edited { continue }
                var nullified: [(relationship: NSRelationshipDescription, targets: [String])] = []
                for relationship in relationships {
                    guard
                        let targets = expectedTargets(key: key, row: row, entity: entity, relationship: relationship, raw: raw)?
                            .references
                    else { continue rows }
                    guard !targets.isEmpty else { continue }
                    // Cascades would reach further than this check follows; the edited object
                    // must keep its single Z_OPT step.
                    if relationship.deleteRule == .cascadeDeleteRule || targets.contains(where: { $0 == edited }) {
                        continue rows
                    }
                    guard relationship.deleteRule == .nullifyDeleteRule, let inverse = relationship.inverseRelationship else {
                        continue
                    }
                    if !inverse.isOptional || inverse.minCount > 0 { continue rows }
                    for target in targets {
                        guard let (targetEntity, targetKey, targetRow) = rowOf(reference: target, raw: raw),
                            isValid(entity: targetEntity, key: targetKey, row: targetRow, raw: raw)
                        else { continue rows }
                    }
                    nullified.append((relationship, targets))
                }
                candidates.append(.init(entity: entity, primaryKey: key, nullified: nullified))
            }
        }
        // Objects whose delete nullifies something first: that is the interesting write.
        candidates = candidates.filter { !$0.nullified.isEmpty } + candidates.filter { $0.nullified.isEmpty }
        guard !candidates.isEmpty else {
            edits.log.append("no delete (no object without cascades and required inverses)")
            return
        }
        for candidate in candidates.prefix(Self.attemptsPerEdit) {
            let what = "delete of \(candidate.entity.name ?? "") p\(candidate.primaryKey)"
            guard let objectID = objectIDs["\(candidate.entity.name ?? "")/p\(candidate.primaryKey)"] else {
                fail("delete", "\(what): the object was not fetched")
                return
            }
            switch saveInNewContext(
                coordinator,
                { context in
                    context.delete(context.object(with: objectID))
                    try context.save()
                })
            {
            case .success:
                edits.delete = candidate
                let nullified = candidate.nullified.map { "\($0.relationship.name) ×\($0.targets.count)" }
                edits.log.append("\(what) (nullifies \(nullified.isEmpty ? "nothing" : nullified.joined(separator: ", ")))")
                return
            case .failure(let error):
                saveFailed(what, error, log: &edits.log)
                if !isValidationError(error) { return }
            }
        }
        if edits.delete == nil { edits.log.append("delete skipped: the model's validation refused every candidate") }
    }

    private func rowOf(reference: String, raw: RawCorpusStore) -> (NSEntityDescription, Int64, RawStoreRow)? {
        let parts = reference.split(separator: "/")
        guard parts.count == 2, let entity = model.entitiesByName[String(parts[0])],
            let key = Int64(parts[1].dropFirst()), let row = raw.tables[SQLiteSchema.tableName(entity)]?[key]
        else { return nil }
        return (entity, key, row)
    }

    // MARK: 4b: after reopening

    private func fetchObject(
        _ entity: NSEntityDescription, key: Int64, context: NSManagedObjectContext
    ) throws
        -> NSManagedObject?
    {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
        request.includesSubentities = false
        return try context.fetch(request).first {
            CorpusObjectURI($0.objectID.uriRepresentation())?.primaryKey == key
        }
    }

    private func verify(
        _ edits: CorpusEdits, before: RawCorpusStore, after: RawCorpusStore, context: NSManagedObjectContext
    ) throws {
        if after.schema != before.schema {
            fail("schema changed by the edits", after.schema.differences(from: before.schema))
        }
        if after.uuid != before.uuid || after.versionHashes != before.versionHashes {
            fail("Z_METADATA changed by the edits", "Z_UUID \(before.uuid) → \(after.uuid)")
        }
        if let edit = edits.edit {
            let name = edit.entity.name ?? ""
            let label = "edit of \(name).\(edit.attribute.name) p\(edit.primaryKey)"
            let table = SQLiteSchema.tableName(edit.entity)
            if let row = after.tables[table]?[edit.primaryKey] {
                let stored = RawAttributeValue.decode(row.value(edit.column), attribute: edit.attribute)
                if !stored.matches(edit.value) { fail(label, "raw row holds \(stored.description), set \(edit.value)") }
                let old = before.tables[table]?[edit.primaryKey]?.integer("Z_OPT")
                if let old, row.integer("Z_OPT") != old + 1 {
                    fail(label, "Z_OPT \(old) → \(row.integer("Z_OPT").map(String.init) ?? "NULL"), expected \(old + 1)")
                }
            } else {
                fail(label, "the row is gone")
            }
            let value = try perform(context) {
                try fetchObject(edit.entity, key: edit.primaryKey, context: context).map { $0.value(forKey: edit.attribute.name) }
            }
            if !RawAttributeValue.same(value ?? nil, edit.value) {
                fail(label, "read back \(RawAttributeValue.show(value ?? nil)) after reopening, set \(edit.value)")
            }
        }
        if let insert = edits.insert {
            let name = insert.entity.name ?? ""
            let label = "insert of \(name) p\(insert.primaryKey)"
            let oldMax = before.maxKeys[name] ?? 0
            let newMax = after.maxKeys[name] ?? 0
            if !(newMax > oldMax && insert.primaryKey > oldMax && insert.primaryKey <= newMax) {
                fail(label, "Z_PRIMARYKEY.Z_MAX \(oldMax) → \(newMax) for the new Z_PK \(insert.primaryKey)")
            }
            if let row = after.tables[SQLiteSchema.tableName(insert.entity)]?[insert.primaryKey] {
                if row.integer("Z_ENT") != after.entityNumbers[name] || row.integer("Z_OPT") != 1 {
                    fail(
                        label,
                        "Z_ENT \(row.integer("Z_ENT") ?? -1), Z_OPT \(row.integer("Z_OPT") ?? -1); expected \(after.entityNumbers[name] ?? -1), 1"
                    )
                }
                for (attribute, value) in insert.values {
                    let column = layout.columnName(entity: insert.entity, property: attribute.name)
                    let stored = RawAttributeValue.decode(row.value(column), attribute: attribute)
                    if !stored.matches(value) {
                        fail(
                            "\(label): \(attribute.name) written (\(column ?? "?"))",
                            "raw row holds \(stored.description) (\(row.value(column).storage)), set \(RawAttributeValue.show(value))"
                        )
                    }
                }
            } else {
                fail(label, "no row with that Z_PK after saving")
            }
            let values = try perform(context) {
                try fetchObject(insert.entity, key: insert.primaryKey, context: context).map { object in
                    insert.values.map { object.value(forKey: $0.attribute.name) }
                }
            }
            if let values {
                for ((attribute, value), actual) in zip(insert.values, values) where !RawAttributeValue.same(actual, value) {
                    fail(
                        "\(label): \(attribute.name) read back",
                        "\(RawAttributeValue.show(actual)), set \(RawAttributeValue.show(value))")
                }
            } else {
                fail(label, "not fetched after reopening")
            }
        }
        if let delete = edits.delete {
            let name = delete.entity.name ?? ""
            let label = "delete of \(name) p\(delete.primaryKey)"
            let deleted = "\(name)/p\(delete.primaryKey)"
            if after.tables[SQLiteSchema.tableName(delete.entity)]?[delete.primaryKey] != nil {
                fail(label, "the row is still there")
            }
            if try perform(context, { try fetchObject(delete.entity, key: delete.primaryKey, context: context) }) != nil {
                fail(label, "still fetched after reopening")
            }
            for (relationship, targets) in delete.nullified {
                guard let inverse = relationship.inverseRelationship else { continue }
                for target in targets {
                    guard let (entity, key, row) = rowOf(reference: target, raw: after) else {
                        fail("\(label): \(relationship.name) (Nullify)", "\(target) was deleted too")
                        continue
                    }
                    let back = expectedTargets(key: key, row: row, entity: entity, relationship: inverse, raw: after)
                    if back?.references.contains(deleted) ?? false {
                        fail(
                            "\(label): \(relationship.name) (Nullify)",
                            "\(target).\(inverse.name) still holds \(deleted) in the raw rows")
                    }
                }
            }
        }
    }
}

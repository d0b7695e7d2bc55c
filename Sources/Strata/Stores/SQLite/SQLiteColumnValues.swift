import Foundation
internal import GRDB
internal import GRDBSQLite

/// SQLite's `SQLITE_TRANSIENT`: the bound bytes are copied before the call returns.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The common attribute types, decided once per column so that rows are read and written
/// with SQLite's typed column functions: no `DatabaseValue` per value, no casts from `Any`
/// to find a value's type. Everything else goes through `SQLiteValueCodec`, which these
/// fast paths agree with value for value.
enum SQLiteValueKind {
    case int16, int32, int64, bool, double, float, date, string
    /// Decimal, binary, UUID, URI, transformable…: the codec's general path.
    case other

    init(_ attribute: NSAttributeDescription) {
        switch attribute.attributeType {
        case .integer16AttributeType: self = .int16
        case .integer32AttributeType: self = .int32
        case .integer64AttributeType: self = .int64
        case .booleanAttributeType: self = .bool
        case .doubleAttributeType: self = .double
        case .floatAttributeType: self = .float
        case .dateAttributeType: self = .date
        case .stringAttributeType: self = .string
        default: self = .other
        }
    }
}

extension SQLiteStore {
    /// A column's value through the codec: the types without a typed path, and values stored
    /// in another form than their attribute's (`typedColumnValue` answered `nil`).
    func codecColumnValue(_ statement: SQLiteStatement, _ position: Int32, attribute: NSAttributeDescription) -> Any? {
        SQLiteValueCodec.decode(
            DatabaseValue(sqliteStatement: statement, index: position), attribute: attribute, externalData: externalData)
    }

    /// A composite attribute's value from its leaves' columns (`nil` when none has a value).
    func compositeValue(_ statement: SQLiteStatement, _ leaves: [(position: Int32, leaf: CompositeValues.Leaf)]) -> Any? {
        let values = leaves.compactMap { position, leaf -> (path: [String], value: Any)? in
            codecColumnValue(statement, position, attribute: leaf.attribute).map { (leaf.path, $0) }
        }
        return CompositeValues.assemble(values)
    }

    /// Stores the value of a column of a common kind stored as that kind (nothing for `NULL`)
    /// at `index` of a new row, typed; `false` when it takes the codec. Needs no attribute, so a
    /// row decoder holds none.
    @inline(__always)
    static func storeTypedColumn(
        _ statement: SQLiteStatement, _ position: Int32, kind: SQLiteValueKind, in row: ValueStorage, at index: Int
    ) -> Bool {
        let column = SQLiteColumn(statement, position)
        switch (kind, column.type) {
        case (_, SQLITE_NULL): break
        case (.int16, SQLITE_INTEGER): row.set(Int16(truncatingIfNeeded: column.int64), at: index)
        case (.int32, SQLITE_INTEGER): row.set(Int32(truncatingIfNeeded: column.int64), at: index)
        case (.int64, SQLITE_INTEGER): row.set(column.int64, at: index)
        case (.bool, SQLITE_INTEGER): row.set(column.int64 != 0, at: index)
        case (.double, SQLITE_FLOAT): row.set(column.double, at: index)
        case (.double, SQLITE_INTEGER): row.set(Double(column.int64), at: index)
        case (.float, SQLITE_FLOAT): row.set(Float(column.double), at: index)
        case (.float, SQLITE_INTEGER): row.set(Float(column.int64), at: index)
        case (.date, SQLITE_FLOAT): row.set(Date(timeIntervalSinceReferenceDate: column.double), at: index)
        case (.date, SQLITE_INTEGER): row.set(Date(timeIntervalSinceReferenceDate: Double(column.int64)), at: index)
        case (.string, SQLITE_TEXT): row.set(column.text, at: index)
        default:
            return false
        }
        return true
    }

    /// Writes the value of a column of a common kind stored as that kind into a new row's
    /// bytes: at `offset`, with its tag byte at `tag` set to typed (nothing for `NULL`, which a
    /// new row's absent tag already says); `false` when it takes the codec. The row decoder's
    /// path for positions whose shape stores the column's kind in place: no generic setter, no
    /// lookup of the position's description per value (140 instructions a column before).
    @inline(__always)
    static func writeTypedColumn(
        _ statement: SQLiteStatement, _ position: Int32, kind: SQLiteValueKind, to base: UnsafeMutableRawPointer,
        offset: Int, tag: Int
    ) -> Bool {
        let slot = base + offset
        let column = SQLiteColumn(statement, position)
        switch (kind, column.type) {
        case (_, SQLITE_NULL): return true
        case (.int16, SQLITE_INTEGER): slot.storeBytes(of: Int16(truncatingIfNeeded: column.int64), as: Int16.self)
        case (.int32, SQLITE_INTEGER): slot.storeBytes(of: Int32(truncatingIfNeeded: column.int64), as: Int32.self)
        case (.int64, SQLITE_INTEGER): slot.storeBytes(of: column.int64, as: Int64.self)
        case (.bool, SQLITE_INTEGER): slot.storeBytes(of: column.int64 != 0, as: Bool.self)
        case (.double, SQLITE_FLOAT): slot.storeBytes(of: column.double, as: Double.self)
        case (.double, SQLITE_INTEGER): slot.storeBytes(of: Double(column.int64), as: Double.self)
        case (.float, SQLITE_FLOAT): slot.storeBytes(of: Float(column.double), as: Float.self)
        case (.float, SQLITE_INTEGER): slot.storeBytes(of: Float(column.int64), as: Float.self)
        case (.date, SQLITE_FLOAT):
            slot.storeBytes(of: Date(timeIntervalSinceReferenceDate: column.double), as: Date.self)
        case (.date, SQLITE_INTEGER):
            slot.storeBytes(of: Date(timeIntervalSinceReferenceDate: Double(column.int64)), as: Date.self)
        case (.string, SQLITE_TEXT): slot.initializeMemory(as: String.self, repeating: column.text, count: 1)
        default:
            return false
        }
        base.storeBytes(of: ValueStorage.Tag.typed.rawValue, toByteOffset: tag, as: UInt8.self)
        return true
    }

    /// The statement's current row, a `SELECT` of its table's `selectColumns`, as a snapshot
    /// (what `decode(_:mapping:expected:)` makes of a GRDB row, read by position). Queries of
    /// many rows use one `SQLiteRowDecoder` for all of them.
    func decodeRow(_ statement: SQLiteStatement, mapping: SQLiteStoreMapping, expected: SQLiteEntityMapping) -> Snapshot {
        SQLiteRowDecoder(store: self, mapping: mapping, expected: expected).decode(statement)
    }

    /// Binds an attribute value to parameter `index` (1-based) through the codec; throws as
    /// `SQLiteValueCodec.encode` does for a value the attribute cannot store. Values of the
    /// attribute's own type are bound by `bindInPlace` before this is asked.
    func bindValue(
        _ value: Any?, attribute: NSAttributeDescription, to statement: SQLiteStatement, at index: Int32,
        files: SQLiteExternalStorage
    ) throws {
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        let encoded = try SQLiteValueCodec.encode(value, attribute: attribute, external: files)
        if case .string(let text) = encoded.storage {
            Self.bindText(text, to: statement, at: index)
        } else {
            _ = encoded.bind(to: statement, at: index)
        }
    }

    /// Binds text with its length in bytes, so that a string holding NUL characters is stored
    /// whole (GRDB binds a C string, which ends at the first NUL).
    static func bindText(_ text: String, to statement: SQLiteStatement, at index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                sqlite3_bind_text(statement, index, "", 0, nil)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                _ = sqlite3_bind_text64(
                    statement, index, characters, sqlite3_uint64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Binds the value at `index` of a row's values when it is `nil` or exactly of the type
    /// the column's kind stores, read in place from its container (the type word, then the
    /// inline value): no copy of the existential, no dynamic cast, which together cost more
    /// than SQLite's own binding. `false` when the value takes `bindValue`.
    static func bindInPlace(
        _ values: ValueRow, at index: Int, kind: SQLiteValueKind, to statement: SQLiteStatement, at parameter: Int32
    ) -> Bool {
        guard kind != .other, values.indices.contains(index) else { return false }
        return values.storage.withSlot(at: index) { slot, type -> Bool in
            switch kind {
            case _ where type == 0: sqlite3_bind_null(statement, parameter)
            case .int16 where type == metadata(Int16.self):
                sqlite3_bind_int64(statement, parameter, Int64(slot.load(as: Int16.self)))
            case .int32 where type == metadata(Int32.self):
                sqlite3_bind_int64(statement, parameter, Int64(slot.load(as: Int32.self)))
            case .int64 where type == metadata(Int64.self):
                sqlite3_bind_int64(statement, parameter, slot.load(as: Int64.self))
            case .bool where type == metadata(Bool.self):
                sqlite3_bind_int64(statement, parameter, slot.load(as: Bool.self) ? 1 : 0)
            case .double where type == metadata(Double.self):
                sqlite3_bind_double(statement, parameter, slot.load(as: Double.self))
            case .float where type == metadata(Float.self):
                sqlite3_bind_double(statement, parameter, Double(slot.load(as: Float.self)))
            case .date where type == metadata(Date.self):
                sqlite3_bind_double(statement, parameter, slot.load(as: Date.self).timeIntervalSinceReferenceDate)
            case .string where type == metadata(String.self):
                bindText(slot.load(as: String.self), to: statement, at: parameter)
            default:
                return false
            }
            return true
        } ?? false
    }

    @inline(__always)
    private static func metadata(_ type: Any.Type) -> UInt { PlainValues.metadata(type) }
}

/// What decoding a row of one entity needs, made once per entity and store mapping and
/// shared by every query (read-only). Its steps are plain values (the attribute as
/// `Unmanaged`, kept alive by `columns`), so walking them at every row retains nothing: with a
/// class per column, retaining and releasing them was a third of decoding a row.
/// (`unowned(unsafe)` in their place broke the loop over them in debug builds: the last step
/// repeated without end.)
final class SQLiteRowPlan: @unchecked Sendable {
    let entity: NSEntityDescription
    let count: Int
    /// How the entity's rows store their values.
    let shape: ValueShape
    fileprivate let steps: [Step]
    fileprivate let toOnes: [ToOne]
    /// The composite attributes' columns, which steps with `composite >= 0` read together.
    fileprivate let composites: [CompositeRead]
    /// Keeps the attributes and relationships the steps point to.
    private let columns: [SQLiteStoreMapping.ReadColumn]

    /// One column of a row: the layout position it fills and its place in the `SELECT` list.
    fileprivate struct Step {
        let index: Int
        let position: Int32
        let kind: SQLiteValueKind
        let attribute: Unmanaged<NSAttributeDescription>?
        /// The position in `toOnes`, or -1 for an attribute.
        let toOne: Int
        /// The position in `composites`, or -1.
        var composite: Int = -1
        /// Where a new row keeps the value (its byte offset) and its tag, when the shape stores
        /// the column's kind in place there; -1 otherwise.
        var offset: Int = -1
        var tag: Int = -1
    }

    /// The columns of a composite attribute: each leaf's place in the `SELECT` list.
    fileprivate struct CompositeRead {
        let leaves: [(position: Int32, leaf: CompositeValues.Leaf)]
    }

    /// A to-one column: the destination's mapping, and where its entity number is read.
    fileprivate struct ToOne {
        let declared: SQLiteEntityMapping?
        let entityPosition: Int32?
    }

    init(entity: NSEntityDescription, columns: [SQLiteStoreMapping.ReadColumn], mapping: SQLiteStoreMapping) {
        self.entity = entity
        self.count = entity.layout.properties.count
        self.shape = entity.layout.valueShape
        self.columns = columns
        var steps: [Step] = []
        var toOnes: [ToOne] = []
        var composites: [CompositeRead] = []
        var next = 0
        // In layout order, each position once, so that a row's values are written in one pass.
        for column in columns.sorted(by: { $0.index < $1.index }) where column.index >= next && column.index < count {
            next = column.index + 1
            if case .compositeLeaf = column.binding {
                let leaves = columns.compactMap { other -> (Int32, CompositeValues.Leaf)? in
                    guard other.index == column.index, case .compositeLeaf(_, let leaf) = other.binding else { return nil }
                    return (Int32(other.position), leaf)
                }
                composites.append(CompositeRead(leaves: leaves))
                var step = Step(
                    index: column.index, position: Int32(column.position), kind: .other, attribute: nil, toOne: -1)
                step.composite = composites.count - 1
                steps.append(step)
            } else if let attribute = column.attribute {
                var step = Step(
                    index: column.index, position: Int32(column.position), kind: column.kind,
                    attribute: Unmanaged.passUnretained(attribute), toOne: -1)
                let slot = entity.layout.valueShape.table.slot(column.index)
                if let kind = Self.shapeKind(of: column.kind), slot.kind == kind, slot.typeWord != 0 {
                    step.offset = Int(slot.offset)
                    step.tag = entity.layout.valueShape.table.tagOffset + column.index
                }
                steps.append(step)
            } else if case .toOne(let relationship, _) = column.binding {
                let declared = relationship.destinationEntity.flatMap { mapping.mapping(for: $0) }
                toOnes.append(ToOne(declared: declared, entityPosition: column.entityPosition.map(Int32.init)))
                steps.append(
                    Step(
                        index: column.index, position: Int32(column.position), kind: .other, attribute: nil,
                        toOne: toOnes.count - 1))
            }
        }
        self.steps = steps
        self.toOnes = toOnes
        self.composites = composites
    }

    /// The kind of shape position that stores a column kind in place.
    private static func shapeKind(of kind: SQLiteValueKind) -> ValueShape.Kind? {
        switch kind {
        case .int16: .int16
        case .int32: .int32
        case .int64: .int64
        case .bool: .bool
        case .double: .double
        case .float: .float
        case .date: .date
        case .string: .string
        case .other: nil
        }
    }
}

/// Decodes the rows of one query: snapshots, IDs or entities. What depends only on a row's entity (its
/// layout, its read plan, its root for IDs) and the store's identifier are looked up once per
/// entity, not once per row: with locks and dictionaries, that was a third of decoding a row.
final class SQLiteRowDecoder {
    private let store: SQLiteStore
    private let mapping: SQLiteStoreMapping
    private let expected: SQLiteEntityMapping
    /// What the IDs made share: the store and its identifier.
    private let origin: StoreReference
    /// The plan of the last row's entity, with the entity number it was found by.
    @exclusivity(unchecked) private var last: (number: Int?, plan: SQLiteRowPlan)?
    /// The last destination entity of each to-one of the plan (rows of one query mostly point
    /// to one entity).
    /// (A decoder belongs to one query on one thread: no access to these is checked at run
    /// time, which cost two checks a row.)
    @exclusivity(unchecked) private var destinations: [(number: Int?, entity: NSEntityDescription)?] = []

    /// IDs the caller already holds for the rows it reads (the faults of a batch), by increasing
    /// key: a row whose key, entity and store are those of one of them takes that ID instead of
    /// a new one, which saves an allocation and a free a row. The rows of a batch's range or
    /// `IN` query come in key order; in any other order fewer are found, and new IDs are made.
    @exclusivity(unchecked) private var known: [NSManagedObjectID] = []
    @exclusivity(unchecked) private var nextKnown = 0

    /// The plan of every row when `expected`'s table holds no other entity, whose rows are
    /// then read without their `Z_ENT` (as Core Data reads them, and as `mapping(number:rowOf:)`
    /// would answer whatever the column holds).
    private let onlyPlan: SQLiteRowPlan?

    init(store: SQLiteStore, mapping: SQLiteStoreMapping, expected: SQLiteEntityMapping) {
        self.store = store
        self.mapping = mapping
        self.expected = expected
        self.origin = store.idOrigin
        // One entity in the table: its root has no subentities (listing its descendants made
        // an array at every fetch).
        if expected.entity.rootEntity.subentities.isEmpty {
            let plan = mapping.rowPlan(for: expected)
            onlyPlan = plan
            destinations = Array(repeating: nil, count: plan.toOnes.count)
        } else {
            onlyPlan = nil
        }
    }

    private func plan(for number: Int?) -> SQLiteRowPlan {
        if let last, last.number == number { return last.plan }
        let plan = mapping.rowPlan(for: mapping.mapping(number: number, rowOf: expected))
        last = (number, plan)
        destinations = Array(repeating: nil, count: plan.toOnes.count)
        return plan
    }

    /// The plan of the current row's entity, from its entity-number column.
    private func plan(_ statement: SQLiteStatement, entityColumn column: Int32) -> SQLiteRowPlan {
        if let onlyPlan { return onlyPlan }
        let number = SQLiteColumn(statement, column)
        return plan(for: number.type == SQLITE_NULL ? nil : Int(number.int64))
    }

    /// The entity of the statement's current row, from its entity-number column.
    func entity(_ statement: SQLiteStatement, entityColumn column: Int32) -> NSEntityDescription {
        plan(statement, entityColumn: column).entity
    }

    /// Rows read from now on take the IDs of `ids` (sorted by key) that name them.
    func reuse(_ ids: [NSManagedObjectID]) {
        known = ids
        nextKnown = 0
    }

    /// The ID of the row `key` of `entity`: one of `known`, or a new one.
    @inline(__always)
    private func rowID(key: Int64, entity: NSEntityDescription) -> NSManagedObjectID {
        while nextKnown < known.count {
            let candidate = known[nextKnown]
            if candidate.number > key { break }
            nextKnown += 1
            if candidate.number == key, candidate.entity === entity, candidate.origin === origin { return candidate }
        }
        return NSManagedObjectID(entity: entity, primaryKey: key, origin: origin)
    }

    /// The ID of the statement's current row, from its key and entity-number columns.
    func objectID(_ statement: SQLiteStatement, key: Int32, entity: Int32) -> NSManagedObjectID {
        let plan = plan(statement, entityColumn: entity)
        return NSManagedObjectID(entity: plan.entity, primaryKey: sqlite3_column_int64(statement, key), origin: origin)
    }

    /// The statement's current row as a snapshot.
    func decode(_ statement: SQLiteStatement) -> Snapshot {
        let key = sqlite3_column_int64(statement, 0)
        let versionColumn = SQLiteColumn(statement, 2)
        let version: Int64 = versionColumn.type == SQLITE_NULL ? 1 : versionColumn.int64
        let plan = plan(statement, entityColumn: 1)
        // A new storage, this decoder's alone: values are written into it in place.
        let row = ValueStorage.make(shape: plan.shape)
        row.withUnsafeMutablePointerToElements { words in
            let base = UnsafeMutableRawPointer(words)
            plan.steps.withUnsafeBufferPointer { steps in
                for step in steps {
                    if step.composite >= 0 {
                        let value = store.compositeValue(statement, plan.composites[step.composite].leaves)
                        if let value { row.setValue(value, at: step.index) }
                        continue
                    }
                    if step.toOne >= 0 {
                        if let id = destination(statement, step.position, plan.toOnes[step.toOne], at: step.toOne) {
                            row.setObject(id, at: step.index)
                        }
                        continue
                    }
                    let stored =
                        step.offset >= 0
                        ? SQLiteStore.writeTypedColumn(
                            statement, step.position, kind: step.kind, to: base, offset: step.offset, tag: step.tag)
                        : SQLiteStore.storeTypedColumn(statement, step.position, kind: step.kind, in: row, at: step.index)
                    if !stored, let attribute = step.attribute {
                        row.setValue(
                            store.codecColumnValue(statement, step.position, attribute: attribute.takeUnretainedValue()),
                            at: step.index)
                    }
                }
            }
        }
        return Snapshot(objectID: rowID(key: key, entity: plan.entity), version: version, values: ValueRow(storage: row))
    }

    /// The ID a to-one column points to, or `nil`.
    private func destination(
        _ statement: SQLiteStatement, _ position: Int32, _ toOne: SQLiteRowPlan.ToOne, at slot: Int
    ) -> NSManagedObjectID? {
        let key = SQLiteColumn(statement, position)
        guard key.type == SQLITE_INTEGER, let declared = toOne.declared else { return nil }
        var number: Int?
        if let entityPosition = toOne.entityPosition {
            let column = SQLiteColumn(statement, entityPosition)
            if column.type == SQLITE_INTEGER { number = Int(column.int64) }
        }
        let entity: NSEntityDescription
        if let last = destinations[slot], last.number == number {
            entity = last.entity
        } else {
            entity = mapping.mapping(number: number, rowOf: declared).entity
            destinations[slot] = (number, entity)
        }
        return NSManagedObjectID(entity: entity, primaryKey: key.int64, origin: origin)
    }
}

/// A column of the statement's current row, read through its value (`sqlite3_column_value`):
/// its type and then its contents cost one call into the statement, not two. Each
/// `sqlite3_column_*` call finds the column, enters and leaves the connection's mutex and checks
/// for an allocation failure (about 40 instructions, and B3 made two such calls a column); the
/// `sqlite3_value_*` functions read the value directly. SQLite calls such a value unprotected:
/// safe with the value functions as long as no other thread uses the connection, which Strata's
/// connections are not (each is used by one thread at a time, behind GRDB's serialization).
/// Valid until the statement steps or resets.
struct SQLiteColumn {
    let value: OpaquePointer?

    @inline(__always)
    init(_ statement: SQLiteStatement, _ position: Int32) {
        value = sqlite3_column_value(statement, position)
    }

    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    var type: Int32 { sqlite3_value_type(value) }
    var int64: Int64 { sqlite3_value_int64(value) }
    var double: Double { sqlite3_value_double(value) }

    /// The value as text (UTF-8, its length in bytes: a NUL inside is kept).
    var text: String {
        guard let characters = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }
}

import Foundation
internal import GRDB
internal import GRDBSQLite

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
    /// The attribute value of column `position` of the statement's current row.
    func columnValue(
        _ statement: SQLiteStatement, _ position: Int32, kind: SQLiteValueKind, attribute: NSAttributeDescription
    ) -> Any? {
        switch (kind, sqlite3_column_type(statement, position)) {
        case (_, SQLITE_NULL): return nil
        case (.int16, SQLITE_INTEGER): return Int16(truncatingIfNeeded: sqlite3_column_int64(statement, position))
        case (.int32, SQLITE_INTEGER): return Int32(truncatingIfNeeded: sqlite3_column_int64(statement, position))
        case (.int64, SQLITE_INTEGER): return sqlite3_column_int64(statement, position)
        case (.bool, SQLITE_INTEGER): return sqlite3_column_int64(statement, position) != 0
        case (.double, SQLITE_FLOAT): return sqlite3_column_double(statement, position)
        case (.double, SQLITE_INTEGER): return Double(sqlite3_column_int64(statement, position))
        case (.float, SQLITE_FLOAT): return Float(sqlite3_column_double(statement, position))
        case (.float, SQLITE_INTEGER): return Float(sqlite3_column_int64(statement, position))
        case (.date, SQLITE_FLOAT):
            return Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, position))
        case (.date, SQLITE_INTEGER):
            return Date(timeIntervalSinceReferenceDate: Double(sqlite3_column_int64(statement, position)))
        case (.string, SQLITE_TEXT):
            guard let text = sqlite3_column_text(statement, position) else { return "" }
            let count = Int(sqlite3_column_bytes(statement, position))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        default:
            let value = DatabaseValue(sqliteStatement: statement, index: position)
            return SQLiteValueCodec.decode(value, attribute: attribute, externalData: externalData)
        }
    }

    /// The statement's current row, a `SELECT` of its table's `selectColumns`, as a snapshot
    /// (what `decode(_:mapping:expected:)` makes of a GRDB row, read by position). Queries of
    /// many rows use one `SQLiteRowDecoder` for all of them.
    func decodeRow(_ statement: SQLiteStatement, mapping: SQLiteStoreMapping, expected: SQLiteEntityMapping) -> Snapshot {
        SQLiteRowDecoder(store: self, mapping: mapping, expected: expected).decode(statement)
    }

    /// The ID a to-one column points to, or `nil`.
    fileprivate func destination(
        _ statement: SQLiteStatement, _ position: Int32, column: SQLiteStoreMapping.ReadColumn,
        relationship: NSRelationshipDescription, mapping: SQLiteStoreMapping
    ) -> NSManagedObjectID? {
        guard sqlite3_column_type(statement, position) == SQLITE_INTEGER,
            let declared = relationship.destinationEntity.flatMap({ mapping.mapping(for: $0) })
        else { return nil }
        var number: Int?
        if let entityPosition = column.entityPosition.map(Int32.init),
            sqlite3_column_type(statement, entityPosition) == SQLITE_INTEGER
        {
            number = Int(sqlite3_column_int64(statement, entityPosition))
        }
        let destination = mapping.mapping(number: number, rowOf: declared).entity
        return objectID(entity: destination, primaryKey: sqlite3_column_int64(statement, position))
    }

    /// Binds an attribute value to parameter `index` (1-based); throws as
    /// `SQLiteValueCodec.encode` does for a value the attribute cannot store.
    func bindValue(
        _ value: Any?, kind: SQLiteValueKind, attribute: NSAttributeDescription, to statement: SQLiteStatement,
        at index: Int32, files: SQLiteExternalStorage
    ) throws {
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        // The value's exact type, when it is the attribute's own (what typed setters store).
        let type = ObjectIdentifier(Swift.type(of: value))
        switch kind {
        case .int16 where type == ObjectIdentifier(Int16.self):
            sqlite3_bind_int64(statement, index, Int64(value as! Int16))
        case .int32 where type == ObjectIdentifier(Int32.self):
            sqlite3_bind_int64(statement, index, Int64(value as! Int32))
        case .int64 where type == ObjectIdentifier(Int64.self):
            sqlite3_bind_int64(statement, index, value as! Int64)
        case .bool where type == ObjectIdentifier(Bool.self):
            sqlite3_bind_int64(statement, index, (value as! Bool) ? 1 : 0)
        case .double where type == ObjectIdentifier(Double.self):
            sqlite3_bind_double(statement, index, value as! Double)
        case .float where type == ObjectIdentifier(Float.self):
            sqlite3_bind_double(statement, index, Double(value as! Float))
        case .date where type == ObjectIdentifier(Date.self):
            sqlite3_bind_double(statement, index, (value as! Date).timeIntervalSinceReferenceDate)
        case .string where type == ObjectIdentifier(String.self):
            _ = (value as! String).databaseValue.bind(to: statement, at: index)
        default:
            _ = try SQLiteValueCodec.encode(value, attribute: attribute, external: files).bind(to: statement, at: index)
        }
    }
}

/// Decodes the rows of one query: snapshots, IDs or entities. What depends only on a row's entity (its
/// layout, its read plan, its root for IDs) and the store's identifier are looked up once per
/// entity, not once per row: with locks and dictionaries, that was a third of decoding a row.
final class SQLiteRowDecoder {
    private struct Plan {
        let number: Int?
        let entity: NSEntityDescription
        let root: ObjectIdentifier
        let count: Int
        let columns: [SQLiteStoreMapping.ReadColumn]
    }

    private let store: SQLiteStore
    private let mapping: SQLiteStoreMapping
    private let expected: SQLiteEntityMapping
    private let storeIdentifier: String?
    private var last: Plan?

    init(store: SQLiteStore, mapping: SQLiteStoreMapping, expected: SQLiteEntityMapping) {
        self.store = store
        self.mapping = mapping
        self.expected = expected
        self.storeIdentifier = store.identifier
    }

    private func plan(for number: Int?) -> Plan {
        if let last, last.number == number { return last }
        let entityMapping = mapping.mapping(number: number, rowOf: expected)
        let entity = entityMapping.entity
        let plan = Plan(
            number: number, entity: entity, root: ObjectIdentifier(entity.rootEntity),
            count: entity.layout.properties.count, columns: mapping.readPlan(number: entityMapping.number))
        last = plan
        return plan
    }

    /// The plan of the current row's entity, from its entity-number column.
    private func plan(_ statement: SQLiteStatement, entityColumn column: Int32) -> Plan {
        plan(for: sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, column)))
    }

    /// The entity of the statement's current row, from its entity-number column.
    func entity(_ statement: SQLiteStatement, entityColumn column: Int32) -> NSEntityDescription {
        plan(statement, entityColumn: column).entity
    }

    /// The ID of the statement's current row, from its key and entity-number columns.
    func objectID(_ statement: SQLiteStatement, key: Int32, entity: Int32) -> NSManagedObjectID {
        let plan = plan(statement, entityColumn: entity)
        return NSManagedObjectID(
            entity: plan.entity, primaryKey: sqlite3_column_int64(statement, key), store: store,
            storeIdentifier: storeIdentifier, root: plan.root)
    }

    /// The statement's current row as a snapshot.
    func decode(_ statement: SQLiteStatement) -> Snapshot {
        let key = sqlite3_column_int64(statement, 0)
        let version: Int64 = sqlite3_column_type(statement, 2) == SQLITE_NULL ? 1 : sqlite3_column_int64(statement, 2)
        let plan = plan(statement, entityColumn: 1)
        let count = plan.count
        // Appended in layout order (the read plan's order): no array of nils to overwrite.
        var values: [Any?] = []
        values.reserveCapacity(count)
        for column in plan.columns where column.index < count {
            while values.count < column.index { values.append(nil) }
            let position = Int32(column.position)
            if let attribute = column.attribute {
                values.append(store.columnValue(statement, position, kind: column.kind, attribute: attribute))
            } else if case .toOne(let relationship, _) = column.binding {
                values.append(
                    store.destination(statement, position, column: column, relationship: relationship, mapping: mapping))
            } else {
                values.append(nil)
            }
        }
        while values.count < count { values.append(nil) }
        let objectID = NSManagedObjectID(
            entity: plan.entity, primaryKey: key, store: store, storeIdentifier: storeIdentifier, root: plan.root)
        return Snapshot(objectID: objectID, version: version, values: values)
    }
}

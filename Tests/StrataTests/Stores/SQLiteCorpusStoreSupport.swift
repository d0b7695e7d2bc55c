import Foundation
import GRDB

@testable import Strata

/// Which corpus stores the SQLite store tests use, and with which model (PAIRS.tsv).
enum CorpusStorePairs {
    /// The model that wrote each corpus store: PAIRS.tsv's best match, except Bookmarks_V2,
    /// whose version hashes are those of the second candidate (see SQLiteSchemaTests).
    static func modelPath(store: String, pair: [String: String]) -> String? {
        if store.hasSuffix("Bookmarks_V2.sqlite") {
            return pair["second_best"].map { String($0.prefix { $0 != "(" }) }
        }
        return pair["best_model_version"]
    }

    /// PAIRS.tsv's heuristic names SampleModel2.xcdatamodel for this store, which has
    /// ExpensiveSportCar where that model has LuxuryCar (see SQLiteSchemaTests).
    static let knownMispairedStores: Set<String> = [
        "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite"
    ]
}

/// A store file's schema as SQLite reports it, compared by definition (the approach of
/// SQLiteSchemaTests' `StoreSchema`): tables with their columns, indexes by table, uniqueness
/// and columns, and the entity rows of Z_PRIMARYKEY.
struct CorpusStoreSchema: Equatable {
    /// Z_MODELCACHE is absent in old stores; whether a store adds it is not a schema change.
    static let excludedTables: Set<String> = ["Z_MODELCACHE"]

    var tables: [String: [String]] = [:]
    /// "table|UNIQUE|col,col" per index, without SQLite's automatic indexes.
    var indexes: Set<String> = []
    /// "Z_ENT Z_NAME Z_SUPER" per row of Z_PRIMARYKEY.
    var entities: [String] = []

    init(_ db: Database) throws {
        let names = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for table in names where !Self.excludedTables.contains(table) {
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))")
            tables[table] = columns.map { "\($0["name"] as String) \($0["type"] as String)" }.sorted()
            for index in try Row.fetchAll(db, sql: "PRAGMA index_list(\(table.quotedDatabaseIdentifier))") {
                let name: String = index["name"]
                guard (index["origin"] as String) == "c" else { continue }
                let info = try Row.fetchAll(db, sql: "PRAGMA index_info(\(name.quotedDatabaseIdentifier))")
                let columns = info.sorted { ($0["seqno"] as Int) < ($1["seqno"] as Int) }.map { $0["name"] as String }
                indexes.insert("\(table)|\((index["unique"] as Int) == 1 ? "UNIQUE" : "")|\(columns.joined(separator: ","))")
            }
        }
        entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            .map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
    }

    /// What differs from another schema, for a failure message.
    func differences(from other: CorpusStoreSchema) -> String {
        var parts: [String] = []
        let mine = Set(tables.keys)
        let theirs = Set(other.tables.keys)
        if mine != theirs {
            parts.append("tables +\(mine.subtracting(theirs).sorted()) -\(theirs.subtracting(mine).sorted())")
        }
        for table in mine.intersection(theirs).sorted() where tables[table] != other.tables[table] {
            let a = Set(tables[table] ?? [])
            let b = Set(other.tables[table] ?? [])
            parts.append("\(table) columns +\(a.subtracting(b).sorted()) -\(b.subtracting(a).sorted())")
        }
        if indexes != other.indexes {
            parts.append(
                "indexes +\(indexes.subtracting(other.indexes).sorted()) -\(other.indexes.subtracting(indexes).sorted())")
        }
        if entities != other.entities { parts.append("Z_PRIMARYKEY \(entities) vs \(other.entities)") }
        return parts.joined(separator: "; ")
    }
}

/// A row of a store table: column name (upper-cased) → value as SQLite holds it.
typealias RawStoreRow = [String: DatabaseValue]

extension Dictionary where Key == String, Value == DatabaseValue {
    func value(_ column: String?) -> DatabaseValue {
        guard let column else { return .null }
        return self[column.uppercased()] ?? .null
    }

    func integer(_ column: String?) -> Int64? {
        if case .int64(let value) = value(column).storage { return value }
        return nil
    }
}

/// Everything a corpus store holds, read with GRDB independently of Strata's store: the
/// metadata, Z_PRIMARYKEY, every entity table by Z_PK, every join table, and the schema.
struct RawCorpusStore {
    var uuid: String
    var versionHashes: [String: Data]
    var entityNames: [Int64: String] = [:]
    var entityNumbers: [String: Int64] = [:]
    /// Z_PRIMARYKEY.Z_MAX by entity name.
    var maxKeys: [String: Int64] = [:]
    /// Entity table name → Z_PK → row.
    var tables: [String: [Int64: RawStoreRow]] = [:]
    /// Join table name → rows.
    var joinTables: [String: [RawStoreRow]] = [:]
    /// Entity table name → the names of the entities whose rows it holds (a root and its
    /// subentities).
    var hierarchies: [String: [String]] = [:]
    /// Rows whose Z_ENT is not an entity of their table, described for a note.
    var foreignEntityRows: [String] = []
    var schema: CorpusStoreSchema

    init(url: URL, layout: SQLiteSchema) throws {
        let queue = try DatabaseQueue(path: url.path)
        self = try queue.read { db in
            guard let metadata = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA") else {
                throw CorpusStoreError("\(url.lastPathComponent): no Z_METADATA row")
            }
            let uuid: String? = metadata["Z_UUID"]
            let plistData: Data? = metadata["Z_PLIST"]
            let plist = try plistData.map { try PropertyListSerialization.propertyList(from: $0, format: nil) }
            var store = RawCorpusStore(
                uuid: uuid ?? "",
                versionHashes: ((plist as? [String: Any])?[NSStoreModelVersionHashesKey] as? [String: Data]) ?? [:],
                schema: try CorpusStoreSchema(db))
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") {
                let number: Int64 = row["Z_ENT"]
                let name: String = row["Z_NAME"]
                let reserved: Int64? = row["Z_MAX"]
                store.entityNames[number] = name
                store.entityNumbers[name] = number
                store.maxKeys[name] = reserved
            }
            for entity in layout.orderedEntities {
                store.hierarchies[SQLiteSchema.tableName(entity), default: []].append(entity.name ?? "")
            }
            for table in layout.tables where store.schema.tables[table.name] != nil {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table.name.quotedDatabaseIdentifier)").map { row in
                    RawStoreRow(
                        zip(row.columnNames.map { $0.uppercased() }, row.databaseValues), uniquingKeysWith: { a, _ in a })
                }
                if table.primaryKey.isEmpty {
                    store.tables[table.name] = Dictionary(
                        rows.compactMap { row in row.integer("Z_PK").map { ($0, row) } }, uniquingKeysWith: { a, _ in a })
                    let members = Set((store.hierarchies[table.name] ?? []).compactMap { store.entityNumbers[$0] })
                    for (key, row) in store.tables[table.name] ?? [:] where !members.contains(row.integer("Z_ENT") ?? -1) {
                        let number = row.integer("Z_ENT")
                        store.foreignEntityRows.append(
                            "\(table.name) p\(key) has Z_ENT \(number.map(String.init) ?? "NULL") "
                                + "(\(number.flatMap { store.entityNames[$0] } ?? "no entity")), "
                                + "not one of \(store.hierarchies[table.name] ?? [])")
                    }
                } else {
                    store.joinTables[table.name] = rows
                }
            }
            return store
        }
    }

    private init(uuid: String, versionHashes: [String: Data], schema: CorpusStoreSchema) {
        self.uuid = uuid
        self.versionHashes = versionHashes
        self.schema = schema
    }

    /// The rows of an entity's objects. A table that holds one entity holds only its rows,
    /// whatever their Z_ENT says: Core Data reads such a table without looking at Z_ENT
    /// (`SELECT 0, t0.Z_PK …`). In a table of a hierarchy, Z_ENT names each row's entity.
    func rows(of entity: NSEntityDescription) -> [Int64: RawStoreRow] {
        let table = SQLiteSchema.tableName(entity)
        guard (hierarchies[table]?.count ?? 0) > 1 else { return tables[table] ?? [:] }
        guard let number = entityNumbers[entity.name ?? ""] else { return [:] }
        return (tables[table] ?? [:]).filter { $0.value.integer("Z_ENT") == number }
    }

    /// Whether a row of the table belongs to one of the entities (always, in a table of one entity).
    func row(_ row: RawStoreRow, table: String, isOneOf entities: Set<String>) -> Bool {
        guard (hierarchies[table]?.count ?? 0) > 1 else { return true }
        return row.integer("Z_ENT").flatMap { entityNames[$0] }.map(entities.contains) ?? false
    }

    /// "Entity/p<Z_PK>" for a row of an entity table: the table's only entity, or in a
    /// hierarchy the entity its Z_ENT names; "?/p<Z_PK>" when a hierarchy has no such row.
    func reference(table: String, pk: Int64) -> String {
        if let members = hierarchies[table], members.count == 1 { return "\(members[0])/p\(pk)" }
        guard let row = tables[table]?[pk], let number = row.integer("Z_ENT"), let name = entityNames[number] else {
            return "?/p\(pk)"
        }
        return "\(name)/p\(pk)"
    }
}

struct CorpusStoreError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An object URI `x-coredata://<Z_UUID>/<Entity>/p<Z_PK>` taken apart.
struct CorpusObjectURI: Equatable {
    var storeIdentifier: String
    var entity: String
    var primaryKey: Int64

    init?(_ url: URL) {
        let text = url.absoluteString
        let prefix = "x-coredata://"
        guard text.hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].first == "p", let primaryKey = Int64(parts[2].dropFirst()) else { return nil }
        storeIdentifier = String(parts[0])
        entity = String(parts[1])
        self.primaryKey = primaryKey
    }

    var reference: String { "\(entity)/p\(primaryKey)" }
}

/// What an attribute's value must be, decoded from its column independently of Strata.
enum RawAttributeValue {
    /// The value the attribute must have (`nil` for NULL).
    case exactly(Any?)
    /// A transformable value: without the app's transformer only its presence can be checked.
    case present
    /// A column value this test cannot decode on its own; the reason.
    case undecodable(String)

    static func decode(_ value: DatabaseValue, attribute: NSAttributeDescription) -> RawAttributeValue {
        let type = attribute.attributeType
        if case .null = value.storage { return .exactly(nil) }
        switch (type, value.storage) {
        case (.transformableAttributeType, _):
            return .present
        case (.integer16AttributeType, .int64(let integer)):
            return Int16(exactly: integer).map { .exactly($0) } ?? .undecodable("\(integer) does not fit Int16")
        case (.integer32AttributeType, .int64(let integer)):
            return Int32(exactly: integer).map { .exactly($0) } ?? .undecodable("\(integer) does not fit Int32")
        case (.integer64AttributeType, .int64(let integer)):
            return .exactly(integer)
        case (.booleanAttributeType, .int64(let integer)):
            return .exactly(integer != 0)
        case (.doubleAttributeType, .double(let double)):
            return .exactly(double)
        case (.doubleAttributeType, .int64(let integer)):
            return .exactly(Double(integer))
        case (.floatAttributeType, .double(let double)):
            return .exactly(Float(double))
        case (.floatAttributeType, .int64(let integer)):
            return .exactly(Float(integer))
        case (.decimalAttributeType, .int64(let integer)):
            return .exactly(Decimal(integer))
        case (.decimalAttributeType, .double(let double)):
            // The shortest text that reads back as the double, as SQLite's own text conversion gives.
            return Decimal(string: "\(double)").map { .exactly($0) } ?? .undecodable("DECIMAL \(double)")
        case (.decimalAttributeType, .string(let text)):
            if text == "NaN" { return .exactly(Decimal.nan) }
            return Decimal(string: text).map { .exactly($0) } ?? .undecodable("DECIMAL text '\(text)'")
        case (.stringAttributeType, .string(let text)):
            return .exactly(text)
        case (.URIAttributeType, .string(let text)):
            return URL(string: text).map { .exactly($0) } ?? .undecodable("URI text '\(text)'")
        case (.dateAttributeType, .double(let seconds)):
            return .exactly(Date(timeIntervalSinceReferenceDate: seconds))
        case (.dateAttributeType, .int64(let seconds)):
            return .exactly(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.UUIDAttributeType, .blob(let data)) where data.count == 16:
            let b = Array(data)
            return .exactly(
                UUID(
                    uuid: (
                        b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                        b[15]
                    )))
        case (.binaryDataAttributeType, .blob(let data)):
            guard attribute.allowsExternalBinaryDataStorage else { return .exactly(data) }
            // STORE-FORMAT §3.7: 0x01 + the bytes inline, 0x02 + a UUID naming an external file.
            switch data.first {
            case 0x01: return .exactly(Data(data.dropFirst()))
            case 0x02: return .undecodable("external data reference \(String(decoding: data.dropFirst(), as: UTF8.self))")
            default: return .undecodable("external-storage marker \(data.first.map { String($0) } ?? "none")")
            }
        default:
            return .undecodable("\(type.xcodeModelName ?? "\(type)") attribute holds \(value.storage)")
        }
    }

    /// Whether a value read through Strata is this one, with the same Swift type.
    func matches(_ actual: Any?) -> Bool {
        switch self {
        case .present: return actual != nil
        case .undecodable: return false
        case .exactly(let expected): return Self.same(actual, expected)
        }
    }

    static func same(_ actual: Any?, _ expected: Any?) -> Bool {
        guard let expected else { return actual == nil }
        guard let actual else { return false }
        switch expected {
        case let value as Int16: return (actual as? Int16) == value
        case let value as Int32: return (actual as? Int32) == value
        case let value as Int64: return (actual as? Int64) == value
        case let value as Bool: return (actual as? Bool) == value
        case let value as Double:
            guard let number = actual as? Double else { return false }
            return number == value || (number.isNaN && value.isNaN)
        case let value as Float:
            guard let number = actual as? Float else { return false }
            return number == value || (number.isNaN && value.isNaN)
        case let value as Decimal:
            guard let number = actual as? Decimal else { return false }
            return value.isNaN ? number.isNaN : number == value
        case let value as String: return (actual as? String) == value
        case let value as URL: return (actual as? URL) == value
        case let value as Date: return (actual as? Date) == value
        case let value as UUID: return (actual as? UUID) == value
        case let value as Data: return (actual as? Data) == value
        default: return false
        }
    }

    /// A value with its type, for messages: `Int32(5)`, `String("a")`, `nil`.
    static func show(_ value: Any?) -> String {
        guard let value else { return "nil" }
        let text: String
        switch value {
        case let data as Data: text = data.count <= 24 ? data.map { String(format: "%02x", $0) }.joined() : "\(data.count) bytes"
        case let date as Date: text = "\(date.timeIntervalSinceReferenceDate) since 2001"
        default: text = String(reflecting: value)
        }
        return "\(type(of: value))(\(text.count > 80 ? String(text.prefix(80)) + "…" : text))"
    }

    var description: String {
        switch self {
        case .exactly(let value): Self.show(value)
        case .present: "a non-nil transformed value"
        case .undecodable(let reason): "undecodable: \(reason)"
        }
    }

    /// The value as a number for order comparisons (integers, floating point, dates).
    var sortKey: Double? {
        guard case .exactly(let value) = self else { return nil }
        switch value {
        case let value as Int16: return Double(value)
        case let value as Int32: return Double(value)
        case let value as Int64: return Double(value)
        case let value as Double: return value
        case let value as Float: return Double(value)
        case let value as Date: return value.timeIntervalSinceReferenceDate
        default: return nil
        }
    }
}

/// Mismatches found in one store, grouped by what they concern, each group with a count and
/// its first example; reported once the context's queue has returned.
final class CorpusFindings {
    private(set) var groups: [(key: String, count: Int, example: String)] = []
    private var positions: [String: Int] = [:]
    private(set) var notes: [String] = []
    private var noted: Set<String> = []

    func fail(_ key: String, _ example: String) {
        if let position = positions[key] {
            groups[position].count += 1
        } else {
            positions[key] = groups.count
            groups.append((key, 1, example))
        }
    }

    /// Something not checked, and why (printed, not a failure); repeated notes are kept once.
    func note(_ text: String) {
        if noted.insert(text).inserted { notes.append(text) }
    }
}

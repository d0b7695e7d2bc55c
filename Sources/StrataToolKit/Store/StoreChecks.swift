import Foundation
import GRDB
import Strata

/// One thing wrong with a store, found by `strata store check`.
struct StoreDefect {
    /// What kind: `integrity`, `primary-key`, `entity`, `foreign-key`, `join-table`,
    /// `external-missing`, `external-orphan`.
    let kind: String
    let message: String
}

/// Core Data's invariants checked on a store's tables (STORE-FORMAT §3): SQLite's own
/// integrity, `Z_PRIMARYKEY.Z_MAX` at or above every key in use, `Z_ENT` values naming the
/// table's entity or a subentity, to-one foreign keys and join-table rows pointing at rows that
/// exist, and external data files present for each marker and referenced by one.
struct StoreChecks {
    let database: DatabaseQueue
    /// The model that tells which columns are relationships; without it foreign keys of to-one
    /// relationships are not checked.
    let model: NSManagedObjectModel?
    /// The store's external data folder (`.<store>_SUPPORT/_EXTERNAL_DATA`).
    let externalData: URL
    let progress: ProgressBar

    /// A row of `Z_PRIMARYKEY`.
    struct EntityRow {
        let number: Int64
        let name: String
        let parent: Int64
        let max: Int64
    }

    func run() throws -> [StoreDefect] {
        var defects: [StoreDefect] = []
        try database.read { db in
            defects += try integrity(db)
            guard defects.isEmpty || (try? db.tableExists("Z_PRIMARYKEY")) == true else { return }
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY").map {
                EntityRow(
                    number: $0["Z_ENT"] ?? 0, name: $0["Z_NAME"] ?? "", parent: $0["Z_SUPER"] ?? 0, max: $0["Z_MAX"] ?? 0)
            }
            let byNumber = Dictionary(entities.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
            let steps = 5
            progress.update(1, total: steps)
            defects += try primaryKeys(db, entities: entities, byNumber: byNumber)
            progress.update(2, total: steps)
            defects += try foreignKeys(db, entities: entities, byNumber: byNumber)
            progress.update(3, total: steps)
            defects += try joinTables(db, byNumber: byNumber)
            progress.update(4, total: steps)
            defects += try externalFiles(db, entities: entities, byNumber: byNumber)
            progress.update(5, total: steps)
        }
        progress.finish()
        return defects
    }

    private func integrity(_ db: Database) throws -> [StoreDefect] {
        let lines = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        return lines.filter { $0 != "ok" }.map { StoreDefect(kind: "integrity", message: "SQLite integrity check: \($0)") }
    }

    /// `Z<NAME>` for an entity of the model, `A<NAME>` for history's (numbers from 16000).
    static func table(of row: EntityRow, byNumber: [Int64: EntityRow]) -> String {
        var root = row
        while root.parent != 0, let parent = byNumber[root.parent] { root = parent }
        return (root.number >= 16000 ? "A" : "Z") + root.name.uppercased()
    }

    /// An entity's number and its subentities' numbers.
    static func family(of number: Int64, entities: [EntityRow]) -> Set<Int64> {
        var family: Set<Int64> = [number]
        var grew = true
        while grew {
            grew = false
            for entity in entities where family.contains(entity.parent) && !family.contains(entity.number) {
                family.insert(entity.number)
                grew = true
            }
        }
        return family
    }

    private func primaryKeys(_ db: Database, entities: [EntityRow], byNumber: [Int64: EntityRow]) throws -> [StoreDefect] {
        var defects: [StoreDefect] = []
        for root in entities where root.parent == 0 {
            let table = Self.table(of: root, byNumber: byNumber)
            guard try db.tableExists(table) else { continue }
            // An empty table has no largest key (max is NULL): nothing to compare.
            if let largest = try Int64?.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)") ?? nil, largest > root.max {
                defects.append(
                    StoreDefect(
                        kind: "primary-key",
                        message:
                            "Z_PRIMARYKEY.Z_MAX of \(root.name) is \(root.max), below the largest Z_PK \(largest) in \(table)"))
            }
            let family = Self.family(of: root.number, entities: entities)
            let counts = try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) AS n, min(Z_PK) AS first FROM \(table) GROUP BY Z_ENT")
            for row in counts {
                let number: Int64? = row["Z_ENT"]
                guard let number, family.contains(number) else {
                    let n: Int = row["n"] ?? 0
                    let first: Int64 = row["first"] ?? 0
                    defects.append(
                        StoreDefect(
                            kind: "entity",
                            message: "\(table): \(n) row(s) have Z_ENT \(number.map(String.init) ?? "NULL"), which is not "
                                + "\(root.name) or one of its subentities (first Z_PK \(first))"))
                    continue
                }
            }
        }
        return defects
    }

    private func columns(_ db: Database, table: String) throws -> [String: String] {
        var columns: [String: String] = [:]
        for column in try db.columns(in: table) { columns[column.name.uppercased()] = column.type.uppercased() }
        return columns
    }

    private func foreignKeys(_ db: Database, entities: [EntityRow], byNumber: [Int64: EntityRow]) throws -> [StoreDefect] {
        guard let model else { return [] }
        let numbers = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var defects: [StoreDefect] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            guard let row = numbers[entity.name ?? ""] else { continue }
            let table = Self.table(of: row, byNumber: byNumber)
            guard try db.tableExists(table) else { continue }
            let columns = try columns(db, table: table)
            let family = Self.family(of: row.number, entities: entities).map(String.init).joined(separator: ",")
            // Only the relationships the entity declares: a subentity's inherited ones are its parent's.
            let declared = entity.relationshipsByName.values.filter {
                !$0.isToMany && !$0.isTransient && entity.superentity?.relationshipsByName[$0.name] == nil
            }
            for relationship in declared.sorted(by: { $0.name < $1.name }) {
                let column = "Z" + relationship.name.uppercased()
                guard columns[column] != nil, let destination = relationship.destinationEntity,
                    let destinationRow = numbers[destination.name ?? ""]
                else { continue }
                let destinationTable = Self.table(of: destinationRow, byNumber: byNumber)
                guard try db.tableExists(destinationTable) else { continue }
                let missing = try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT \(column) FROM \(table) WHERE Z_ENT IN (\(family)) AND \(column) IS NOT NULL
                        AND \(column) NOT IN (SELECT Z_PK FROM \(destinationTable)) ORDER BY \(column)
                        """)
                if !missing.isEmpty {
                    defects.append(
                        StoreDefect(
                            kind: "foreign-key",
                            message: "\(table).\(column) (\(entity.name ?? "?").\(relationship.name)): \(missing.count) row(s) "
                                + "point at missing \(destination.name ?? "?") rows (Z_PK \(Self.sample(missing)))"))
                }
            }
        }
        return defects
    }

    static func sample(_ keys: [Int64]) -> String {
        keys.prefix(5).map(String.init).joined(separator: ", ") + (keys.count > 5 ? ", …" : "")
    }

    private func joinTables(_ db: Database, byNumber: [Int64: EntityRow]) throws -> [StoreDefect] {
        var defects: [StoreDefect] = []
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for table in tables where Self.number(after: "Z_", in: table) != nil {
            for column in try db.columns(in: table) where !column.name.uppercased().hasPrefix("Z_FOK_") {
                guard let number = Self.number(after: "Z_", in: column.name.uppercased()), let entity = byNumber[number] else {
                    continue
                }
                let target = Self.table(of: entity, byNumber: byNumber)
                guard try db.tableExists(target) else { continue }
                let missing = try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT \(column.name) FROM \(table) WHERE \(column.name) IS NOT NULL
                        AND \(column.name) NOT IN (SELECT Z_PK FROM \(target)) ORDER BY 1
                        """)
                if !missing.isEmpty {
                    defects.append(
                        StoreDefect(
                            kind: "join-table",
                            message:
                                "\(table).\(column.name): rows point at missing \(entity.name) rows (Z_PK \(Self.sample(missing)))"
                        ))
                }
            }
        }
        return defects
    }

    /// The entity number in `Z_12TAGS` (a join table) or `Z_12TODOS` (its column).
    static func number(after prefix: String, in name: String) -> Int64? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.dropFirst(prefix.count).prefix { $0.isNumber }
        guard !digits.isEmpty, name.count > prefix.count + digits.count else { return nil }
        return Int64(digits)
    }

    private func externalFiles(_ db: Database, entities: [EntityRow], byNumber: [Int64: EntityRow]) throws -> [StoreDefect] {
        var defects: [StoreDefect] = []
        var referenced: Set<String> = []
        let fileNames = Set((try? FileManager.default.contentsOfDirectory(atPath: externalData.path)) ?? [])
        for root in entities where root.parent == 0 && root.number < 16000 {
            let table = Self.table(of: root, byNumber: byNumber)
            guard try db.tableExists(table) else { continue }
            for (column, type) in try columns(db, table: table).sorted(by: { $0.key < $1.key }) where type == "BLOB" {
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT Z_PK, \(column) AS value FROM \(table) WHERE length(\(column)) = 38 AND substr(\(column), 1, 1) = x'02'"
                )
                for row in rows {
                    let bytes: Data = row["value"] ?? Data()
                    guard bytes.last == 0, let name = String(data: bytes.dropFirst().dropLast(), encoding: .ascii),
                        UUID(uuidString: name) != nil
                    else { continue }
                    referenced.insert(name)
                    if !fileNames.contains(name) {
                        let key: Int64 = row["Z_PK"] ?? 0
                        defects.append(
                            StoreDefect(
                                kind: "external-missing",
                                message: "\(table).\(column) of Z_PK \(key) names external data file \(name), which is missing"))
                    }
                }
            }
        }
        for name in fileNames.sorted() where !name.hasPrefix(".") && !referenced.contains(name) {
            defects.append(
                StoreDefect(kind: "external-orphan", message: "external data file \(name) is referenced by no row"))
        }
        return defects
    }
}

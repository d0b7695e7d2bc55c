import Foundation
import GRDB

/// GRDB's record for a row of `ZITEM`, written the fast way GRDB documents: columns read by
/// position (the selection fixes their order) and encoded without `Codable`.
struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZITEM"
    static var databaseSelection: [any SQLSelectable] {
        [Column("Z_PK"), Column("Z_ENT"), Column("Z_OPT")] + Layout.itemColumns.map { Column($0) }
    }

    var key: Int64
    var entity: Int64
    var version: Int64
    var values: ItemValues

    init(key: Int64, entity: Int64, values: ItemValues) {
        self.key = key
        self.entity = entity
        self.version = 1
        self.values = values
    }

    init(row: Row) {
        key = row[0]
        entity = row[1]
        version = row[2]
        values = ItemValues(0)
        values.category = row[3]
        values.quantity = row[4]
        values.serial = row[5]
        values.stock = row[6]
        values.price = row[7]
        values.weight = row[8]
        values.latitude = row[9]
        values.longitude = row[10]
        values.name = row[11]
        values.created = row[12]
    }

    func encode(to container: inout PersistenceContainer) {
        container["Z_PK"] = key
        container["Z_ENT"] = entity
        container["Z_OPT"] = version
        container["ZCATEGORY"] = values.category
        container["ZQUANTITY"] = values.quantity
        container["ZSERIAL"] = values.serial
        container["ZSTOCK"] = values.stock
        container["ZPRICE"] = values.price
        container["ZWEIGHT"] = values.weight
        container["ZLATITUDE"] = values.latitude
        container["ZLONGITUDE"] = values.longitude
        container["ZNAME"] = values.name
        container["ZCREATED"] = values.created
    }

    func add(to checksum: inout Checksum) {
        let v = values
        checksum.add(v.category, v.quantity, v.serial, v.stock, v.price, v.weight, v.latitude, v.longitude, v.name, v.created)
    }
}

/// GRDB's record for `ZOWNER`, with its items as an association.
struct OwnerRecord: FetchableRecord, TableRecord {
    static let databaseTableName = "ZOWNER"
    static var databaseSelection: [any SQLSelectable] { [Column("Z_PK"), Column("ZNAME")] }
    static let items = hasMany(ItemRecord.self, using: ForeignKey(["ZOWNER"])).forKey("items")

    var key: Int64
    var name: String?

    init(row: Row) {
        key = row[0]
        name = row[1]
    }
}

/// An owner with its items, fetched with `including(all:)`.
struct OwnerWithItems: FetchableRecord {
    var owner: OwnerRecord
    var items: [ItemRecord]

    init(row: Row) {
        owner = OwnerRecord(row: row)
        items = row.prefetchedRows["items"]?.map { ItemRecord(row: $0) } ?? []
    }
}

/// The same work through GRDB: a `DatabaseQueue`, records for rows, cached statements.
enum GRDBCases {
    static func open(_ path: String) throws -> DatabaseQueue { try DatabaseQueue(path: path) }

    static let selectAll = "SELECT \(Layout.itemSelect) FROM ZITEM"

    static func insert(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.empty)
        defer { Fixtures.remove(path) }
        let queue = try open(path)
        let count = fixtures.sizes.inserts
        return try measure {
            try queue.write { db in
                var checksum = Checksum()
                for n in 1...count {
                    let record = ItemRecord(key: Int64(n), entity: fixtures.itemEntity, values: ItemValues(n))
                    try record.insert(db)
                    checksum.add(record.values.serial)
                }
                try db.execute(
                    sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [count, fixtures.itemEntity])
                return checksum.value
            }
        }
    }

    static func fetch(_ fixtures: Fixtures) throws -> Sample {
        let queue = try open(fixtures.items)
        return try measure {
            try queue.read { db in
                let items = try ItemRecord.fetchAll(db.cachedStatement(sql: selectAll))
                var checksum = Checksum()
                for item in items { item.add(to: &checksum) }
                return checksum.value
            }
        }
    }

    static func fetchIDs(_ fixtures: Fixtures) throws -> Sample {
        let queue = try open(fixtures.items)
        return try measure {
            try queue.read { db in
                try Int64.fetchAll(db.cachedStatement(sql: "SELECT Z_PK FROM ZITEM")).count
            }
        }
    }

    static func query(_ fixtures: Fixtures) throws -> Sample {
        let queue = try open(fixtures.large)
        let sql = "\(selectAll) WHERE ZCATEGORY = ? AND ZPRICE >= ? ORDER BY ZPRICE, Z_PK LIMIT 20"
        return try measure {
            try queue.read { db in
                var checksum = Checksum()
                for query in 0..<fixtures.sizes.queries {
                    let parameters = QueryParameters(query)
                    let statement = try db.cachedStatement(sql: sql)
                    let items = try ItemRecord.fetchAll(
                        statement, arguments: [parameters.category, parameters.minimumPrice])
                    for item in items { item.add(to: &checksum) }
                }
                return checksum.value
            }
        }
    }

    /// B7 lazy: each owner's items through its association, a query per owner.
    static func traverseLazily(_ fixtures: Fixtures) throws -> Sample {
        let queue = try open(fixtures.owners)
        return try measure {
            try queue.read { db in
                var checksum = Checksum()
                for owner in try OwnerRecord.order(Column("Z_PK")).fetchAll(db) {
                    checksum.add(owner.name)
                    let items = try ItemRecord.fetchAll(
                        db.cachedStatement(sql: "\(selectAll) WHERE ZOWNER = ? ORDER BY Z_PK"), arguments: [owner.key])
                    for item in items { item.add(to: &checksum) }
                }
                return checksum.value
            }
        }
    }

    /// B7 prefetched: `including(all:)`, two queries.
    static func traversePrefetched(_ fixtures: Fixtures) throws -> Sample {
        let queue = try open(fixtures.owners)
        return try measure {
            try queue.read { db in
                var checksum = Checksum()
                let request = OwnerRecord.including(all: OwnerRecord.items.order(Column("Z_PK"))).order(Column("Z_PK"))
                for entry in try OwnerWithItems.fetchAll(db, request) {
                    checksum.add(entry.owner.name)
                    for item in entry.items { item.add(to: &checksum) }
                }
                return checksum.value
            }
        }
    }

    static func modify(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.items)
        defer { Fixtures.remove(path) }
        let queue = try open(path)
        let update = "UPDATE ZITEM SET ZPRICE = ?, ZNAME = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?"
        return try measure {
            try queue.write { db in
                var checksum = Checksum()
                for var item in try ItemRecord.fetchAll(db.cachedStatement(sql: selectAll)) {
                    item.values.price = ItemValues.modifiedPrice(item.values.price)
                    item.values.name = ItemValues.modifiedName(item.values.name)
                    try db.cachedStatement(sql: update).execute(arguments: [
                        item.values.price, item.values.name, item.version + 1, item.key, item.version,
                    ])
                    checksum.add(item.values.price)
                    checksum.add(item.values.name)
                }
                return checksum.value
            }
        }
    }

    static func delete(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.owners)
        defer { Fixtures.remove(path) }
        let queue = try open(path)
        return try measure {
            try queue.write { db in
                for owner in try OwnerRecord.fetchAll(db) {
                    try ItemRecord.filter(Column("ZOWNER") == owner.key).deleteAll(db)
                    try OwnerRecord.deleteOne(db, key: owner.key)
                }
                return try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM") ?? 0
            }
        }
    }

    static func holdAll(_ fixtures: Fixtures) throws -> Int {
        let queue = try open(fixtures.items)
        let items = try queue.read { db in try ItemRecord.fetchAll(db.cachedStatement(sql: selectAll)) }
        var checksum = Checksum()
        for item in items { item.add(to: &checksum) }
        return withExtendedLifetime(items) { checksum.value }
    }

    static func iterate(_ fixtures: Fixtures) throws -> Int {
        let queue = try open(fixtures.large)
        return try queue.read { db in
            var checksum = Checksum()
            let cursor = try ItemRecord.fetchCursor(db.cachedStatement(sql: selectAll))
            while let item = try cursor.next() { item.add(to: &checksum) }
            return checksum.value
        }
    }
}

import Foundation

/// A row read by the raw stack: the plain struct hand-written C code would fill.
struct RawItem {
    var key: Int64
    var version: Int64
    var values: ItemValues
}

/// The baseline: the work of each case written against SQLite's C API, with statements
/// prepared once and one transaction for writes.
enum RawCases {
    static func bind(_ values: ItemValues, key: Int64, entity: Int64, to statement: RawStatement) {
        statement.bind(key, at: 1)
        statement.bind(entity, at: 2)
        statement.bind(Int64(values.category), at: 3)
        statement.bind(Int64(values.quantity), at: 4)
        statement.bind(values.serial, at: 5)
        statement.bind(values.stock, at: 6)
        statement.bind(values.price, at: 7)
        statement.bind(values.weight, at: 8)
        statement.bind(values.latitude, at: 9)
        statement.bind(values.longitude, at: 10)
        statement.bind(values.name, at: 11)
        statement.bind(values.created, at: 12)
    }

    /// A row of `SELECT Layout.itemSelect`, starting at column `first`.
    static func item(_ statement: RawStatement, first: Int32 = 0) -> RawItem {
        var values = ItemValues(0)
        values.category = Int16(truncatingIfNeeded: statement.int64(first + 3))
        values.quantity = Int32(truncatingIfNeeded: statement.int64(first + 4))
        values.serial = statement.int64(first + 5)
        values.stock = statement.int64(first + 6)
        values.price = statement.double(first + 7)
        values.weight = statement.double(first + 8)
        values.latitude = statement.double(first + 9)
        values.longitude = statement.double(first + 10)
        values.name = statement.string(first + 11) ?? ""
        values.created = statement.double(first + 12)
        return RawItem(key: statement.int64(first), version: statement.int64(first + 2), values: values)
    }

    static func add(_ item: RawItem, to checksum: inout Checksum) {
        let v = item.values
        checksum.add(v.category, v.quantity, v.serial, v.stock, v.price, v.weight, v.latitude, v.longitude, v.name, v.created)
    }

    static func loadAll(_ database: RawDatabase, sql: String = "SELECT \(Layout.itemSelect) FROM ZITEM") throws -> [RawItem] {
        let select = try database.prepare(sql)
        var items: [RawItem] = []
        while try select.step() { items.append(item(select)) }
        return items
    }

    // MARK: Cases

    static func insert(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.empty)
        defer { Fixtures.remove(path) }
        let database = try RawDatabase(path: path)
        let count = fixtures.sizes.inserts
        return try measure {
            try database.execute("BEGIN IMMEDIATE")
            let insert = try database.prepare(Layout.itemInsert)
            var checksum = Checksum()
            for n in 1...count {
                let values = ItemValues(n)
                bind(values, key: Int64(n), entity: fixtures.itemEntity, to: insert)
                try insert.step()
                insert.reset()
                checksum.add(values.serial)
            }
            try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(fixtures.itemEntity)")
            try database.execute("COMMIT")
            return checksum.value
        }
    }

    static func fetch(_ fixtures: Fixtures) throws -> Sample {
        let database = try RawDatabase(path: fixtures.items)
        return try measure {
            let items = try loadAll(database)
            var checksum = Checksum()
            for item in items { add(item, to: &checksum) }
            return checksum.value
        }
    }

    static func fetchIDs(_ fixtures: Fixtures) throws -> Sample {
        let database = try RawDatabase(path: fixtures.items)
        return try measure {
            let select = try database.prepare("SELECT Z_PK FROM ZITEM")
            var keys: [Int64] = []
            while try select.step() { keys.append(select.int64(0)) }
            return keys.count
        }
    }

    /// B6: the query of `QueryParameters`, prepared once, `queries` times.
    static func query(_ fixtures: Fixtures) throws -> Sample {
        let database = try RawDatabase(path: fixtures.large)
        let sql = """
            SELECT \(Layout.itemSelect) FROM ZITEM WHERE ZCATEGORY = ? AND ZPRICE >= ? \
            ORDER BY ZPRICE, Z_PK LIMIT 20
            """
        return try measure {
            let select = try database.prepare(sql)
            var checksum = Checksum()
            for query in 0..<fixtures.sizes.queries {
                let parameters = QueryParameters(query)
                select.bind(Int64(parameters.category), at: 1)
                select.bind(parameters.minimumPrice, at: 2)
                var items: [RawItem] = []
                while try select.step() { items.append(item(select)) }
                for item in items { add(item, to: &checksum) }
                select.reset()
            }
            return checksum.value
        }
    }

    /// B7's best SQL: one join, owners in order with their items.
    static func traverse(_ fixtures: Fixtures) throws -> Sample {
        let database = try RawDatabase(path: fixtures.owners)
        let columns = Layout.itemColumns.map { "i.\($0)" }.joined(separator: ", ")
        let sql = """
            SELECT o.Z_PK, o.ZNAME, i.Z_PK, i.Z_ENT, i.Z_OPT, \(columns) FROM ZOWNER o \
            JOIN ZITEM i ON i.ZOWNER = o.Z_PK ORDER BY o.Z_PK, i.Z_PK
            """
        return try measure {
            let select = try database.prepare(sql)
            var owners: [(key: Int64, name: String?, items: [RawItem])] = []
            while try select.step() {
                let key = select.int64(0)
                if owners.last?.key != key { owners.append((key, select.string(1), [])) }
                owners[owners.count - 1].items.append(item(select, first: 2))
            }
            var checksum = Checksum()
            for owner in owners {
                checksum.add(owner.name)
                for item in owner.items { add(item, to: &checksum) }
            }
            return checksum.value
        }
    }

    /// B8: every row read, two columns of each changed, in one transaction.
    static func modify(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.items)
        defer { Fixtures.remove(path) }
        let database = try RawDatabase(path: path)
        return try measure {
            try database.execute("BEGIN IMMEDIATE")
            let items = try loadAll(database)
            let update = try database.prepare(
                "UPDATE ZITEM SET ZPRICE = ?, ZNAME = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?")
            var checksum = Checksum()
            for item in items {
                let price = ItemValues.modifiedPrice(item.values.price)
                let name = ItemValues.modifiedName(item.values.name)
                update.bind(price, at: 1)
                update.bind(name, at: 2)
                update.bind(item.version + 1, at: 3)
                update.bind(item.key, at: 4)
                update.bind(item.version, at: 5)
                try update.step()
                update.reset()
                checksum.add(price)
                checksum.add(name)
            }
            try database.execute("COMMIT")
            return checksum.value
        }
    }

    /// B10's best SQL: each owner's items and the owner, by key, in one transaction.
    static func delete(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.owners)
        defer { Fixtures.remove(path) }
        let database = try RawDatabase(path: path)
        return try measure {
            try database.execute("BEGIN IMMEDIATE")
            let select = try database.prepare("SELECT Z_PK FROM ZOWNER")
            var keys: [Int64] = []
            while try select.step() { keys.append(select.int64(0)) }
            let items = try database.prepare("DELETE FROM ZITEM WHERE ZOWNER = ?")
            let owner = try database.prepare("DELETE FROM ZOWNER WHERE Z_PK = ?")
            for key in keys {
                items.bind(key, at: 1)
                try items.step()
                items.reset()
                owner.bind(key, at: 1)
                try owner.step()
                owner.reset()
            }
            try database.execute("COMMIT")
            return try Int(database.integer("SELECT count(*) FROM ZITEM"))
        }
    }

    // MARK: Memory

    /// M1: every row loaded and kept.
    static func holdAll(_ fixtures: Fixtures) throws -> Int {
        let database = try RawDatabase(path: fixtures.items)
        let items = try loadAll(database)
        var checksum = Checksum()
        for item in items { add(item, to: &checksum) }
        return withExtendedLifetime(items) { checksum.value }
    }

    /// M2: every row of the large store read once, none kept.
    static func iterate(_ fixtures: Fixtures) throws -> Int {
        let database = try RawDatabase(path: fixtures.large)
        let select = try database.prepare("SELECT \(Layout.itemSelect) FROM ZITEM")
        var checksum = Checksum()
        while try select.step() { add(item(select), to: &checksum) }
        return checksum.value
    }
}

/// The parameters of B6's query number `n`: `category == c AND price >= p`, by price.
struct QueryParameters {
    var category: Int16
    var minimumPrice: Double

    init(_ n: Int) {
        category = Int16(n * 37 % 100)
        minimumPrice = Double(n * 7 % 1000)
    }
}

import Foundation
import GRDB
import Strata

/// B2, B9 and B9c: batch requests, against the best SQL for the same rows. B2's raw and GRDB
/// sides are B1's (the fastest way each writes new rows); the others run one set-based
/// statement per table, as a hand-written batch would, and move `Z_OPT` as Core Data does.
enum BatchCases {
    // MARK: B2, batch insert

    /// The rows of B1, given one at a time to the dictionary handler.
    static func strataInsert(_ fixtures: Fixtures) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.empty)
        defer { Fixtures.remove(path) }
        let stack = try StrataCases.Stack(path)
        defer { stack.close() }
        let count = fixtures.sizes.inserts
        return try stack.run { context in
            var checksum = Checksum()
            var n = 0
            let insert = NSBatchInsertRequest(entityName: "Item") { (row: NSMutableDictionary) in
                guard n < count else { return true }
                n += 1
                let values = ItemValues(n)
                row["category"] = values.category
                row["quantity"] = values.quantity
                row["serial"] = values.serial
                row["stock"] = values.stock
                row["price"] = values.price
                row["weight"] = values.weight
                row["latitude"] = values.latitude
                row["longitude"] = values.longitude
                row["name"] = values.name
                row["created"] = Date(timeIntervalSinceReferenceDate: values.created)
                checksum.add(values.serial)
                return false
            }
            _ = try context.execute(insert)
            return checksum.value
        }
    }

    // MARK: B9, batch update and batch delete

    static func rawUpdate(_ fixtures: Fixtures) throws -> Sample {
        try raw(fixtures.items, fixtures) { database in
            try database.execute("UPDATE ZITEM SET ZPRICE = ZPRICE * 1.1, Z_OPT = Z_OPT + 1")
            return Int(try database.integer("SELECT changes()"))
        }
    }

    static func grdbUpdate(_ fixtures: Fixtures) throws -> Sample {
        try grdb(fixtures.items, fixtures) { db in
            try db.execute(sql: "UPDATE ZITEM SET ZPRICE = ZPRICE * 1.1, Z_OPT = Z_OPT + 1")
            return db.changesCount
        }
    }

    static func strataUpdate(_ fixtures: Fixtures) throws -> Sample {
        try strata(fixtures.items, fixtures) { context in
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.propertiesToUpdate = ["price": NSExpression(format: "price * 1.1")]
            update.resultType = .updatedObjectsCountResultType
            return (try context.execute(update) as? NSBatchUpdateResult)?.result as? Int ?? -1
        }
    }

    static func rawDelete(_ fixtures: Fixtures) throws -> Sample {
        try raw(fixtures.items, fixtures) { database in
            try database.execute("DELETE FROM ZITEM")
            return Int(try database.integer("SELECT changes()"))
        }
    }

    static func grdbDelete(_ fixtures: Fixtures) throws -> Sample {
        try grdb(fixtures.items, fixtures) { db in
            try db.execute(sql: "DELETE FROM ZITEM")
            return db.changesCount
        }
    }

    static func strataDelete(_ fixtures: Fixtures) throws -> Sample {
        try strata(fixtures.items, fixtures) { context in
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Item"))
            delete.resultType = .resultTypeCount
            return (try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int ?? -1
        }
    }

    // MARK: B9c, batch delete of owners cascading to their items

    /// What is left of both tables (nothing), read after the deletion.
    static func rawCascade(_ fixtures: Fixtures) throws -> Sample {
        try raw(fixtures.owners, fixtures) { database in
            try database.execute("DELETE FROM ZITEM WHERE ZOWNER IN (SELECT Z_PK FROM ZOWNER)")
            try database.execute("DELETE FROM ZOWNER")
            return Int(try database.integer("SELECT (SELECT count(*) FROM ZITEM) + (SELECT count(*) FROM ZOWNER)"))
        }
    }

    static func grdbCascade(_ fixtures: Fixtures) throws -> Sample {
        try grdb(fixtures.owners, fixtures) { db in
            try db.execute(sql: "DELETE FROM ZITEM WHERE ZOWNER IN (SELECT Z_PK FROM ZOWNER)")
            try db.execute(sql: "DELETE FROM ZOWNER")
            return try Int.fetchOne(db, sql: "SELECT (SELECT count(*) FROM ZITEM) + (SELECT count(*) FROM ZOWNER)") ?? -1
        }
    }

    static func strataCascade(_ fixtures: Fixtures) throws -> Sample {
        try strata(fixtures.owners, fixtures) { context in
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")))
            let owners = try context.count(for: NSFetchRequest<Owner>(entityName: "Owner"))
            return try context.count(for: StrataCases.items()) + owners
        }
    }

    // MARK: Stacks

    private static func raw(_ fixture: String, _ fixtures: Fixtures, _ work: (RawDatabase) throws -> Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixture)
        defer { Fixtures.remove(path) }
        let database = try RawDatabase(path: path)
        return try measure {
            try database.execute("BEGIN IMMEDIATE")
            let result = try work(database)
            try database.execute("COMMIT")
            return result
        }
    }

    private static func grdb(_ fixture: String, _ fixtures: Fixtures, _ work: (Database) throws -> Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixture)
        defer { Fixtures.remove(path) }
        let queue = try DatabaseQueue(path: path)
        return try measure { try queue.write(work) }
    }

    private static func strata(
        _ fixture: String, _ fixtures: Fixtures, _ work: (NSManagedObjectContext) throws -> Int
    ) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixture)
        defer { Fixtures.remove(path) }
        let stack = try StrataCases.Stack(path)
        defer { stack.close() }
        return try stack.run(work)
    }
}

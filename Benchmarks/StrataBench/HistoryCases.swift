import Foundation
import Strata

/// Persistent history (issue 23): B1 and B8 with history tracking on (B1h, B8h: SPEC's goal is
/// ≤ 1.3× the B1 and B8 of the same run, so ≤ 3.25× raw against their 2.5× goals), and
/// reading the history of a 100k-object save after a token (B1r: ≤ 2× raw SQLite reading the
/// same `ACHANGE` and `ATRANSACTION` rows).
enum HistoryCases {
    static var options: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    static func timed(_ sizes: Sizes) -> [TimedCase] {
        let n = Report.count
        return [
            TimedCase(
                id: "B1h", work: "B1 with persistent history: \(n(sizes.inserts)) inserts, one save", goal: .ratio(3.25),
                runs: [.raw: RawCases.insert, .strata: { try StrataCases.insert($0, options: options) }]),
            TimedCase(
                id: "B8h", work: "B8 with persistent history: modify \(n(sizes.fetched)), one save", goal: .ratio(3.25),
                runs: [.raw: RawCases.modify, .strata: { try StrataCases.modify($0, options: options) }]),
            TimedCase(
                id: "B1r", work: "read the history of \(n(sizes.inserts)) inserts after a token", goal: .ratio(2),
                runs: [.raw: rawRead, .strata: strataRead]),
        ]
    }

    /// A store whose history holds one small transaction (the token's) and then one of
    /// `sizes.inserts` inserts; made with Strata before the clock.
    private static func storeWithHistory(_ fixtures: Fixtures) throws -> (path: String, token: NSPersistentHistoryToken) {
        let path = try fixtures.scratchCopy(of: fixtures.empty)
        let stack = try StrataCases.Stack(path, options: options)
        defer { stack.close() }
        let token = try stack.context.performAndWait {
            _ = Item(context: stack.context)
            try stack.context.save()
            guard let token = stack.coordinator.currentPersistentHistoryToken(fromStores: nil) else {
                throw BenchError("no history token")
            }
            for n in 1...fixtures.sizes.inserts {
                let item = Item(context: stack.context)
                item.serial = Int64(n)
            }
            try stack.context.save()
            return token
        }
        return (path, token)
    }

    /// Raw SQLite: the transactions after the token's number with their interned strings, and
    /// their changes, each row's columns read.
    static func rawRead(_ fixtures: Fixtures) throws -> Sample {
        let (path, _) = try storeWithHistory(fixtures)
        defer { Fixtures.remove(path) }
        let database = try RawDatabase(path: path)
        return try measure {
            try database.execute("BEGIN")
            let transactions = try database.prepare(
                "SELECT t.Z_PK, t.ZTIMESTAMP, a.ZNAME, p.ZNAME FROM ATRANSACTION t "
                    + "LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS "
                    + "LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS WHERE t.Z_PK > 1 ORDER BY t.Z_PK")
            var read = 0
            while try transactions.step() {
                read &+= Int(transactions.int64(0)) &+ (transactions.string(3)?.utf8.count ?? 0)
            }
            let changes = try database.prepare(
                "SELECT Z_PK, ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE "
                    + "WHERE ZTRANSACTIONID > 1 ORDER BY ZTRANSACTIONID, Z_PK")
            var count = 0
            while try changes.step() {
                read &+= Int(changes.int64(4))
                count += 1
            }
            try database.execute("COMMIT")
            // The count is what both stacks report; `read` only keeps the reads from being skipped.
            return read == 0 ? -1 : count
        }
    }

    /// Strata: `fetchHistory(after:)` the token, every change's object ID read.
    static func strataRead(_ fixtures: Fixtures) throws -> Sample {
        let (path, token) = try storeWithHistory(fixtures)
        defer { Fixtures.remove(path) }
        let stack = try StrataCases.Stack(path, options: options)
        defer { stack.close() }
        return try stack.run { context in
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token))
            let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
            var count = 0
            for transaction in transactions {
                for change in transaction.changes ?? [] where change.changedObjectID.entity.name == "Item" { count += 1 }
            }
            return count
        }
    }
}

import Foundation
import GRDB
import Testing

@testable import Strata

extension HistoryTests {
    /// The two corpus stores Apple's Core Data wrote with history tracking on (CoreDataPlus
    /// `SampleModel2_V1` and `_V2`): their history reads back as Apple recorded it, and a
    /// store Strata makes with history on has the same tables, columns and indexes.
    @Suite struct CorpusTests {
        static let v1 = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"
        static let v2 = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V2.sqlite"
        private let scratch = Scratch()

        /// A copy of a corpus store opened with its cached model and history tracking.
        private func open(_ name: String, readOnly: Bool) throws -> (Stack, URL) {
            let url = try TestCorpus.copyOfStore(named: name)
            let stack = try Stack(at: url, model: try NSManagedObjectModel.cachedModel(ofStoreAt: url), readOnly: readOnly)
            return (stack, url)
        }

        @Test(
            .enabled(if: TestCorpus.isAvailable, "the corpus is absent"),
            arguments: [
                (v1, 737_057_647.288022, 5468, [1: 51, 2: 1, 3: 444, 4: 4970, 6: 2]),
                (v2, 737_057_651.681977, 126, [1: 2, 2: 1, 3: 3, 4: 119, 6: 1]),
            ])
        func appleWrittenHistoryReadsBack(name: String, timestamp: Double, changes: Int, byEntity: [Int: Int]) throws {
            let (stack, url) = try open(name, readOnly: true)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let transactions = try stack.transactions()
            #expect(transactions.count == 1)
            let transaction = try #require(transactions.first)
            #expect(transaction.transactionNumber == 1)
            #expect(transaction.bundleID == "com.apple.dt.xctest.tool")
            #expect(transaction.processID == "xctest")
            #expect(transaction.author == nil && transaction.contextName == nil)
            #expect(transaction.storeID == stack.store.identifier)
            #expect(abs(transaction.timestamp.timeIntervalSinceReferenceDate - timestamp) < 0.001)
            let all = transaction.changes ?? []
            #expect(all.count == changes)
            #expect(all.allSatisfy { $0.changeType == .insert && $0.updatedProperties == nil && $0.tombstone == nil })
            var counts: [String: Int] = [:]
            for change in all { counts[change.changedObjectID.entity.name ?? "?", default: 0] += 1 }
            let names = [1: "Book", 2: "GraphicNovel", 3: "Feedback", 4: "Page", 6: "Author"]
            #expect(counts == Dictionary(uniqueKeysWithValues: byEntity.map { (names[$0.key] ?? "?", $0.value) }))
            // Every inserted object is a row of the store: the changes name each row once.
            let context = stack.context()
            let rows = try context.performAndWait {
                try Set(
                    ["Book", "Feedback", "Page", "Writer"].flatMap { name in
                        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name)).map(\.objectID)
                    })
            }
            #expect(Set(all.map(\.changedObjectID)) == rows)
            let token = try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
            #expect(try stack.transactions(after: token).isEmpty)
        }

        @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent"))
        func strataAppendsToAppleWrittenHistoryInTheSameTables() throws {
            let (stack, url) = try open(Self.v2, readOnly: false)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let context = stack.context(author: "strata", name: "linux")
            try context.performAndWait {
                let feedback = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Feedback")).first)
                feedback.setValue("edited on Linux", forKey: "comment")
                feedback.setValue(4.5, forKey: "rating")
                try context.save()
            }
            let transactions = try stack.transactions()
            #expect(transactions.map(\.transactionNumber) == [1, 2])
            let update = try #require(transactions.last?.changes?.first)
            #expect(update.changeType == .update)
            #expect(HistoryTests.updatedNames(update) == ["comment", "rating"])
            #expect(transactions.last?.author == "strata")
            try stack.close()
            // The rows, as SQLite sees them: entity numbers, interned strings, the bit vector.
            let rows = try DatabaseQueue(path: url.path).read { db in
                (
                    try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT"),
                    try Row.fetchOne(db, sql: "SELECT * FROM ACHANGE ORDER BY Z_PK DESC LIMIT 1"),
                    try String.fetchAll(db, sql: "SELECT ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK")
                )
            }
            #expect(rows.0.map { $0["Z_MAX"] as Int64 }.prefix(2) == [127, 2])
            #expect(rows.0.count == 3 && (rows.0.last?["Z_MAX"] as Int64? ?? 0) >= 5)
            let change = try #require(rows.1)
            #expect(change["Z_ENT"] as Int == 16001 && change["ZENTITY"] as Int == 3 && change["ZCHANGETYPE"] as Int == 1)
            #expect(change["Z_OPT"] as Int? == nil)
            // Feedback's properties by name: authorAlias, bookID, comment, rating → bits 2 and 3.
            #expect(change["ZCOLUMNS"] as Data == Data([0b0011_0000]))
            #expect(Array(rows.2.prefix(2)) == ["com.apple.dt.xctest.tool", "xctest"])
            #expect(rows.2.contains("strata") && rows.2.contains("linux"))
        }

        /// What `sqlite_master` says about the history tables and indexes, and each table's
        /// columns (name, declared type, primary key), in order.
        private static func historySchema(at url: URL) throws -> [String] {
            try DatabaseQueue(path: url.path).read { db in
                var lines = try String.fetchAll(
                    db,
                    sql: """
                        SELECT type || ' ' || name || ' ' || tbl_name || ' ' || coalesce(sql, '') FROM sqlite_master
                        WHERE tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING') ORDER BY type, name
                        """)
                for table in ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"] {
                    for column in try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))") {
                        lines.append("\(table).\(column["name"] as String) \(column["type"] as String) pk=\(column["pk"] as Int)")
                    }
                }
                lines += try String.fetchAll(
                    db,
                    sql: "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
                return lines
            }
        }

        @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func aStrataStoreHasTheHistorySchemaAppleWrites()
            throws
        {
            let apple = try TestCorpus.copyOfStore(named: Self.v1)
            defer { try? FileManager.default.removeItem(at: apple.deletingLastPathComponent()) }
            let url = scratch.file("strata.sqlite")
            let stack = try Stack(at: url, model: try NSManagedObjectModel.cachedModel(ofStoreAt: apple))
            try stack.close()
            let expected = try Self.historySchema(at: apple)
            #expect(expected.count > 30)
            #expect(try Self.historySchema(at: url) == expected)
        }

        @Test func tombstoneColumnsFollowThePreservedAttributes() throws {
            let url = scratch.file("tombstones.sqlite")
            try Stack(at: url).close()
            let columns = try DatabaseQueue(path: url.path).read { db in
                try Row.fetchAll(db, sql: "PRAGMA table_info(ACHANGE)").map { $0["name"] as String }
            }
            #expect(columns.suffix(3) == ["ZCOLUMNS", "ZTOMBSTONE0", "ZTOMBSTONE1"])
        }
    }
}

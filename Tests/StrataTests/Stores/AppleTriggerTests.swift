import Foundation
import GRDB
import Testing

@testable import Strata

/// Apple's derived-attribute triggers call two SQL functions of Core Data's own; Strata
/// registers them on its connections, so that writing to such a store works.
@Suite struct AppleTriggerTests {
    private static let store = "alemar11__CoreDataPlus__Tests__Resources__SampleModel2__Fixtures__SampleModel2_V1.sqlite"

    private func insertPage(_ queue: DatabaseQueue) throws -> Int? {
        try queue.write { db in
            let book = try #require(try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ZBOOK ORDER BY Z_PK LIMIT 1"))
            let key = (try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ZPAGE") ?? 0) + 1
            try db.execute(
                sql:
                    "INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBOOK) VALUES (?, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Page'), 1, 1, ?)",
                arguments: [key, book])
            return try Int.fetchOne(db, sql: "SELECT ZPAGESCOUNT FROM ZBOOK WHERE Z_PK = ?", arguments: [book])
        }
    }

    @Test(.enabled(if: TestCorpus.isAvailable))
    func appleDerivedAttributeTriggersRunOnStrataConnections() throws {
        let copy = try TestCorpus.copyOfStore(named: Self.store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let before = try DatabaseQueue(path: copy.path).read { db in
            try Int.fetchOne(db, sql: "SELECT ZPAGESCOUNT FROM ZBOOK ORDER BY Z_PK LIMIT 1")
        }

        // Without the functions, Apple's trigger makes the insert fail.
        #expect(throws: DatabaseError.self) { try insertPage(DatabaseQueue(path: copy.path)) }

        var configuration = Configuration()
        configuration.prepareDatabase { SQLiteFunctions.register(in: $0) }
        let after = try insertPage(DatabaseQueue(path: copy.path, configuration: configuration))
        #expect(after == (before ?? 0) + 1, "the trigger counted the new page")
    }
}

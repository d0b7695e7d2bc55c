import Foundation
import Testing

/// `strata store check`: a clean store passes, and each kind of defect planted in a damaged
/// copy is found, named, and makes the command exit 1.
@Suite("strata store check")
struct StoreCheckTests {
    /// Makes the shop store, damages it with `damage`, runs `check --json` and returns the
    /// defects' kinds and messages.
    private func check(damage: (URL) throws -> Void) throws -> (status: Int32, defects: [(kind: String, message: String)]) {
        let folder = try StoreFixtures.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (store, _) = try StoreFixtures.makeShopStore(in: folder)
        try damage(store)
        let result = try StrataProgram.run(["store", "check", store.path, "--json"])
        let root = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let defects = (root?["defects"] as? [[String: String]] ?? []).map { ($0["kind"] ?? "", $0["message"] ?? "") }
        return (result.status, defects)
    }

    @Test("a clean store passes")
    func cleanStorePasses() throws {
        let result = try check { _ in }
        #expect(result.status == 0)
        #expect(result.defects.isEmpty, "\(result.defects)")
    }

    @Test("Z_PRIMARYKEY.Z_MAX below the largest Z_PK")
    func primaryKeyMaximum() throws {
        let result = try check { try StoreFixtures.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Item'", in: $0) }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["primary-key"])
        #expect(result.defects.first?.message.contains("Z_MAX of Item is 1") == true, "\(result.defects)")
    }

    @Test("a Z_ENT that names no entity of the table")
    func entityNumber() throws {
        let result = try check { try StoreFixtures.execute("UPDATE ZITEM SET Z_ENT = 77 WHERE Z_PK = 2", in: $0) }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["entity"])
        #expect(result.defects.first?.message.contains("Z_ENT 77") == true, "\(result.defects)")
    }

    @Test("a to-one foreign key pointing at a missing row")
    func danglingForeignKey() throws {
        let result = try check { try StoreFixtures.execute("DELETE FROM ZBOX", in: $0) }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["foreign-key"])
        #expect(result.defects.first?.message.contains("ZITEM.ZBOX") == true, "\(result.defects)")
    }

    @Test("a join-table row pointing at a missing row")
    func danglingJoinRow() throws {
        let result = try check { try StoreFixtures.execute("DELETE FROM ZTAG WHERE ZTITLE = 'garden'", in: $0) }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["join-table"], "\(result.defects)")
        #expect(result.defects.first?.message.contains("missing Tag rows") == true, "\(result.defects)")
    }

    @Test("an external-storage marker whose file is missing")
    func missingExternalFile() throws {
        let result = try check { store in
            let folder = store.deletingLastPathComponent().appendingPathComponent(".Shop.sqlite_SUPPORT/_EXTERNAL_DATA")
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
            }
        }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["external-missing"], "\(result.defects)")
    }

    @Test("an external data file no row names")
    func orphanExternalFile() throws {
        let orphan = UUID().uuidString
        let result = try check { store in
            let folder = store.deletingLastPathComponent().appendingPathComponent(".Shop.sqlite_SUPPORT/_EXTERNAL_DATA")
            try Data([1, 2, 3]).write(to: folder.appendingPathComponent(orphan))
        }
        #expect(result.status == 1)
        #expect(result.defects.map(\.kind) == ["external-orphan"])
        #expect(result.defects.first?.message.contains(orphan) == true)
    }

    @Test("an index that no longer matches its table fails SQLite's integrity check")
    func integrity() throws {
        let result = try check { store in
            // Two indexes with their root pages swapped: each now holds the other's keys.
            try StoreFixtures.execute(
                """
                CREATE TABLE ZJUNK (A, B); INSERT INTO ZJUNK VALUES (1, 'x'), (2, 'y');
                CREATE INDEX ZJUNK_A ON ZJUNK (A); CREATE INDEX ZJUNK_B ON ZJUNK (B)
                """, in: store)
            let a = try StoreFixtures.integer("SELECT rootpage FROM sqlite_master WHERE name = 'ZJUNK_A'", in: store)
            let b = try StoreFixtures.integer("SELECT rootpage FROM sqlite_master WHERE name = 'ZJUNK_B'", in: store)
            try StoreFixtures.execute(
                """
                PRAGMA writable_schema = ON;
                UPDATE sqlite_master SET rootpage = CASE name WHEN 'ZJUNK_A' THEN \(b) ELSE \(a) END
                WHERE name IN ('ZJUNK_A', 'ZJUNK_B');
                PRAGMA writable_schema = OFF
                """, in: store)
        }
        #expect(result.status == 1)
        #expect(result.defects.contains { $0.kind == "integrity" }, "\(result.defects)")
    }

    /// Corpus stores that really break Core Data's invariants: test fixtures of the artsy
    /// project whose Z_PRIMARYKEY.Z_MAX lies below keys in use (0 and -1), and, in two, a
    /// ZARTWORK row whose Z_ENT names another entity (Collection, Artist).
    static let damagedCorpusStores: Set<String> = [
        "artsy__energy-legacy__ArtsyFolio_Tests__Migrations__ArtsyPartner_1.3.sqlite",
        "artsy__energy-legacy__ArtsyFolio_Tests__Migrations__ArtsyPartner_1.4.sqlite",
        "artsy__energy-legacy__ArtsyFolio_Tests__Migrations__ArtsyPartner_2.0.sqlite",
    ]

    @Test(
        "every clean corpus store passes; the damaged ones fail on Z_MAX and Z_ENT only",
        .enabled(if: StoreFixtures.corpusIsAvailable, "the corpus is absent"))
    func corpusStores() throws {
        let stores = try StoreFixtures.corpusStores()
        #expect(stores.count > 10)
        for name in stores {
            let copy = try StoreFixtures.copyOfCorpusStore(name)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let model = try StoreFixtures.modelArguments(for: name, copy: copy)
            let result = try StrataProgram.run(["store", "check", copy.path, "--json"] + model)
            if Self.damagedCorpusStores.contains(name) {
                #expect(result.status == 1, "\(name)")
                let root = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
                let kinds = Set((root?["defects"] as? [[String: String]] ?? []).compactMap { $0["kind"] })
                #expect(kinds.contains("primary-key") && kinds.isSubset(of: ["primary-key", "entity"]), "\(name): \(kinds)")
            } else {
                #expect(result.status == 0, "\(name): \(result.output) \(result.error)")
            }
        }
    }
}

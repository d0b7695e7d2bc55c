import Foundation
import GRDB
import Testing

@testable import Strata

/// Lightweight migration of a store whose many-to-many join table is rebuilt: its index is
/// created once, even when the file already holds an index of that name elsewhere (a
/// messenger's stores, model versions 2.96–2.100 → 2.101, failed with "index
/// Z_24TRUSTEDCLIENTS_Z_24TRUSTEDCLIENTS_INDEX already exists").
@Suite struct JoinTableIndexMigrationTests {
    /// A client trusts other clients (a reflexive many-to-many, as a messenger's user clients).
    static let v1 = """
        <entity name="Client">
            <attribute name="label" attributeType="String"/>
            <relationship name="trustedClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="trustedByClients" inverseEntity="Client"/>
            <relationship name="trustedByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="trustedClients" inverseEntity="Client"/>
            <relationship name="ignoredClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredByClients" inverseEntity="Client"/>
            <relationship name="ignoredByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredClients" inverseEntity="Client"/>
        </entity>
        """

    /// A new entity sorts before Client: Client's entity number changes, so its join tables
    /// are rebuilt under new names.
    static let v2 =
        """
        <entity name="Account">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """ + v1

    /// Three clients: a trusts b and c, b trusts c; c ignores a.
    static func fixture() throws -> (bundle: URL, url: URL, v1: NSManagedObjectModel, v2: NSManagedObjectModel) {
        let bundle = try MigrationFixtures.bundle(["V1": v1, "V2": v2], current: "V2")
        let url = MigrationFixtures.store(in: bundle)
        let model = try MigrationFixtures.model(bundle, "V1")
        let (coordinator, context) = try MigrationFixtures.open(model, url, options: nil)
        try context.performAndWait {
            let clients = ["a", "b", "c"].map { MigrationFixtures.insert("Client", ["label": $0], into: context) }
            clients[0].setValue(NSSet(array: [clients[1], clients[2]]), forKey: "trustedClients")
            clients[1].setValue(NSSet(array: [clients[2]]), forKey: "trustedClients")
            clients[2].setValue(NSSet(array: [clients[0]]), forKey: "ignoredClients")
            try context.save()
        }
        try MigrationFixtures.close(coordinator)
        return (bundle, url, model, try MigrationFixtures.model(bundle, "V2"))
    }

    static func labels(_ object: NSManagedObject, _ key: String) -> [String] {
        ((object.value(forKey: key) as? NSSet)?.allObjects as? [NSManagedObject] ?? [])
            .compactMap { $0.value(forKey: "label") as? String }.sorted()
    }

    static func expectLinks(_ model: NSManagedObjectModel, _ url: URL) throws {
        let (coordinator, context) = try MigrationFixtures.open(model, url)
        defer { try? MigrationFixtures.close(coordinator) }
        try context.performAndWait {
            let clients = try MigrationFixtures.fetch("Client", in: context, sortedBy: "label")
            #expect(clients.map { $0.value(forKey: "label") as? String } == ["a", "b", "c"])
            #expect(clients.map { labels($0, "trustedClients") } == [["b", "c"], ["c"], []])
            #expect(clients.map { labels($0, "trustedByClients") } == [[], ["a"], ["a", "b"]])
            #expect(clients.map { labels($0, "ignoredClients") } == [[], [], ["a"]])
            #expect(clients.map { labels($0, "ignoredByClients") } == [["c"], [], []])
        }
    }

    /// The join tables are rebuilt; every link survives and each join index exists once.
    @Test func rebuiltReflexiveJoinTablesKeepTheirLinks() throws {
        let fixture = try Self.fixture()
        try Self.expectLinks(fixture.v2, fixture.url)
        let names = try DatabaseQueue(path: fixture.url.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")
        }
        let wanted = SQLiteSchema(model: fixture.v2).indexes.map(\.name)
        #expect(Set(wanted).isSubset(of: Set(names)))
        #expect(names.filter { $0.hasSuffix("TRUSTEDCLIENTS_INDEX") }.count == 1)
    }

    /// The file already has an index named as the rebuilt join table's (an earlier migration
    /// renamed the table it was made for): the migration drops it and makes the join table's.
    @Test func joinIndexNameAlreadyInTheFileIsMadeAnew() throws {
        let fixture = try Self.fixture()
        let joinIndex = try #require(
            SQLiteSchema(model: fixture.v2).indexes.first {
                $0.name.hasSuffix("TRUSTEDCLIENTS_INDEX") && $0.table.hasSuffix("TRUSTEDCLIENTS")
            })
        try DatabaseQueue(path: fixture.url.path).write { db in
            try db.execute(sql: "CREATE TABLE Z_OLDTRUSTEDCLIENTS (Z_1TRUSTEDBYCLIENTS INTEGER, Z_1TRUSTEDCLIENTS INTEGER)")
            try db.execute(sql: "CREATE INDEX \(joinIndex.name) ON Z_OLDTRUSTEDCLIENTS (Z_1TRUSTEDCLIENTS)")
        }
        try Self.expectLinks(fixture.v2, fixture.url)
        let table = try DatabaseQueue(path: fixture.url.path).read { db in
            try String.fetchOne(
                db, sql: "SELECT tbl_name FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [joinIndex.name])
        }
        #expect(table == joinIndex.table)
    }

    /// The corpus's messenger stores of versions 2.96–2.100 (none without the corpus).
    static var messengerPairs: [[String: String]] {
        guard TestCorpus.isAvailable, let pairs = try? TestCorpus.pairs() else { return [] }
        return pairs.filter { pair in
            let model = pair["best_model_version"] ?? ""
            return ["2.96", "2.97", "2.98", "2.99", "2.100"].contains { model.contains($0) }
        }
    }

    /// The messenger's own stores, when the corpus holds them (it does not yet: skipped,
    /// visibly): each store of versions 2.96–2.100 migrates to 2.101.
    @Test(
        .enabled(
            if: !JoinTableIndexMigrationTests.messengerPairs.isEmpty,
            "the corpus has no messenger stores of model versions 2.96–2.100"))
    func messengerStoresMigrateTo2_101() throws {
        for pair in Self.messengerPairs {
            guard let store = pair["store"], let path = pair["best_model_version"] else { continue }
            let bundleURL = TestCorpus.models.appendingPathComponent(path).deletingLastPathComponent()
            let target = bundleURL.appendingPathComponent(
                (bundleURL.lastPathComponent as NSString).deletingPathExtension + "2.101.0.xcdatamodel")
            guard FileManager.default.fileExists(atPath: target.path) else {
                print("NOTICE: no 2.101 model beside \(path); skipped")
                continue
            }
            let destination = try NSManagedObjectModel.load(contentsOf: target)
            let copy = try TestCorpus.copyOfStore(named: store)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let (coordinator, _) = try MigrationFixtures.open(destination, copy)
            try MigrationFixtures.close(coordinator)
        }
    }
}

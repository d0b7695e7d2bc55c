import Foundation
import GRDB
import Testing

@testable import Strata

/// A store's schema as SQLite reports it, for comparison by definition rather than by name.
private struct StoreSchema {
    /// History tables (§3.6) and Z_MODELCACHE (absent in old stores) are left out.
    static let excludedTables: Set<String> = ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING", "Z_MODELCACHE"]

    var tables: [String: [String]] = [:]
    /// "table|unique|col,col" per index, without SQLite's automatic indexes.
    var indexes: Set<String> = []
    var indexNames: [String: [String]] = [:]
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
                let key = "\(table)|\((index["unique"] as Int) == 1 ? "UNIQUE" : "")|\(columns.joined(separator: ","))"
                indexes.insert(key)
                indexNames[key, default: []].append(name)
            }
        }
        entities = try Row.fetchAll(
            db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000 ORDER BY Z_ENT"
        ).map { "\($0[0] as Int) \($0[1] as String) \($0[2] as Int)" }
    }
}

/// The schema of a new store that Strata's SQLite store creates for the model (through the
/// coordinator, as an app creates it).
private func strataSchema(_ model: NSManagedObjectModel) throws -> StoreSchema {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-schema-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("New.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
    try coordinator.remove(store)
    return try DatabaseQueue(path: url.path).read { try StoreSchema($0) }
}

/// The model that wrote each corpus store: PAIRS.tsv's best match, except Bookmarks_V2.
private func modelPath(store: String, pair: [String: String]) -> String? {
    if store.hasSuffix("Bookmarks_V2.sqlite") {
        return pair["second_best"].map { String($0.prefix { $0 != "(" }) }
    }
    return pair["best_model_version"]
}

private let knownMispairedStores: Set<String> = [
    "alemar11__CoreDataPlus__Tests__Resources__SampleModel__Fixtures__SampleModel_V2.sqlite"
]
private let knownColumnOrderIssues: Set<String> = [
    "artsy__energy-legacy__Resources__CoreData__oss_stubbed_data.sqlite|Z_3SHOWS",
    "artsy__energy-legacy__Resources__CoreData__oss_stubbed_data.sqlite|Z_3LOCATIONS",
]

struct SQLiteSchemaCorpusTests {
    @Test(.enabled(if: TestCorpus.isAvailable))
    func corpusStoresMatchAppleSchema() throws {
        var exact = 0
        var compared = 0
        var allowed: [String] = []
        for pair in try TestCorpus.pairs() {
            guard let store = pair["store"], let path = modelPath(store: store, pair: pair), path.hasSuffix(".xcdatamodel")
            else { continue }
            let model = try NSManagedObjectModel.load(contentsOf: TestCorpus.models.appendingPathComponent(path))
            let copy = try TestCorpus.copyOfStore(named: store)
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let apple = try DatabaseQueue(path: copy.path).read { try StoreSchema($0) }
            let ours = try strataSchema(model)
            if knownMispairedStores.contains(store) {
                // PAIRS.tsv's heuristic (entity_set_equal = False) names a model that did not write
                // this store: SampleModel_V2 has ExpensiveSportCar where SampleModel2 has LuxuryCar.
                #expect(apple.entities != ours.entities, "\(store) is now paired correctly")
                allowed.append("\(store): skipped, paired model has other entities")
                continue
            }
            #expect(apple.entities == ours.entities, "\(store): Z_PRIMARYKEY")
            #expect(Set(apple.tables.keys) == Set(ours.tables.keys), "\(store): tables")
            for (table, columns) in apple.tables where ours.tables[table] != nil {
                let theirs = Set(columns)
                let mine = Set(ours.tables[table] ?? [])
                let message: Comment =
                    "\(store): \(table) Apple-only \(theirs.subtracting(mine).sorted()) Strata-only \(mine.subtracting(theirs).sorted())"
                if knownColumnOrderIssues.contains("\(store)|\(table)") {
                    // Apple suffixed Artwork's join columns as Z_3SHOWS.Z_3ARTWORKS1,
                    // Z_3LOCATIONS.Z_3ARTWORKS2; the order Apple assigns suffixes in is unknown.
                    withKnownIssue("join-column suffix order") { #expect(theirs == mine, message) }
                } else {
                    #expect(theirs == mine, message)
                }
            }
            // Allowance (§3.3): old stores have no index at all on their join tables.
            var expected = ours.indexes
            let joinTables = Set(ours.tables.keys.filter { $0.hasPrefix("Z_") && !["Z_PRIMARYKEY", "Z_METADATA"].contains($0) })
            let unindexedJoins = joinTables.filter { table in !apple.indexes.contains { $0.hasPrefix(table + "|") } }
            if !unindexedJoins.isEmpty {
                expected = expected.filter { key in !unindexedJoins.contains { key.hasPrefix($0 + "|") } }
                allowed.append("\(store): no join-table indexes on \(unindexedJoins.sorted())")
            }
            #expect(
                apple.indexes == expected,
                "\(store): indexes Apple-only \(apple.indexes.subtracting(expected).sorted().map { "\($0) \(apple.indexNames[$0] ?? [])" }) Strata-only \(expected.subtracting(apple.indexes).sorted())"
            )
            // Allowance (§3.3): migrated stores carry duplicate definitions under old names.
            // Names are informative only (§3.3: index names keep old entity numbers).
            let nameDiffs = apple.indexNames.compactMap { key, names -> String? in
                let mine = (ours.indexNames[key] ?? []).sorted()
                return names.sorted() == mine || !expected.contains(key) ? nil : "\(names.sorted()) vs Strata \(mine)"
            }
            if !nameDiffs.isEmpty { allowed.append("\(store): index names differ \(nameDiffs.sorted())") }
            compared += 1
            if unindexedJoins.isEmpty && nameDiffs.isEmpty { exact += 1 }
        }
        print(
            "SQLiteSchema corpus: \(compared) stores compared, \(exact) exact (index names too); notes:\n"
                + allowed.joined(separator: "\n"))
    }
}

struct SQLiteSchemaUnitTests {
    private func columns(_ schema: SQLiteSchema, _ table: String) -> [String] {
        schema.tables.first { $0.name == table }?.columns.map { "\($0.name) \($0.type)" } ?? []
    }

    @Test func numbersRootsAlphabeticallyThenSubentitiesDepthFirst() {
        let model = NSManagedObjectModel {
            Entity("Zebra") { Attribute("name", .stringAttributeType) }
            Entity("Animal", abstract: true) { Attribute("age", .integer16AttributeType) }
            Entity("Dog", parent: "Animal") { Attribute("breed", .stringAttributeType) }
            Entity("Puppy", parent: "Dog") {}
            Entity("Cat", parent: "Animal") {}
            Entity("bird") {}
        }
        let schema = SQLiteSchema(model: model)
        #expect(
            schema.primaryKeyRows.map { "\($0.entity) \($0.name) \($0.superEntity)" } == [
                "1 Animal 0", "2 Cat 1", "3 Dog 1", "4 Puppy 3", "5 bird 0", "6 Zebra 0",
            ])
        #expect(
            columns(schema, "ZANIMAL") == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZAGE INTEGER", "ZBREED VARCHAR",
            ])
        #expect(schema.indexes.map(\.name).contains("ZANIMAL_Z_ENT_INDEX"))
        #expect(schema.tableName(for: model.entitiesByName["Puppy"]!) == "ZANIMAL")
    }

    @Test func collidingColumnsGetSuffixes() {
        let model = NSManagedObjectModel {
            Entity("Message") { Attribute("date", .dateAttributeType) }
            Entity("SystemMessage", parent: "Message") { Attribute("text", .stringAttributeType) }
            Entity("TextMessage", parent: "Message") { Attribute("text", .binaryDataAttributeType) }
        }
        let schema = SQLiteSchema(model: model)
        #expect(schema.columnName(entity: model.entitiesByName["SystemMessage"]!, property: "text") == "ZTEXT")
        #expect(schema.columnName(entity: model.entitiesByName["TextMessage"]!, property: "text") == "ZTEXT1")
        #expect(schema.columnName(entity: model.entitiesByName["TextMessage"]!, property: "date") == "ZDATE")
        #expect(columns(schema, "ZMESSAGE").suffix(3) == ["ZDATE TIMESTAMP", "ZTEXT VARCHAR", "ZTEXT1 BLOB"])
    }

    @Test func oneToOneHasKeysOnBothSidesAndSubentityDestinationsGetEntityColumns() {
        let model = NSManagedObjectModel {
            Entity("Book") { Relationship("pages", to: "Page", inverse: "book", toMany: true, ordered: true) }
            Entity("GraphicNovel", parent: "Book") {}
            Entity("Page") { Relationship("book", to: "Book", inverse: "pages") }
            Entity("Person") { Relationship("passport", to: "Passport", inverse: "owner") }
            Entity("Passport") { Relationship("owner", to: "Person", inverse: "passport") }
        }
        let schema = SQLiteSchema(model: model)
        #expect(
            Set(columns(schema, "ZPAGE")) == [
                "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZBOOK INTEGER", "Z1_BOOK INTEGER",
                "Z_FOK_BOOK INTEGER",
            ])
        #expect(columns(schema, "ZPERSON").contains("ZPASSPORT INTEGER"))
        #expect(columns(schema, "ZPASSPORT").contains("ZOWNER INTEGER"))
        let names = Set(schema.indexes.map(\.name))
        #expect(names.isSuperset(of: ["ZPAGE_ZBOOK_INDEX", "ZPERSON_ZPASSPORT_INDEX", "ZPASSPORT_ZOWNER_INDEX"]))
        #expect(!names.contains("ZPAGE_Z1_BOOK_INDEX"))
    }

    @Test func manyToManyJoinTablesAreNamedByTheLowerEntityNumber() throws {
        let model = NSManagedObjectModel {
            Entity("Action") { Relationship("role", to: "Role", inverse: "actions", toMany: true) }
            Entity("Album") { Relationship("artists", to: "Artist", inverse: "albums", toMany: true) }
            Entity("Artist") {
                Relationship("albums", to: "Album", inverse: "artists", toMany: true)
                Relationship("shows", to: "Show", inverse: "artists", toMany: true, ordered: true)
            }
            Entity("Role") { Relationship("actions", to: "Action", inverse: "role", toMany: true) }
            Entity("Show") { Relationship("artists", to: "Artist", inverse: "shows", toMany: true) }
        }
        let schema = SQLiteSchema(model: model)
        let role = try #require(schema.joinTable(entity: model.entitiesByName["Role"]!, relationship: "actions"))
        #expect(role.name == "Z_1ROLE")
        #expect(role.sourceColumn == "Z_1ACTIONS")
        #expect(role.destinationColumn == "Z_4ROLE")
        #expect(schema.createStatements.contains("CREATE INDEX Z_1ROLE_Z_4ROLE_INDEX ON Z_1ROLE (Z_4ROLE, Z_1ACTIONS)"))
        #expect(
            schema.createStatements.contains(
                "CREATE TABLE Z_1ROLE ( Z_1ACTIONS INTEGER, Z_4ROLE INTEGER, PRIMARY KEY (Z_1ACTIONS, Z_4ROLE) )"))
        // Join-column names are unique store-wide: Show.artists gets Z_3ARTISTS1.
        let shows = try #require(schema.joinTable(entity: model.entitiesByName["Show"]!, relationship: "artists"))
        #expect(shows.name == "Z_3SHOWS")
        #expect(shows.sourceColumn == "Z_3ARTISTS1")
        #expect(shows.destinationColumn == "Z_5SHOWS")
        #expect(shows.sourceOrderColumn == "Z_FOK_5SHOWS")
        #expect(shows.destinationOrderColumn == nil)
        let albums = try #require(schema.joinTable(entity: model.entitiesByName["Album"]!, relationship: "artists"))
        #expect(albums.name == "Z_2ARTISTS")
        #expect(albums.destinationColumn == "Z_3ARTISTS")
    }

    @Test func selfReferentialManyToManyIsNamedByTheLaterSortingRelationship() throws {
        let model = NSManagedObjectModel {
            Entity("BookmarkEntity") {
                Relationship("favoriteFolders", to: "BookmarkEntity", inverse: "favorites", toMany: true)
                Relationship("favorites", to: "BookmarkEntity", inverse: "favoriteFolders", toMany: true, ordered: true)
            }
        }
        let schema = SQLiteSchema(model: model)
        let join = try #require(schema.joinTable(entity: model.entitiesByName["BookmarkEntity"]!, relationship: "favorites"))
        #expect(join.name == "Z_1FAVORITES")
        #expect(join.sourceColumn == "Z_1FAVORITEFOLDERS")
        #expect(join.destinationColumn == "Z_1FAVORITES")
        #expect(join.sourceOrderColumn == "Z_FOK_1FAVORITES")
        #expect(join.destinationOrderColumn == nil)
        let queue = try DatabaseQueue()
        try queue.write { db in for statement in schema.createStatements { try db.execute(sql: statement) } }
    }

    @Test func fetchAndUniqueIndexes() {
        let model = NSManagedObjectModel {
            Entity("Writer") { Attribute("name", .stringAttributeType) }
            Entity("Author", parent: "Writer") {
                Attribute("alias", .stringAttributeType)
                Unique("alias")
            }
        }
        let schema = SQLiteSchema(model: model)
        #expect(
            schema.createStatements.contains(
                "CREATE UNIQUE INDEX Z_Author_UNIQUE_alias ON ZWRITER (ZALIAS COLLATE BINARY ASC)"))
    }
}

import Foundation
import GRDB
import SwiftData
import Testing

/// The model of a SwiftData store whose SQLite schema was published (a `sqlite3` dump of an
/// app's `default.store`: `CREATE TABLE ZTODO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT
/// INTEGER, ZTIME TIMESTAMP, ZTEXT VARCHAR )`, beside ACHANGE, ATRANSACTION, ATRANSACTIONSTRING,
/// Z_METADATA, Z_MODELCACHE and Z_PRIMARYKEY).
@Model
final class Todo {
    var time: Date
    var text: String

    init(time: Date, text: String) {
        self.time = time
        self.text = text
    }
}

@Suite("SwiftData's store layout")
struct StoreLayoutTests {
    @Test("the tables and columns of a published SwiftData store: the entity's table, history, metadata")
    func publishedLayout() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Todo.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Todo(time: Date(timeIntervalSinceReferenceDate: 1), text: "one"))
            try context.save()
        }
        let database = try DatabaseQueue(path: url.path)
        try database.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            #expect(
                tables == [
                    "ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING", "ZTODO", "Z_METADATA", "Z_MODELCACHE", "Z_PRIMARYKEY",
                ])
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(ZTODO)").map {
                "\($0["name"] as String) \($0["type"] as String)"
            }
            #expect(columns == ["Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZTIME TIMESTAMP", "ZTEXT VARCHAR"])
            #expect(try String.fetchOne(db, sql: "SELECT ZTEXT FROM ZTODO") == "one")
            #expect(try Double.fetchOne(db, sql: "SELECT ZTIME FROM ZTODO") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION") == 1, "history is recorded")
        }
    }

    @Test("a model subclass's rows are in its root class's table, told apart by Z_ENT")
    func subclassRowsShareTheRootTable() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(
                for: Article.self, Tutorial.self, VideoTutorial.self, News.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Article(title: "a"))
            context.insert(Tutorial(title: "t", difficulty: 2))
            context.insert(VideoTutorial(title: "v", difficulty: 3, minutes: 9))
            try context.save()
        }
        let database = try DatabaseQueue(path: url.path)
        try database.read { db in
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' ORDER BY name")
            #expect(!tables.contains("ZTUTORIAL") && !tables.contains("ZVIDEOTUTORIAL") && !tables.contains("ZNEWS"))
            let columns = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(ZARTICLE)").map { $0["name"] as String })
            #expect(columns.isSuperset(of: ["Z_ENT", "ZTITLE", "ZDIFFICULTY", "ZMINUTES", "ZTOPIC"]))
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT ZTITLE, e.Z_NAME AS entity, ZDIFFICULTY, ZMINUTES FROM ZARTICLE
                    JOIN Z_PRIMARYKEY e ON e.Z_ENT = ZARTICLE.Z_ENT ORDER BY ZTITLE
                    """)
            #expect(rows.map { $0["entity"] as String } == ["Article", "Tutorial", "VideoTutorial"])
            #expect(rows.map { $0["ZDIFFICULTY"] as Int? } == [nil, 2, 3])
            #expect(rows.map { $0["ZMINUTES"] as Int? } == [nil, nil, 9])
        }
    }
}

struct Frame: Codable, Equatable {
    var width: Int
    var height: Int
}

@Model
final class Sketch {
    var title: String
    var frame: Frame = Frame(width: 1, height: 1)
    var painter: Painter

    init(title: String, painter: Painter) {
        self.title = title
        self.painter = painter
    }
}

@Model
final class Painter {
    var name: String
    init(name: String) { self.name = name }
}

@Suite("Rows written by other code")
struct ForeignRowTests {
    @Test("a value that does not decode reads the property's initial value; a missing to-one a detached model")
    func damagedRowsDoNotStopTheProgram() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Sketch.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Sketch(title: "Boats", painter: Painter(name: "Ada")))
            try context.save()
        }
        let database = try DatabaseQueue(path: url.path)
        try database.write { db in
            // A composite's leaf holding text where a number belongs: the frame does not decode.
            try db.execute(sql: "UPDATE ZSKETCH SET ZFRAME_WIDTH = 'wide', ZPAINTER = NULL")
        }
        let container = try ModelContainer(for: Sketch.self, configurations: ModelConfiguration(url: url))
        let sketch = try #require(try ModelContext(container).fetch(FetchDescriptor<Sketch>()).first)
        #expect(sketch.title == "Boats")
        #expect(sketch.frame == Frame(width: 1, height: 1))
        #expect(sketch.painter.modelContext == nil)
        #expect(sketch.painter.name == "")
    }
}

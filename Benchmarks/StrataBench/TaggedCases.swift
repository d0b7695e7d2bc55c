import Foundation
import GRDB
import Strata

/// B11 and B11s: `count` to-dos, each linked to 3 of 20 tags and to 1 of 1,000 places, the
/// tags and places new too, in one transaction; the same rows and join rows in every stack.
/// After the clock, each stack's store is read back (`TaggedLayout.written(in:)`) into its
/// checksum, so that a stack that wrote other links disagrees.
enum TaggedCases {
    static func raw(count: Int) -> (Fixtures) throws -> Sample {
        { fixtures in try raw(fixtures, count: count) }
    }
    static func grdb(count: Int) -> (Fixtures) throws -> Sample {
        { fixtures in try grdb(fixtures, count: count) }
    }
    static func strata(count: Int) -> (Fixtures) throws -> Sample {
        { fixtures in try strata(fixtures, count: count) }
    }

    private static func raw(_ fixtures: Fixtures, count: Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.tagged)
        defer { Fixtures.remove(path) }
        let layout = fixtures.taggedLayout
        var sample = try {
            let database = try RawDatabase(path: path)
            return try measure {
                try database.execute("BEGIN IMMEDIATE")
                let tag = try database.prepare("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
                for n in 1...TaggedModel.tags {
                    tag.bind(Int64(n), at: 1)
                    tag.bind(layout.tagEntity, at: 2)
                    tag.bind("Tag \(n)", at: 3)
                    try tag.step()
                    tag.reset()
                }
                let place = try database.prepare("INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
                for n in 1...TaggedModel.places {
                    place.bind(Int64(n), at: 1)
                    place.bind(layout.placeEntity, at: 2)
                    place.bind("Place \(n)", at: 3)
                    try place.step()
                    place.reset()
                }
                let todo = try database.prepare(
                    "INSERT INTO ZTODO (Z_PK, Z_ENT, Z_OPT, ZRANK, ZTITLE, ZPLACE) VALUES (?, ?, 1, ?, ?, ?)")
                let link = try database.prepare(
                    "INSERT INTO \(layout.joinTable) (\(layout.tagColumn), \(layout.todoColumn)) VALUES (?, ?)")
                var checksum = 0
                for n in 1...count {
                    todo.bind(Int64(n), at: 1)
                    todo.bind(layout.todoEntity, at: 2)
                    todo.bind(Int64(n), at: 3)
                    todo.bind(TaggedModel.title(of: n), at: 4)
                    todo.bind(Int64(TaggedModel.placeNumber(of: n)), at: 5)
                    try todo.step()
                    todo.reset()
                    for tag in TaggedModel.tagNumbers(of: n) {
                        link.bind(Int64(tag), at: 1)
                        link.bind(Int64(n), at: 2)
                        try link.step()
                        link.reset()
                    }
                    checksum &+= TaggedModel.checksum(of: n)
                }
                for (entity, max) in [
                    (layout.tagEntity, TaggedModel.tags), (layout.placeEntity, TaggedModel.places), (layout.todoEntity, count),
                ] {
                    try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(max) WHERE Z_ENT = \(entity)")
                }
                try database.execute("COMMIT")
                return checksum
            }
        }()
        sample.checksum &+= try layout.written(in: path)
        return sample
    }

    private static func grdb(_ fixtures: Fixtures, count: Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.tagged)
        defer { Fixtures.remove(path) }
        let layout = fixtures.taggedLayout
        var sample = try {
            let queue = try GRDBCases.open(path)
            return try measure {
                try queue.write { db in
                    let tag = try db.cachedStatement(sql: "INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
                    for n in 1...TaggedModel.tags {
                        try tag.execute(arguments: [n, layout.tagEntity, "Tag \(n)"])
                    }
                    let place = try db.cachedStatement(
                        sql: "INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
                    for n in 1...TaggedModel.places {
                        try place.execute(arguments: [n, layout.placeEntity, "Place \(n)"])
                    }
                    let todo = try db.cachedStatement(
                        sql: "INSERT INTO ZTODO (Z_PK, Z_ENT, Z_OPT, ZRANK, ZTITLE, ZPLACE) VALUES (?, ?, 1, ?, ?, ?)")
                    let link = try db.cachedStatement(
                        sql: "INSERT INTO \(layout.joinTable) (\(layout.tagColumn), \(layout.todoColumn)) VALUES (?, ?)")
                    var checksum = 0
                    for n in 1...count {
                        try todo.execute(arguments: [
                            n, layout.todoEntity, n, TaggedModel.title(of: n), TaggedModel.placeNumber(of: n),
                        ])
                        for tag in TaggedModel.tagNumbers(of: n) { try link.execute(arguments: [tag, n]) }
                        checksum &+= TaggedModel.checksum(of: n)
                    }
                    let maxima = [
                        (layout.tagEntity, TaggedModel.tags), (layout.placeEntity, TaggedModel.places),
                        (layout.todoEntity, count),
                    ]
                    for (entity, max) in maxima {
                        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, entity])
                    }
                    return checksum
                }
            }
        }()
        sample.checksum &+= try layout.written(in: path)
        return sample
    }

    /// As an app imports: new objects, the to-do's tags set as a whole (`todo.tags = …`, as
    /// the example app's `todo import` does) and its place through its to-one accessor; the
    /// inverses (`Tag.todos`, `Place.todos`) are kept up by Strata.
    private static func strata(_ fixtures: Fixtures, count: Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: fixtures.tagged)
        defer { Fixtures.remove(path) }
        var sample = try {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TaggedModel.shared)
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path))
            defer { try? coordinator.remove(store) }
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            defer { context.performAndWait { context.reset() } }
            return try measure {
                try context.performAndWait {
                    let tags = (1...TaggedModel.tags).map { n in
                        let tag = Tag(context: context)
                        tag.name = "Tag \(n)"
                        return tag
                    }
                    let places = (1...TaggedModel.places).map { n in
                        let place = Place(context: context)
                        place.name = "Place \(n)"
                        return place
                    }
                    var checksum = 0
                    for n in 1...count {
                        let todo = Todo(context: context)
                        todo.rank = Int64(n)
                        todo.title = TaggedModel.title(of: n)
                        todo.tags = NSSet(array: TaggedModel.tagNumbers(of: n).map { tags[$0 - 1] })
                        todo.place = places[TaggedModel.placeNumber(of: n) - 1]
                        checksum &+= TaggedModel.checksum(of: n)
                    }
                    try context.save()
                    return checksum
                }
            }
        }()
        sample.checksum &+= try fixtures.taggedLayout.written(in: path)
        return sample
    }
}

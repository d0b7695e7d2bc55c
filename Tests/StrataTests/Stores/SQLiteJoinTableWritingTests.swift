import Foundation
import GRDB
import Testing

@testable import Strata

/// How a save writes many-to-many links: each link it adds or removes reaches the join table
/// once (not once from each side), whichever sides are in the save, and the join tables then
/// hold exactly the links of the object graph, in order for ordered sides.
///
/// Each pair of the model is one case of `JoinSide`: unordered on both sides, ordered on the
/// side the table is named after (A), ordered on the other side (B), ordered on both. A
/// trigger the tests add to the store file logs every `INSERT` and `DELETE` attempted on a
/// join table (a `BEFORE` trigger fires even when the insert then finds the row there).
@Suite struct SQLiteJoinTableWritingTests {
    /// Entity numbers follow the names: Album 1, Card 2, Deck 3, Mood 4, Setlist 5, Song 6.
    /// Side A of each pair is the entity with the lower number.
    static let model = NSManagedObjectModel {
        Entity("Album") {
            Attribute("name", .stringAttributeType)
            Relationship("songs", to: "Song", inverse: "albums", toMany: true, ordered: true)
        }
        Entity("Card") {
            Attribute("name", .stringAttributeType)
            Relationship("decks", to: "Deck", inverse: "cards", toMany: true, ordered: true)
        }
        Entity("Deck") {
            Attribute("name", .stringAttributeType)
            Relationship("cards", to: "Card", inverse: "decks", toMany: true, ordered: true)
        }
        Entity("Mood") {
            Attribute("name", .stringAttributeType)
            Relationship("songs", to: "Song", inverse: "moods", toMany: true)
        }
        Entity("Setlist") {
            Attribute("name", .stringAttributeType)
            Relationship("songs", to: "Song", inverse: "setlists", toMany: true)
        }
        Entity("Song") {
            Attribute("name", .stringAttributeType)
            Relationship("albums", to: "Album", inverse: "songs", toMany: true)
            Relationship("moods", to: "Mood", inverse: "songs", toMany: true)
            Relationship("setlists", to: "Setlist", inverse: "songs", toMany: true, ordered: true)
        }
    }

    /// The four pairs, by side A's entity and relationship and side B's.
    struct Pair: CustomStringConvertible {
        var a: (entity: String, key: String)
        var b: (entity: String, key: String)
        var aOrdered: Bool
        var bOrdered: Bool
        /// Insert attempts per new link: each ordered side writes its own order key.
        var writesPerLink: Int { (aOrdered && bOrdered) ? 2 : 1 }
        var description: String { "\(a.entity).\(a.key) ⇄ \(b.entity).\(b.key)" }
    }

    static let pairs = [
        Pair(a: ("Album", "songs"), b: ("Song", "albums"), aOrdered: true, bOrdered: false),
        Pair(a: ("Card", "decks"), b: ("Deck", "cards"), aOrdered: true, bOrdered: true),
        Pair(a: ("Mood", "songs"), b: ("Song", "moods"), aOrdered: false, bOrdered: false),
        Pair(a: ("Setlist", "songs"), b: ("Song", "setlists"), aOrdered: false, bOrdered: true),
    ]

    private let scratch = ObjectGraphTests.ScratchDirectory()

    /// A store file of the model, with the log table and a trigger per join table.
    private func makeStore() throws -> URL {
        let url = scratch.file("links.sqlite")
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        try stack.close()
        let schema = SQLiteSchema(model: Self.model)
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(sql: "CREATE TABLE LINKLOG (OP TEXT, TBL TEXT)")
            for pair in Self.pairs {
                let table = try #require(schema.joinTable(entity: entity(pair.a.entity), relationship: pair.a.key)).name
                for op in ["INSERT", "DELETE"] {
                    try db.execute(
                        sql: """
                            CREATE TRIGGER LOG_\(op)_\(table) BEFORE \(op) ON \(table) \
                            BEGIN INSERT INTO LINKLOG VALUES ('\(op)', '\(table)'); END
                            """)
                }
            }
        }
        return url
    }

    private func entity(_ name: String) throws -> NSEntityDescription {
        try #require(Self.model.entitiesByName[name])
    }

    private func joinTable(_ pair: Pair) throws -> SQLiteSchema.JoinTable {
        try #require(SQLiteSchema(model: Self.model).joinTable(entity: entity(pair.a.entity), relationship: pair.a.key))
    }

    /// The (A key, B key) rows of a pair's join table.
    private func rows(_ pair: Pair, in url: URL) throws -> Set<[Int64]> {
        let join = try joinTable(pair)
        let rows = try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT \(join.sourceColumn), \(join.destinationColumn) FROM \(join.name)")
        }
        return Set(rows.map { [$0[0] as Int64, $0[1] as Int64] })
    }

    /// The (A key, B key) links of a pair as side A's objects hold them, and as side B's do.
    private func links(_ pair: Pair, in context: NSManagedObjectContext) throws -> (fromA: Set<[Int64]>, fromB: Set<[Int64]>) {
        func objects(_ entity: String) throws -> [NSManagedObject] {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
        }
        var fromA: Set<[Int64]> = []
        for object in try objects(pair.a.entity) {
            for other in Self.members(of: object, pair.a.key) {
                fromA.insert([object.objectID.primaryKey, other.objectID.primaryKey])
            }
        }
        var fromB: Set<[Int64]> = []
        for object in try objects(pair.b.entity) {
            for other in Self.members(of: object, pair.b.key) {
                fromB.insert([other.objectID.primaryKey, object.objectID.primaryKey])
            }
        }
        return (fromA, fromB)
    }

    /// A to-many relationship's objects, in order when it is ordered.
    static func members(of object: NSManagedObject, _ key: String) -> [NSManagedObject] {
        switch object.value(forKey: key) {
        case let set as NSOrderedSet: set.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        default: []
        }
    }

    /// The join-table writes logged since the last call, by operation and table; the log is
    /// emptied.
    private func takeLog(in url: URL) throws -> [String: Int] {
        try DatabaseQueue(path: url.path).write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT OP, TBL, count(*) FROM LINKLOG GROUP BY OP, TBL")
            try db.execute(sql: "DELETE FROM LINKLOG")
            return Dictionary(uniqueKeysWithValues: rows.map { ("\($0[0] as String) \($0[1] as String)", $0[2] as Int) })
        }
    }

    private func inserts(_ pair: Pair, _ log: [String: Int]) throws -> Int { log["INSERT \(try joinTable(pair).name)"] ?? 0 }
    private func deletes(_ pair: Pair, _ log: [String: Int]) throws -> Int { log["DELETE \(try joinTable(pair).name)"] ?? 0 }

    /// New objects of every entity, `count` each, named by entity and number.
    private func insertObjects(_ count: Int, in context: NSManagedObjectContext) -> [String: [NSManagedObject]] {
        var made: [String: [NSManagedObject]] = [:]
        for name in ["Album", "Card", "Deck", "Mood", "Setlist", "Song"] {
            made[name] = (0..<count).map { n in
                let object = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
                object.setValue("\(name) \(n)", forKey: "name")
                return object
            }
        }
        return made
    }

    /// Links `object` to `other` through `key`, in the ways apps do.
    private func link(_ object: NSManagedObject, _ key: String, to other: NSManagedObject, way: Int) {
        let ordered = object.entity.relationshipsByName[key]?.isOrdered == true
        switch (way % 3, ordered) {
        case (0, true): object.mutableOrderedSetValue(forKey: key).add(other)
        case (0, false): object.mutableSetValue(forKey: key).add(other)
        case (1, true):
            let current = Self.members(of: object, key)
            object.setValue(NSOrderedSet(array: current + [other]), forKey: key)
        case (1, false):
            let current = Self.members(of: object, key)
            object.setValue(NSSet(array: current + [other]), forKey: key)
        case (_, true): object.mutableOrderedSetValue(forKey: key).insert(other, at: 0)
        default: object.mutableSetValue(forKey: key).addObjects(from: [other])
        }
    }

    private func unlink(_ object: NSManagedObject, _ key: String, from other: NSManagedObject) {
        if object.entity.relationshipsByName[key]?.isOrdered == true {
            object.mutableOrderedSetValue(forKey: key).remove(other)
        } else {
            object.mutableSetValue(forKey: key).remove(other)
        }
    }

    @Test func newLinksAreWrittenOnceWhicheverSideMadeThem() throws {
        let url = try makeStore()
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let objects = insertObjects(6, in: context)
            var expected = Array(repeating: 0, count: Self.pairs.count)
            for (p, pair) in Self.pairs.enumerated() {
                let sideA = objects[pair.a.entity] ?? []
                let sideB = objects[pair.b.entity] ?? []
                for (i, a) in sideA.enumerated() {
                    for (j, b) in sideB.enumerated() where (i + j) % 3 != 0 {
                        // Half the links made from side A, half from side B.
                        if (i + 2 * j) % 2 == 0 {
                            link(a, pair.a.key, to: b, way: i + j)
                        } else {
                            link(b, pair.b.key, to: a, way: i)
                        }
                        expected[p] += 1
                    }
                }
            }
            try context.save()
            let log = try takeLog(in: url)
            for (p, pair) in Self.pairs.enumerated() {
                let (fromA, fromB) = try links(pair, in: context)
                #expect(fromA == fromB, "\(pair)")
                #expect(fromA.count == expected[p], "\(pair)")
                #expect(try rows(pair, in: url) == fromA, "\(pair)")
                #expect(try inserts(pair, log) == expected[p] * pair.writesPerLink, "\(pair)")
                #expect(try deletes(pair, log) == 0, "\(pair)")
            }
        }
        try stack.close()
    }

    @Test func addedAndRemovedLinksOfSavedObjectsAreWrittenOnce() throws {
        let url = try makeStore()
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let objects = insertObjects(5, in: context)
            for pair in Self.pairs {
                for (i, a) in (objects[pair.a.entity] ?? []).enumerated() {
                    for (j, b) in (objects[pair.b.entity] ?? []).enumerated() where (i + j) % 2 == 0 {
                        link(a, pair.a.key, to: b, way: j)
                    }
                }
            }
            try context.save()
            _ = try takeLog(in: url)
            var added = Array(repeating: 0, count: Self.pairs.count)
            var removed = Array(repeating: 0, count: Self.pairs.count)
            for (p, pair) in Self.pairs.enumerated() {
                for (i, a) in (objects[pair.a.entity] ?? []).enumerated() {
                    for (j, b) in (objects[pair.b.entity] ?? []).enumerated() where (i * j) % 3 == 1 {
                        let linked = Self.members(of: a, pair.a.key).contains { $0 === b }
                        // From either side, alternately.
                        switch ((i + j) % 2, linked) {
                        case (0, true): unlink(a, pair.a.key, from: b)
                        case (0, false): link(a, pair.a.key, to: b, way: i)
                        case (_, true): unlink(b, pair.b.key, from: a)
                        case (_, false): link(b, pair.b.key, to: a, way: j)
                        }
                        if linked { removed[p] += 1 } else { added[p] += 1 }
                    }
                }
            }
            try context.save()
            let log = try takeLog(in: url)
            for (p, pair) in Self.pairs.enumerated() {
                let (fromA, fromB) = try links(pair, in: context)
                #expect(fromA == fromB, "\(pair)")
                #expect(try rows(pair, in: url) == fromA, "\(pair)")
                #expect(try deletes(pair, log) == removed[p], "\(pair)")
                if !pair.aOrdered && !pair.bOrdered {
                    #expect(try inserts(pair, log) == added[p], "\(pair)")
                } else {
                    // An ordered side writes the order key of every link of its changed objects.
                    #expect(try inserts(pair, log) >= added[p], "\(pair)")
                }
            }
        }
        try stack.close()
    }

    /// A change that only one side holds (the other side refreshed without merging, which
    /// drops its pending changes, or set through `setPrimitiveValue`, which keeps no inverse)
    /// is written from the side that holds it, for a link added and for a link removed.
    @Test(arguments: [0, 1, 2, 3])
    func aChangeOnlyOneSideHoldsIsWritten(pairIndex: Int) throws {
        let pair = Self.pairs[pairIndex]
        let url = try makeStore()
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let objects = insertObjects(2, in: context)
            let a = try #require(objects[pair.a.entity]?.first)
            let b = try #require(objects[pair.b.entity]?.first)
            let c = try #require(objects[pair.b.entity]?.last)
            link(a, pair.a.key, to: c, way: 0)
            try context.save()
            let (aKey, bKey, cKey) = (a.objectID.primaryKey, b.objectID.primaryKey, c.objectID.primaryKey)
            #expect(try rows(pair, in: url) == [[aKey, cKey]])

            // Side B holds the new link a–b; a is refreshed and no longer does.
            link(b, pair.b.key, to: a, way: 0)
            context.refresh(a, mergeChanges: false)
            try context.save()
            #expect(try rows(pair, in: url) == [[aKey, cKey], [aKey, bKey]], "\(pair): added from side B")

            // Side A holds the removal of a–c; c is refreshed and still holds a.
            unlink(a, pair.a.key, from: c)
            context.refresh(c, mergeChanges: false)
            try context.save()
            #expect(try rows(pair, in: url) == [[aKey, bKey]], "\(pair): removed from side A")

            // Side B alone, without inverse upkeep: b drops a, a keeps b in memory.
            let kept = Self.members(of: b, pair.b.key).filter { $0 !== a }
            b.setPrimitiveValue(pair.bOrdered ? NSOrderedSet(array: kept) : NSSet(array: kept), forKey: pair.b.key)
            b.setValue("changed", forKey: "name")
            try context.save()
            #expect(try rows(pair, in: url) == [], "\(pair): removed from side B alone")

            // Side A alone: a holds c only (it still held b, which no longer holds a).
            a.setPrimitiveValue(pair.aOrdered ? NSOrderedSet(array: [c]) : NSSet(array: [c]), forKey: pair.a.key)
            a.setValue("changed", forKey: "name")
            try context.save()
            #expect(try rows(pair, in: url) == [[aKey, cKey]], "\(pair): added from side A alone")
        }
        try stack.close()
    }

    /// Many rounds of random links and unlinks from both sides, a save after each: the join
    /// tables match the graph, and a second coordinator reads back each relationship (in
    /// order when ordered).
    @Test func randomChangesReadBackAsTheGraphHeldThem() throws {
        let url = try makeStore()
        let stack = try ObjectGraphTests.Stack(Self.model, at: url)
        let context = stack.newContext()
        var generator = SeededGenerator(seed: 18)
        var expected: [String: [String]] = [:]
        try context.performAndWait {
            let objects = insertObjects(8, in: context)
            for round in 0..<12 {
                for _ in 0..<40 {
                    let pair = Self.pairs[Int.random(in: 0..<Self.pairs.count, using: &generator)]
                    let fromA = Bool.random(using: &generator)
                    let (side, other) = fromA ? (pair.a, pair.b) : (pair.b, pair.a)
                    let object = try #require(objects[side.entity]?.randomElement(using: &generator))
                    let target = try #require(objects[other.entity]?.randomElement(using: &generator))
                    if Self.members(of: object, side.key).contains(where: { $0 === target }) {
                        unlink(object, side.key, from: target)
                    } else {
                        link(object, side.key, to: target, way: Int.random(in: 0..<3, using: &generator))
                    }
                }
                try context.save()
                for pair in Self.pairs {
                    let (fromA, fromB) = try links(pair, in: context)
                    #expect(fromA == fromB, "round \(round): \(pair)")
                    #expect(try rows(pair, in: url) == fromA, "round \(round): \(pair)")
                }
            }
            expected = Self.names(of: objects.values.flatMap { $0 })
        }
        try stack.close()

        let reader = try ObjectGraphTests.Stack(Self.model, at: url)
        let readContext = reader.newContext()
        try readContext.performAndWait {
            var all: [NSManagedObject] = []
            for name in ["Album", "Card", "Deck", "Mood", "Setlist", "Song"] {
                all += try readContext.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
            }
            #expect(Self.names(of: all) == expected)
        }
        try reader.close()
    }

    /// Each object's relationships as "name.key" → names of the objects, in order when ordered
    /// and sorted otherwise.
    private static func names(of objects: [NSManagedObject]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for object in objects {
            let name = object.value(forKey: "name") as? String ?? "?"
            for (key, relationship) in object.entity.relationshipsByName {
                let names = members(of: object, key).map { $0.value(forKey: "name") as? String ?? "?" }
                result["\(name).\(key)"] = relationship.isOrdered ? names : names.sorted()
            }
        }
        return result
    }
}

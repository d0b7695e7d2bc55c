import CoreData
import Foundation
import Testing

/// COMPAT 3: `NSPredicate(format:)` takes the arguments Apple's takes (numbers, dates,
/// strings, arrays, sets, key names, managed objects, object IDs, null), and the predicates
/// fetch from the SQLite store what Core Data fetches.
@Suite("COMPAT 3: format arguments")
struct FormatArgumentTests {
    /// Five to-dos (priorities 1 to 5, created a minute apart) and two tags.
    private static let rows: [(title: String, priority: Int16, tags: [String])] = [
        (title: "Buy milk", priority: 1, tags: ["shop"]),
        (title: "Call Ann", priority: 2, tags: ["phone", "home"]),
        (title: "Fix sink", priority: 3, tags: ["home"]),
        (title: "Pay rent", priority: 4, tags: []),
        (title: "Walk dog", priority: 5, tags: []),
    ]

    /// The titles of the to-dos the predicate fetches, in title order.
    private func titles(_ predicate: NSPredicate, in store: TestStore) throws -> [String] {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = predicate
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { $0.title ?? "" }
        }
    }

    @Test("numbers: NSNumber for %@, Int and Int16 for %d, Double for %f, [Int] for IN %@")
    func numbers() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        let minimum: Int = 4
        #expect(try titles(NSPredicate(format: "priority > %@", NSNumber(value: 3)), in: store) == ["Pay rent", "Walk dog"])
        #expect(try titles(NSPredicate(format: "priority >= %d", minimum), in: store) == ["Pay rent", "Walk dog"])
        #expect(try titles(NSPredicate(format: "priority == %d", Int16(2)), in: store) == ["Call Ann"])
        #expect(try titles(NSPredicate(format: "priority < %f", 1.5), in: store) == ["Buy milk"])
        #expect(try titles(NSPredicate(format: "priority IN %@", [1, 2, 3]), in: store) == ["Buy milk", "Call Ann", "Fix sink"])
        #expect(try titles(NSPredicate(format: "isDone == %@", NSNumber(value: false)), in: store).count == 5)
    }

    @Test("dates: someDate as NSDate for %@")
    func dates() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        let someDate = Date(timeIntervalSinceReferenceDate: 150)
        #expect(
            try titles(NSPredicate(format: "createdAt < %@", someDate as NSDate), in: store) == [
                "Buy milk", "Call Ann", "Fix sink",
            ])
        #expect(try titles(NSPredicate(format: "createdAt > %@", someDate as NSDate), in: store) == ["Pay rent", "Walk dog"])
    }

    @Test("strings, %K key names, and string sets for IN %@")
    func stringsAndKeys() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        let key = "title"
        #expect(try titles(NSPredicate(format: "title == %@", "Fix sink"), in: store) == ["Fix sink"])
        #expect(try titles(NSPredicate(format: "%K BEGINSWITH[c] %@", key, "p"), in: store) == ["Pay rent"])
        #expect(try titles(NSPredicate(format: "ANY %K == %@", "tags.title", "home"), in: store) == ["Call Ann", "Fix sink"])
        let wanted: Set<String> = ["Walk dog", "Buy milk"]
        #expect(try titles(NSPredicate(format: "title IN %@", wanted), in: store) == ["Buy milk", "Walk dog"])
        #expect(try titles(NSPredicate(format: "title IN %@", NSSet(array: ["Pay rent"])), in: store) == ["Pay rent"])
        #expect(
            try titles(NSPredicate(format: "title == %@ OR priority == %d", argumentArray: ["Walk dog", 1]), in: store)
                == ["Buy milk", "Walk dog"])
    }

    @Test("managed objects, object IDs and UUIDs for %@")
    func objectsAndIDs() throws {
        let store = try TestStore()
        let ids = try store.insert(Self.rows)
        let context = store.container.newBackgroundContext()
        let (home, rentID, rentUUID) = try context.performAndWait {
            () throws -> (TagEntity, NSManagedObjectID, UUID) in
            let request: NSFetchRequest<TagEntity> = TagEntity.fetchRequest()
            request.predicate = NSPredicate(format: "title == %@", "home")
            let rent = try context.existingObject(with: ids[3]) as? TodoEntity
            return (try #require(try context.fetch(request).first), ids[3], try #require(rent?.todoId))
        }
        #expect(try titles(NSPredicate(format: "%@ IN tags", home), in: store) == ["Call Ann", "Fix sink"])
        #expect(try titles(NSPredicate(format: "ANY tags == %@", home), in: store) == ["Call Ann", "Fix sink"])
        #expect(try titles(NSPredicate(format: "ANY tags == %@", home.objectID), in: store) == ["Call Ann", "Fix sink"])
        #expect(try titles(NSPredicate(format: "self == %@", rentID), in: store) == ["Pay rent"])
        #expect(try titles(NSPredicate(format: "self IN %@", [ids[0], ids[4]]), in: store) == ["Buy milk", "Walk dog"])
        #expect(try titles(NSPredicate(format: "todoId == %@", rentUUID as NSUUID), in: store) == ["Pay rent"])
        // `as CVarArg`, as Core Data code on Apple's systems writes its arguments.
        #expect(try titles(NSPredicate(format: "todoId == %@", rentUUID as CVarArg), in: store) == ["Pay rent"])
        #expect(try titles(NSPredicate(format: "self == %@", rentID as CVarArg), in: store) == ["Pay rent"])
        #expect(try titles(NSPredicate(format: "ANY tags == %@", home as CVarArg), in: store) == ["Call Ann", "Fix sink"])
        #expect(try titles(NSPredicate(format: "priority == %@", NSNumber(value: 3) as CVarArg), in: store).count == 1)
    }

    @Test("nil: NSNull for %@, nil in the format, and tags.@count")
    func nullValues() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        #expect(try titles(NSPredicate(format: "completedAt == %@", NSNull()), in: store).count == 5)
        #expect(try titles(NSPredicate(format: "completedAt != nil"), in: store).isEmpty)
        #expect(try titles(NSPredicate(format: "completedAt == %@", argumentArray: [NSNull()]), in: store).count == 5)
        #expect(try titles(NSPredicate(format: "tags.@count == 0"), in: store) == ["Pay rent", "Walk dog"])
    }
}

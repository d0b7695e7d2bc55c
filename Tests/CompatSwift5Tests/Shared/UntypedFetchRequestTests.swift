import CoreData
import Foundation
import Testing

/// COMPAT 5: `NSFetchRequest<NSFetchRequestResult>(entityName:)`, Apple's spelling of an
/// untyped request, compiles and fetches dictionaries, objects, IDs and counts.
@Suite("COMPAT 5: NSFetchRequest<NSFetchRequestResult>")
struct UntypedFetchRequestTests {
    private static let rows: [(title: String, priority: Int16, tags: [String])] = [
        (title: "Buy milk", priority: 1, tags: []), (title: "Call Ann", priority: 2, tags: []),
        (title: "Fix sink", priority: 2, tags: []),
    ]

    @Test("dictionary results with propertiesToFetch read as [[String: Any]]")
    func dictionaries() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["title", "priority"]
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let results = try context.fetch(request)
            let rows = results as? [[String: Any]] ?? []
            #expect(rows.map { $0["title"] as? String } == ["Buy milk", "Call Ann", "Fix sink"])
            #expect(rows.map { $0["priority"] as? Int } == [1, 2, 2])
            let dictionaries = results as? [NSDictionary] ?? []
            #expect(dictionaries.map { $0["title"] as? String } == ["Buy milk", "Call Ann", "Fix sink"])
        }
    }

    @Test("grouped dictionary results with an NSExpressionDescription")
    func grouped() throws {
        let store = try TestStore()
        try store.insert(Self.rows)
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let count = NSExpressionDescription()
            count.name = "count"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
            count.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["priority", count]
            request.propertiesToGroupBy = ["priority"]
            request.sortDescriptors = [NSSortDescriptor(key: "priority", ascending: true)]
            let rows = try context.fetch(request) as? [[String: Any]] ?? []
            #expect(rows.map { $0["priority"] as? Int } == [1, 2])
            #expect(rows.map { $0["count"] as? Int } == [1, 2])
        }
    }

    @Test("objects, object IDs and counts through the same untyped request")
    func otherResultTypes() throws {
        let store = try TestStore()
        let ids = try store.insert(Self.rows)
        let context = store.container.newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "TodoEntity")
            request.predicate = NSPredicate(format: "priority == %d", 2)
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let todos = try context.fetch(request) as? [TodoEntity] ?? []
            #expect(todos.map { $0.title } == ["Call Ann", "Fix sink"])
            request.resultType = .managedObjectIDResultType
            let objectIDs = try context.fetch(request) as? [NSManagedObjectID]
            #expect(objectIDs == [ids[1], ids[2]])
            let typedIDs = NSFetchRequest<NSManagedObjectID>(entityName: "TodoEntity")
            typedIDs.resultType = .managedObjectIDResultType
            typedIDs.predicate = request.predicate
            typedIDs.sortDescriptors = request.sortDescriptors
            #expect(try context.fetch(typedIDs) == [ids[1], ids[2]])
            request.resultType = .countResultType
            #expect((try context.fetch(request) as? [NSNumber])?.first?.intValue == 2)
            #expect(try context.count(for: request) == 2)
        }
    }
}

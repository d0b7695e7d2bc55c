import CoreData
import Foundation
import Testing

/// COMPAT 1: in a file that imports both Foundation and CoreData, Core Data's class names
/// in type positions (annotations, arrays, optionals, parameters, stored properties) name
/// one type each, and the values fetch as Core Data's do.
@Suite("COMPAT 1: type names in a file importing Foundation and CoreData")
struct TypeNamePositionTests {
    /// A screen's query, kept in stored properties of Core Data's types.
    struct Query {
        var predicate: NSPredicate?
        var sortDescriptors: [NSSortDescriptor] = []
        var expression: NSExpression?
    }

    /// A function whose parameters and result are Core Data's types.
    private func and(_ predicates: [NSPredicate]) -> NSPredicate {
        NSCompoundPredicate(andPredicateWithSubpredicates: predicates)
    }

    @Test("[NSPredicate], NSSortDescriptor, NSExpression and NSComparisonPredicate annotate values")
    func annotations() throws {
        var predicates: [NSPredicate] = []
        predicates.append(NSPredicate(format: "title CONTAINS[cd] %@", "milk"))
        predicates.append(NSPredicate(format: "priority >= %d", 2))
        let s: NSSortDescriptor = NSSortDescriptor(key: "title", ascending: true)
        let e: NSExpression = NSExpression(forKeyPath: "priority")
        let comparison: NSComparisonPredicate = NSComparisonPredicate(
            leftExpression: e, rightExpression: NSExpression(forConstantValue: 5), modifier: .direct, type: .lessThan,
            options: [])
        let optional: NSPredicate? = comparison
        predicates.append(optional ?? NSPredicate(value: true))
        #expect(
            predicates.map { "\($0)" } == ["title CONTAINS[cd] \"milk\"", "priority >= 2", "priority < 5"])
        #expect(s.key == "title")
        #expect(s.ascending)
        #expect(e.keyPath == "priority")

        let store = try TestStore()
        try store.insert([
            (title: "Buy milk", priority: 3, tags: []), (title: "Milkshake", priority: 1, tags: []),
            (title: "Almond MILK", priority: 4, tags: []), (title: "Oat milk", priority: 9, tags: []),
            (title: "Bread", priority: 3, tags: []),
        ])
        let query = Query(predicate: and(predicates), sortDescriptors: [s], expression: e)
        let context = store.container.newBackgroundContext()
        let titles = try context.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.predicate = query.predicate
            request.sortDescriptors = query.sortDescriptors
            return try context.fetch(request).map { $0.title ?? "" }
        }
        #expect(titles == ["Almond MILK", "Buy milk"])
        #expect(query.expression?.expressionValue(with: ["priority": 7], context: nil) as? Int == 7)
    }
}

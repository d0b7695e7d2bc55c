import CoreData
import Foundation
import Testing

/// The ways app code builds sort descriptors for a fetch: by key, by key with a comparison
/// selector (`Selector("…")`, since `#selector` needs the Objective-C runtime), and by
/// Swift key path as Xcode's SwiftUI template does.
@Suite("Sort descriptor idioms")
struct SortDescriptorIdiomTests {
    /// The titles of every to-do, sorted by the descriptors.
    private func titles(sortedBy descriptors: [NSSortDescriptor], in store: TestStore) throws -> [String] {
        let context = store.container.newBackgroundContext()
        return try context.performAndWait {
            let request: NSFetchRequest<TodoEntity> = TodoEntity.fetchRequest()
            request.sortDescriptors = descriptors
            return try context.fetch(request).map { $0.title ?? "" }
        }
    }

    @Test("NSSortDescriptor(key:ascending:selector:) with Selector(\"localizedStandardCompare:\")")
    func selector() throws {
        let store = try TestStore()
        try store.insert([
            (title: "file10", priority: 1, tags: []), (title: "File9", priority: 2, tags: []),
            (title: "file1", priority: 3, tags: []),
        ])
        let standard = NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))
        #expect(try titles(sortedBy: [standard], in: store) == ["file1", "File9", "file10"])
        #expect(
            try titles(sortedBy: [NSSortDescriptor(key: "title", ascending: true)], in: store) == ["File9", "file1", "file10"])
    }

    @Test("NSSortDescriptor(keyPath:ascending:) and NSSortDescriptor(SortDescriptor) on a generated attribute")
    func keyPath() throws {
        let store = try TestStore()
        try store.insert([
            (title: "low", priority: 1, tags: []), (title: "high", priority: 3, tags: []),
            (title: "middle", priority: 2, tags: []),
        ])
        // A non-optional (Comparable) attribute goes through Foundation's initializer, an
        // optional one through Strata's; both name their property for the fetch.
        let byPriority = NSSortDescriptor(keyPath: \TodoEntity.priority, ascending: false)
        #expect(byPriority.key == "priority")
        #expect(try titles(sortedBy: [byPriority], in: store) == ["high", "middle", "low"])
        let byTitle = NSSortDescriptor(keyPath: \TodoEntity.title, ascending: true)
        #expect(byTitle.key == "title")
        #expect(try titles(sortedBy: [byTitle], in: store) == ["high", "low", "middle"])
        let typed = NSSortDescriptor(SortDescriptor(\TodoEntity.priority, order: .reverse))
        #expect(try titles(sortedBy: [typed], in: store) == ["high", "middle", "low"])
    }
}

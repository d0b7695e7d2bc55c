import CoreData
import Foundation
import Testing
import TodoKit
import TodoSwiftData

@Suite("The to-do list in SwiftData, on TodoKit's store")
struct TodoSwiftDataTests {
    private func storeURL() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todo-swiftdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("Todos.sqlite")
    }

    @Test("the @Model classes make the entities of Todos.xcdatamodeld, version hash for version hash")
    func sameModel() throws {
        let xcode = try PersistenceController(store: .inMemory).container.managedObjectModel
        let swiftData = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Todo.self]))
        #expect(swiftData.entitiesByName.keys.sorted() == ["Location", "Tag", "Todo"])
        #expect(swiftData.entityVersionHashesByName == xcode.entityVersionHashesByName)
    }

    @Test("what SwiftData writes, TodoKit's Core Data repositories read, and the other way round")
    func oneStoreTwoAPIs() async throws {
        let url = try storeURL()
        let day = Date(timeIntervalSinceReferenceDate: 786_000_000)
        let oslo = LocationModel(latitude: 59.91, longitude: 10.75, placeName: "Oslo")
        var written: [TodoModel] = []
        do {
            let library = try TodoLibrary(url: url)
            written.append(try library.add(title: "Buy milk", tags: ["home", "shop"], at: day))
            written.append(try library.add(title: "Write report", tags: ["work"], at: day + 60))
            written[0] = try library.locate(id: written[0].id, at: oslo, at: day + 120)
            written[1] = try library.complete(id: written[1].id, at: day + 180)
        }
        let services = try TodoServices(store: .sqlite(url))
        let read = try await services.todos.todos(matching: TodoQuery(pageSize: 50)).todos
        #expect(read.sorted { $0.title < $1.title } == written.sorted { $0.title < $1.title })
        #expect(read.first { $0.title == "Buy milk" }?.location?.placeName == "Oslo")
        #expect(read.first { $0.title == "Buy milk" }?.tags.map(\.title) == ["home", "shop"])

        // TodoKit writes; SwiftData reads it back.
        let milk = try #require(read.first { $0.title == "Buy milk" })
        let added = try await services.todos.add(title: "Call Ada", tagIds: milk.tags.map(\.id))
        let library = try TodoLibrary(url: url)
        let all = try library.todos()
        #expect(all.count == 3)
        #expect(all.first { $0.id == added.id } == added)
        #expect(try library.todos(taggedWith: "HOME").map(\.title).sorted() == ["Buy milk", "Call Ada"])
        #expect(try library.todos(includingCompleted: false).map(\.title).sorted() == ["Buy milk", "Call Ada"])
        try library.delete(id: added.id)
        let after = try await services.todos.todos(matching: TodoQuery(pageSize: 50)).todos
        #expect(after.map(\.id).contains(added.id) == false)
    }
}

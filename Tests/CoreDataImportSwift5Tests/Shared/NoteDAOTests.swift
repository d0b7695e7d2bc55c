import CoreData
import Testing

/// A DAO over a model the target loads as an app does (ImportTarget.loadModel()), in files
/// that import only CoreData (COMPAT 8).
@Suite("COMPAT 8: a DAO in files that import only CoreData")
struct NoteDAOTests {
    private func makeContext() throws -> (NSManagedObjectContext, URL) {
        let model = try ImportTarget.loadModel()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: directory.appendingPathComponent("Notes.sqlite"),
            options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, directory)
    }

    @Test("create, fetch with compound predicates, count, dictionaries, delete")
    func daoRoundTrip() throws {
        let (context, directory) = try makeContext()
        defer { try? FileManager.default.removeItem(at: directory) }
        try context.performAndWait {
            let dao = NoteDAO(context: context)
            let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
            dao.create(title: "Buy milk", rating: 1, createdAt: start)
            let call = dao.create(title: "Call Ann", rating: 3, createdAt: start.addingTimeInterval(60))
            dao.create(title: "Milk the cow", rating: 3, pinned: true, createdAt: start.addingTimeInterval(120))
            try dao.save()

            #expect(try dao.notes().map { $0.title ?? "" } == ["Milk the cow", "Call Ann", "Buy milk"])
            #expect(try dao.notes(matching: "MILK").map { $0.title ?? "" } == ["Milk the cow", "Buy milk"])
            #expect(try dao.notes(matching: "milk", minimumRating: 2).map { $0.title ?? "" } == ["Milk the cow"])
            #expect(try dao.count(createdSince: start.addingTimeInterval(30)) == 2)
            #expect(try dao.titlesByRating() == [1: ["Buy milk"], 3: ["Call Ann", "Milk the cow"]])
            let id = try #require(call.noteId)
            #expect(try dao.note(withID: id)?.title == "Call Ann")

            dao.delete(call)
            try dao.save()
            #expect(try dao.note(withID: id) == nil)
            #expect(try dao.notes().count == 2)
        }
    }
}

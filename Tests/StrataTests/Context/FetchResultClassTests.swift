import Foundation
import Testing

@testable import Strata

/// A fetch's array is made as the request's result type (issue 34: without a cast per element
/// when every object is of that class), and refuses objects of another class with a clear error.
@Suite struct FetchResultClassTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    private func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ObjectGraphTests.libraryModel())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("classes.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for title in ["b", "a", "c"] { Novel(context: context).title = title }
            Author(context: context).name = "Ada"
            try context.save()
            context.reset()
        }
        return context
    }

    @Test func eachRequestTypeGetsItsObjects() throws {
        let context = try context()
        try context.performAndWait {
            let request = NSFetchRequest<Novel>(entityName: "Novel")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let novels = try context.fetch(request)
            #expect(novels.map(\.title) == ["a", "b", "c"])
            #expect(novels.allSatisfy { type(of: $0) == Novel.self })

            let untyped = NSFetchRequest<NSManagedObject>(entityName: "Novel")
            untyped.sortDescriptors = request.sortDescriptors
            let objects = try context.fetch(untyped)
            #expect(objects.count == 3)
            #expect(objects[0] === novels[0])

            let results = try context.fetch(NSFetchRequest<any NSFetchRequestResult>(entityName: "Novel"))
            #expect(results.count == 3)
            #expect(results.allSatisfy { $0 is Novel })

            let anyObjects = try context.fetch(NSFetchRequest<AnyObject>(entityName: "Author"))
            #expect((anyObjects.first as? Author)?.name == "Ada")
        }
    }

    /// A request typed with a class its entity's objects are not: Core Data's error domain, and
    /// a message naming both classes.
    @Test func aRequestOfAnotherClassFailsClearly() throws {
        let context = try context()
        context.performAndWait {
            #expect {
                try context.fetch(NSFetchRequest<Novel>(entityName: "Author"))
            } throws: { error in
                let error = error as NSError
                return error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError
                    && error.localizedDescription.contains("Author") && error.localizedDescription.contains("Novel")
            }
        }
    }
}

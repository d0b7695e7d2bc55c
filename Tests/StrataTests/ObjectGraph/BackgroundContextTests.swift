import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Background work through a container: contexts on private queues saving at the same
    /// time, `perform` in its async form, and `performBackgroundTask`.
    @Suite struct BackgroundContextTests {
        private let scratch = ScratchDirectory()

        /// A container with one SQLite store in the scratch directory, loaded.
        private func loadedContainer() throws -> NSPersistentContainer {
            let container = NSPersistentContainer(name: "Library", managedObjectModel: libraryModel())
            container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: scratch.file("library.sqlite"))]
            let errors = loadStores(of: container)
            try #require(errors.count == 1)
            try #require(errors[0] == nil, "the store loads: \(String(describing: errors[0]))")
            return container
        }

        /// The number of novels in the store, counted in a new background context.
        private func novelCount(in container: NSPersistentContainer) async throws -> Int {
            let context = container.newBackgroundContext()
            return try await context.perform {
                try context.count(for: NSFetchRequest<Novel>(entityName: "Novel"))
            }
        }

        @Test(.timeLimit(.minutes(2)))
        func eightContextsInsertingConcurrentlyLoseNothing() async throws {
            let container = try loadedContainer()
            let contexts = (0..<8).map { _ in container.newBackgroundContext() }
            let ids = try await withThrowingTaskGroup(of: [NSManagedObjectID].self) { group in
                for (worker, context) in contexts.enumerated() {
                    group.addTask {
                        try await context.perform {
                            let novels = (0..<250).map { index -> Novel in
                                let novel = Novel(context: context)
                                novel.title = "\(worker)-\(index)"
                                novel.year = Int16(index)
                                return novel
                            }
                            try context.save()
                            return novels.map(\.objectID)
                        }
                    }
                }
                var all: [NSManagedObjectID] = []
                for try await part in group { all += part }
                return all
            }
            #expect(ids.count == 2000)
            #expect(ids.allSatisfy { !$0.isTemporaryID })
            #expect(Set(ids).count == 2000)
            #expect(Set(ids.map { $0.uriRepresentation() }).count == 2000)

            #expect(try await novelCount(in: container) == 2000)
            let reader = container.newBackgroundContext()
            let titles = try await reader.perform {
                try reader.fetch(NSFetchRequest<Novel>(entityName: "Novel")).compactMap(\.title)
            }
            #expect(Set(titles).count == 2000)
            #expect(titles.contains("7-249"))
        }

        @Test func asyncPerformReturnsTheBlocksValue() async throws {
            let container = try loadedContainer()
            let context = container.newBackgroundContext()
            let (title, temporary) = try await context.perform {
                let novel = Novel(context: context)
                novel.title = "Dune"
                try context.save()
                return (novel.title, novel.objectID.isTemporaryID)
            }
            #expect(title == "Dune")
            #expect(temporary == false)
            #expect(try await novelCount(in: container) == 1)
        }

        @Test func asyncPerformRethrowsTheBlocksError() async throws {
            struct Refused: Error, Equatable {}
            let container = try loadedContainer()
            let context = container.newBackgroundContext()
            await #expect(throws: Refused()) {
                try await context.perform {
                    _ = Novel(context: context)
                    throw Refused()
                }
            }
            let pending = await context.perform { context.insertedObjects.count }
            #expect(pending == 1)
        }

        @Test func performWithoutAwaitingRunsTheBlockOnTheContextsQueue() async throws {
            let container = try loadedContainer()
            let context = container.newBackgroundContext()
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                context.perform {
                    let novel = Novel(context: context)
                    novel.title = "Dune"
                    try? context.save()
                    continuation.resume()
                }
            }
            #expect(try await novelCount(in: container) == 1)
        }

        @Test func performAndWaitReturnsTheBlocksValue() throws {
            let container = try loadedContainer()
            let context = container.newBackgroundContext()
            let title = try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                try context.save()
                return novel.title
            }
            #expect(title == "Dune")
        }

        @Test func backgroundContextsArePrivateQueueContextsOfTheContainer() throws {
            let container = try loadedContainer()
            let background = container.newBackgroundContext()
            #expect(background.concurrencyType == .privateQueueConcurrencyType)
            #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
            #expect(background !== container.newBackgroundContext())
            #expect(container.viewContext.concurrencyType == .mainQueueConcurrencyType)
            #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
            #expect(container.viewContext === container.viewContext)
        }

        @Test func performBackgroundTaskAsyncSavesAndReturns() async throws {
            let container = try loadedContainer()
            let count = try await container.performBackgroundTask { context in
                #expect(context.concurrencyType == .privateQueueConcurrencyType)
                for title in ["Dune", "Ubik"] {
                    let novel = Novel(context: context)
                    novel.title = title
                }
                try context.save()
                return try context.count(for: NSFetchRequest<Novel>(entityName: "Novel"))
            }
            #expect(count == 2)
            #expect(try await novelCount(in: container) == 2)
        }

        @Test func performBackgroundTaskWithAClosureRunsOnAPrivateContext() async throws {
            let container = try loadedContainer()
            let saved = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                container.performBackgroundTask { context in
                    let novel = Novel(context: context)
                    novel.title = "Dune"
                    let saved = (try? context.save()) != nil
                    continuation.resume(returning: saved && context.concurrencyType == .privateQueueConcurrencyType)
                }
            }
            #expect(saved)
            #expect(try await novelCount(in: container) == 1)
        }

        @Test(.timeLimit(.minutes(1)))
        func theViewContextSeesWhatBackgroundContextsSaved() async throws {
            let container = try loadedContainer()
            let background = container.newBackgroundContext()
            try await background.perform {
                let novel = Novel(context: background)
                novel.title = "Dune"
                try background.save()
            }
            let titles = try await MainActor.run {
                try container.viewContext.fetch(NSFetchRequest<Novel>(entityName: "Novel")).map(\.title)
            }
            #expect(titles == ["Dune"])
        }
    }
}

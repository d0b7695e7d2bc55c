import Foundation
import Synchronization
import Testing

@testable import Strata

/// Reads of one statement go through a connection the store keeps for them (issue 34), and
/// through GRDB's pool when another thread holds it: every fetch sees what was committed before
/// it began, concurrent fetches all answer, and closing the store leaves no `-wal` or `-shm`.
@Suite struct SQLiteOwnReaderTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()

    @Test func fetchesSeeEveryCommittedSaveWhileOthersReadAtOnce() throws {
        let model = ObjectGraphTests.libraryModel()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try #require(
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: scratch.file("reader.sqlite")) as? SQLiteStore)
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = coordinator
        // Saves committed so far (each save adds 10 novels), raised after each save returns.
        let committed = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let readers = 4
        let done = Atomic<Int>(0)
        @Sendable func work(_ worker: Int) {
            if worker == readers {
                for save in 1...40 {
                    writer.performAndWait {
                        for n in 0..<10 { Novel(context: writer).title = "s\(save)-\(n)" }
                        do { try writer.save() } catch { failures.withLock { $0.append("save: \(error)") } }
                        writer.reset()
                    }
                    committed.store(save * 10, ordering: .releasing)
                }
                done.store(1, ordering: .releasing)
                return
            }
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            var rounds = 0
            while done.load(ordering: .acquiring) == 0 || rounds < 5 {
                rounds += 1
                let before = committed.load(ordering: .acquiring)
                context.performAndWait {
                    let request = NSFetchRequest<Novel>(entityName: "Novel")
                    request.predicate = NSPredicate(format: "title BEGINSWITH %@", "s")
                    do {
                        let count = try context.fetch(request).count
                        let after = committed.load(ordering: .acquiring)
                        // Whole saves only, none missing that had returned before the fetch.
                        if count < before || count > after + 10 || count % 10 != 0 {
                            failures.withLock { $0.append("fetch saw \(count) with \(before)…\(after) committed") }
                        }
                    } catch {
                        failures.withLock { $0.append("fetch: \(error)") }
                    }
                    context.reset()
                }
            }
        }
        // Threads of their own: `concurrentPerform` runs as many at once as there are cores,
        // and readers that wait for the writer would keep it from starting.
        let group = DispatchGroup()
        for worker in 0...readers {
            group.enter()
            Thread {
                defer { group.leave() }
                work(worker)
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(committed.load(ordering: .acquiring) == 400)
        #expect(store.ownReader() != nil)
        // The last fetch, through the store's reader, sees all 400.
        let last = try writer.performAndWait { try writer.count(for: NSFetchRequest<Novel>(entityName: "Novel")) }
        #expect(last == 400)
        let fetched = try writer.performAndWait { try writer.fetch(NSFetchRequest<Novel>(entityName: "Novel")).count }
        #expect(fetched == 400)

        try coordinator.remove(store)
        #expect(store.ownReader() == nil)
        let path = scratch.file("reader.sqlite").path
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }
}

import Foundation
import Testing

@testable import Strata

extension HistoryTests {
    /// History fetched through `NSPersistentHistoryTransaction.fetchRequest` and
    /// `NSPersistentHistoryChange.fetchRequest` with predicates on every key of Apple's
    /// history entities, in every store type and in the corpus's Apple-written history; keys
    /// the entities lack are refused with an error.
    @Suite struct FetchPredicateTests {
        private let scratch = Scratch()

        /// Three transactions: "first" inserted by author "a" in context "one", "second" by "b"
        /// in "two", then "first" updated by "a" in "one". Returns the stack and first's ID.
        private func threeTransactions(type: String) throws -> (Stack, NSManagedObjectID) {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let first = try HistoryTests.insertItem("first", in: stack.context(author: "a", name: "one"))
            try HistoryTests.insertItem("second", in: stack.context(author: "b", name: "two"))
            let context = stack.context(author: "a", name: "one")
            try context.performAndWait {
                try context.existingObject(with: first).setValue("first!", forKey: "title")
                try context.save()
            }
            return (stack, first)
        }

        private func transactionNumbers(_ stack: Stack, _ format: String, _ arguments: Any...) throws -> [Int64]? {
            let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
            fetch.predicate = NSPredicate(format: format, argumentArray: arguments)
            let result = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch))
            return (result as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber)
        }

        private func changes(_ stack: Stack, _ format: String, _ arguments: Any...) throws -> [NSPersistentHistoryChange]? {
            let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
            fetch.predicate = NSPredicate(format: format, argumentArray: arguments)
            let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch)
            request.resultType = .changesOnly
            return try stack.history(request) as? [NSPersistentHistoryChange]
        }

        @Test(arguments: HistoryTests.storeTypes)
        func transactionKeysFilter(type: String) throws {
            let (stack, _) = try threeTransactions(type: type)
            let all = try stack.transactions()
            #expect(all.map(\.transactionNumber) == [1, 2, 3])
            let first = try #require(all.first)
            #expect(try transactionNumbers(stack, "author == %@", "b") == [2])
            #expect(try transactionNumbers(stack, "author != %@", "b") == [1, 3])
            #expect(try transactionNumbers(stack, "contextName == %@", "one") == [1, 3])
            #expect(try transactionNumbers(stack, "transactionNumber >= %d", 2) == [2, 3])
            #expect(try transactionNumbers(stack, "transactionNumber IN %@", [1, 3]) == [1, 3])
            #expect(try transactionNumbers(stack, "timestamp > %@", first.timestamp as NSDate) == [2, 3])
            #expect(try transactionNumbers(stack, "timestamp <= %@", first.timestamp as NSDate) == [1])
            #expect(try transactionNumbers(stack, "storeID == %@", stack.store.identifier ?? "") == [1, 2, 3])
            let bundleID = first.bundleID
            let processID = first.processID
            #expect(!bundleID.isEmpty && !processID.isEmpty)
            #expect(try transactionNumbers(stack, "bundleID == %@", bundleID) == [1, 2, 3])
            #expect(try transactionNumbers(stack, "processID == %@", processID) == [1, 2, 3])
            #expect(try transactionNumbers(stack, "processID == %@", "another") == [])
            #expect(try transactionNumbers(stack, "author == %@ AND contextName == %@", "a", "one") == [1, 3])
        }

        @Test(arguments: HistoryTests.storeTypes)
        func changeKeysFilter(type: String) throws {
            let (stack, first) = try threeTransactions(type: type)
            let ofFirst = try changes(stack, "changedObjectID == %@", first)
            #expect(ofFirst?.map(\.changeType) == [.insert, .update])
            #expect(ofFirst?.allSatisfy { $0.changedObjectID == first } == true)
            #expect(try changes(stack, "changeType == %d", NSPersistentHistoryChangeType.update.rawValue)?.count == 1)
            #expect(try changes(stack, "changeType == %@", NSNumber(value: 0))?.count == 4)
            #expect(try changes(stack, "changedEntity == %@", "HistTag")?.count == 2)
            let allChanges = try #require(try changes(stack, "changeID > 0"))
            #expect(allChanges.count == 5)
            let lastID = try #require(allChanges.last?.changeID)
            #expect(try changes(stack, "changeID == %lld", lastID)?.map(\.changeType) == [.update])
            #expect(try changes(stack, "transaction.author == %@", "b")?.count == 2)
            // Apple's samples name the entity by its description, and build the request from
            // the history entity of a context.
            let tagEntity = try #require(stack.coordinator.managedObjectModel.entitiesByName["HistTag"])
            #expect(try changes(stack, "changedEntity == %@", tagEntity)?.count == 2)
            let context = stack.context()
            let built = NSFetchRequest<NSFetchRequestResult>()
            built.entity = NSPersistentHistoryChange.entityDescription(with: context)
            built.predicate = NSPredicate(format: "changedEntity == %@ AND changeType == %d", tagEntity, 0)
            let builtRequest = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: built)
            builtRequest.resultType = .changesOnly
            #expect((try stack.history(builtRequest) as? [NSPersistentHistoryChange])?.count == 2)
            // A change request gives the transactions that keep a matching change.
            let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
            fetch.predicate = NSPredicate(format: "changedObjectID == %@ AND changeType == %d", first, 1)
            let transactions = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch))
            #expect((transactions as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == [3])
        }

        @Test func keysTheEntitiesLackAreRefused() throws {
            let (stack, _) = try threeTransactions(type: NSSQLiteStoreType)
            let token = try #require(stack.transactions().first?.token)
            for (format, argument) in [
                ("token == %@", token as Any), ("authr == %@", "a" as Any), ("SELF.nonsense > 1", 0 as Any),
                ("author == %@ OR colour == 'red'", "a" as Any),
            ] {
                let fetch = try #require(NSPersistentHistoryTransaction.fetchRequest)
                fetch.predicate = NSPredicate(format: format, argumentArray: [argument])
                let error = try #require(throws: NSError.self) {
                    try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch))
                }
                #expect(error.domain == NSCocoaErrorDomain)
                #expect(error.code == NSCoreDataError)
                #expect(error.localizedDescription.contains("not found in entity NSPersistentHistoryTransaction"))
            }
            for format in ["author == 'a'", "transaction.token != nil", "changedObject == nil"] {
                let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
                fetch.predicate = NSPredicate(format: format)
                let error = try #require(throws: NSError.self) {
                    try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: fetch))
                }
                #expect(error.code == NSCoreDataError)
                #expect(error.localizedDescription.contains("not found in entity NSPersistentHistoryChange"))
            }
        }

        /// The corpus store Apple wrote with history (one transaction of xctest's inserts):
        /// filtered by its bundle and process, and its changes by entity and object.
        @Test(.enabled(if: TestCorpus.isAvailable, "the corpus is absent")) func appleWrittenHistoryFilters() throws {
            let url = try TestCorpus.copyOfStore(named: CorpusTests.v2)
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let stack = try Stack(at: url, model: try NSManagedObjectModel.cachedModel(ofStoreAt: url), readOnly: true)
            #expect(try transactionNumbers(stack, "bundleID == %@", "com.apple.dt.xctest.tool") == [1])
            #expect(try transactionNumbers(stack, "processID == %@ AND author == nil", "xctest") == [1])
            #expect(try transactionNumbers(stack, "processID != %@", "xctest") == [])
            #expect(try changes(stack, "changedEntity == %@", "Author")?.count == 1)
            #expect(try changes(stack, "changeType == %d", 0)?.count == 126)
            let page = try #require(try changes(stack, "changedEntity == %@", "Page")?.first)
            let same = try changes(stack, "changedObjectID == %@", page.changedObjectID)
            #expect(same?.map(\.changeID) == [page.changeID])
        }
    }
}

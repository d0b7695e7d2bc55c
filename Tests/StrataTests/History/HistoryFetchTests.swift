import Foundation
import Testing

@testable import Strata

extension HistoryTests {
    /// Fetching history after a token, a date or a transaction, with fetch requests of
    /// transactions and of changes, in every result type; deleting history; and the errors of
    /// tokens the store cannot answer.
    @Suite struct FetchTests {
        private let scratch = Scratch()

        /// A store with three transactions by authors "a", "b", "a" (context names "one",
        /// "two", "one"): an insert, an insert, and an update of the first item.
        private func threeTransactions(type: String = NSSQLiteStoreType) throws -> Stack {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let first = try HistoryTests.insertItem("first", in: stack.context(author: "a", name: "one"))
            try HistoryTests.insertItem("second", in: stack.context(author: "b", name: "two"))
            let context = stack.context(author: "a", name: "one")
            try context.performAndWait {
                try context.existingObject(with: first).setValue("first!", forKey: "title")
                try context.save()
            }
            return stack
        }

        @Test(arguments: HistoryTests.storeTypes)
        func fetchAfterTokenDateAndTransaction(type: String) throws {
            let stack = try threeTransactions(type: type)
            let all = try stack.transactions()
            #expect(all.count == 3)
            #expect(try stack.transactions(after: all[0].token).map(\.transactionNumber) == [2, 3])
            let afterTransaction = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(after: all[1]))
            #expect((afterTransaction as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == [3])
            // After a date: exactly the transactions stamped later (none are left out, whatever
            // the clock's resolution put in the same instant), and all three after a time before them.
            for date in [all[1].timestamp, all[0].timestamp.addingTimeInterval(-1)] {
                let afterDate = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(after: date))
                let expected = all.filter { $0.timestamp > date }.map(\.transactionNumber)
                #expect((afterDate as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == expected)
            }
            let beforeAll = try stack.history(
                NSPersistentHistoryChangeRequest.fetchHistory(after: all[0].timestamp.addingTimeInterval(-1)))
            #expect((beforeAll as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == [1, 2, 3])
            let current = try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
            #expect(current == all[2].token)
            #expect(try stack.transactions(after: current).isEmpty)
        }

        @Test func fetchRequestsFilterByAuthorContextNameDateEntityAndChangeType() throws {
            let stack = try threeTransactions()
            let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
            byAuthor.predicate = NSPredicate(format: "author == %@", "a")
            let authored = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byAuthor))
            #expect((authored as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == [1, 3])

            let byName = try #require(NSPersistentHistoryTransaction.fetchRequest)
            byName.predicate = NSPredicate(format: "contextName == %@ AND transactionNumber > 1", "one")
            let named = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byName))
            #expect((named as? [NSPersistentHistoryTransaction])?.map(\.transactionNumber) == [3])

            let all = try stack.transactions()
            let byDate = try #require(NSPersistentHistoryTransaction.fetchRequest)
            byDate.predicate = NSPredicate(format: "timestamp >= %@", all[2].timestamp as NSDate)
            let dated = try stack.history(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byDate))
            #expect((dated as? [NSPersistentHistoryTransaction])?.last?.transactionNumber == 3)

            let updates = try #require(NSPersistentHistoryChange.fetchRequest)
            updates.predicate = NSPredicate(format: "changeType == %d", NSPersistentHistoryChangeType.update.rawValue)
            let request = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: updates)
            request.resultType = .changesOnly
            let changes = try stack.history(request) as? [NSPersistentHistoryChange]
            #expect(changes?.count == 1)
            #expect(changes?.first?.transaction?.transactionNumber == 3)

            let tags = try #require(NSPersistentHistoryChange.fetchRequest)
            tags.predicate = NSPredicate(format: "changedEntity == %@", "HistTag")
            let tagRequest = NSPersistentHistoryChangeRequest.fetchHistory(withFetch: tags)
            let tagTransactions = try stack.history(tagRequest) as? [NSPersistentHistoryTransaction]
            #expect(tagTransactions?.map(\.transactionNumber) == [1, 2])
            #expect(tagTransactions?.allSatisfy { $0.changes?.map(\.changedObjectID.entity.name) == ["HistTag"] } == true)
        }

        @Test func everyResultType() throws {
            let stack = try threeTransactions()
            func run(_ type: NSPersistentHistoryResultType) throws -> Any? {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
                request.resultType = type
                return try stack.history(request)
            }
            #expect(try run(.statusOnly) as? Bool == true)
            #expect(try run(.count) as? Int == 3)
            #expect((try run(.objectIDs) as? [NSManagedObjectID])?.count == 4)
            let bare = try run(.transactionsOnly) as? [NSPersistentHistoryTransaction]
            #expect(bare?.count == 3)
            #expect(bare?.allSatisfy { $0.changes == nil } == true)
            #expect(
                (try run(.changesOnly) as? [NSPersistentHistoryChange])?.map(\.changeType) == [
                    .insert, .insert, .insert, .insert, .update,
                ])
            let full = try run(.transactionsAndChanges) as? [NSPersistentHistoryTransaction]
            #expect(full?.map { $0.changes?.count ?? -1 } == [2, 2, 1])
        }

        @Test(arguments: HistoryTests.storeTypes)
        func deleteHistoryBeforeTokenDateAndTransaction(type: String) throws {
            let stack = try threeTransactions(type: type)
            let all = try stack.transactions()
            let deleteRequest = NSPersistentHistoryChangeRequest.deleteHistory(before: all[0].token)
            deleteRequest.resultType = .count
            #expect(try stack.history(deleteRequest) as? Int == 1)
            #expect(try stack.transactions().map(\.transactionNumber) == [2, 3])
            _ = try stack.history(NSPersistentHistoryChangeRequest.deleteHistory(before: all[2]))
            #expect(try stack.transactions().map(\.transactionNumber) == [3])
            _ = try stack.history(NSPersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(60)))
            #expect(try stack.transactions().isEmpty)
            // Numbers go on after deleted history.
            try HistoryTests.insertItem("after", in: stack.context())
            #expect(try stack.transactions().map(\.transactionNumber) == [4])
        }

        @Test(arguments: HistoryTests.storeTypes)
        func aTokenOlderThanDeletedHistoryIsExpired(type: String) throws {
            let stack = try threeTransactions(type: type)
            let all = try stack.transactions()
            _ = try stack.history(NSPersistentHistoryChangeRequest.deleteHistory(before: all[1].token))
            let error = #expect(throws: NSError.self) { try stack.transactions(after: all[0].token) }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSPersistentHistoryTokenExpiredError)
            // The token of the last deleted transaction is still good: nothing after it is gone.
            #expect(try stack.transactions(after: all[1].token).map(\.transactionNumber) == [3])
        }

        @Test func aTokenOfAnotherStoreIsAnError() throws {
            let stack = try threeTransactions()
            let other = try Stack(at: scratch.file("other.sqlite"))
            try HistoryTests.insertItem("elsewhere", in: other.context())
            let foreign = try #require(other.coordinator.currentPersistentHistoryToken(fromStores: nil))
            let error = #expect(throws: NSError.self) { try stack.transactions(after: foreign) }
            #expect(error?.code == NSPersistentHistoryTokenExpiredError)
        }

        @Test func tokensRoundTripThroughJSONAndKeyedArchives() throws {
            let stack = try threeTransactions()
            let token = try #require(stack.coordinator.currentPersistentHistoryToken(fromStores: nil))
            let json = try JSONEncoder().encode(token)
            let decoded = try JSONDecoder().decode(NSPersistentHistoryToken.self, from: json)
            #expect(decoded == token)
            #expect(decoded != (try stack.transactions().first?.token))

            let archive = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
            let unarchived = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: archive)
            #expect(unarchived == token)
            try HistoryTests.insertItem("new", in: stack.context())
            #expect(try stack.transactions(after: unarchived).count == 1)
        }

        @Test(arguments: HistoryTests.storeTypes)
        func objectIDNotificationMergesATransactionIntoAnotherContext(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let reader = stack.context()
            let itemID = try HistoryTests.insertItem("shown", in: stack.context())
            let item = try reader.performAndWait { try reader.existingObject(with: itemID) }
            #expect(reader.performAndWait { item.value(forKey: "title") as? String } == "shown")
            let writer = stack.context(author: "other")
            try writer.performAndWait {
                try writer.existingObject(with: itemID).setValue("renamed", forKey: "title")
                let added = NSEntityDescription.insertNewObject(forEntityName: "HistTag", into: writer)
                added.setValue("new", forKey: "name")
                try writer.save()
            }
            let transaction = try #require(try stack.transactions().last)
            let notification = transaction.objectIDNotification()
            #expect((notification.userInfo?[NSUpdatedObjectsKey] as? Set<NSManagedObjectID>) == [itemID])
            #expect((notification.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObjectID>)?.count == 1)
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: notification) }
            #expect(reader.performAndWait { item.value(forKey: "title") as? String } == "renamed")
        }
    }
}

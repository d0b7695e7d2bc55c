import Foundation
import Testing

@testable import Strata

extension HistoryTests {
    /// Every save records one transaction (author, context name, bundle, process, time) with a
    /// change per object: inserts, updates with the properties written, deletes with their
    /// tombstones; in each store type.
    @Suite struct RecordingTests {
        private let scratch = Scratch()

        @Test(arguments: HistoryTests.storeTypes)
        func insertUpdateAndDeleteAreRecordedWithAuthorAndContextName(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let context = stack.context(author: "cli", name: "editor")
            let before = Date()
            let itemID = try HistoryTests.insertItem("Buy oat milk", in: context)
            try context.performAndWait {
                let item = try context.existingObject(with: itemID)
                item.setValue("Buy oat milk and bread", forKey: "title")
                item.setValue(Int64(5), forKey: "rank")
                try context.save()
                context.delete(item)
                try context.save()
            }
            let transactions = try stack.transactions()
            #expect(transactions.count == 3)
            #expect(transactions.map(\.author) == ["cli", "cli", "cli"])
            #expect(transactions.map(\.contextName) == ["editor", "editor", "editor"])
            #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
            #expect(transactions.allSatisfy { $0.storeID == stack.store.identifier })
            #expect(transactions.allSatisfy { $0.processID == ProcessInfo.processInfo.processName && !$0.bundleID.isEmpty })
            #expect(transactions.allSatisfy { $0.timestamp >= before.addingTimeInterval(-1) && $0.timestamp <= Date() })

            let inserts = transactions[0].changes ?? []
            #expect(inserts.map(\.changeType) == [.insert, .insert])
            #expect(Set(inserts.map { $0.changedObjectID.entity.name }) == ["HistItem", "HistTag"])
            #expect(inserts.contains { $0.changedObjectID == itemID })
            #expect(inserts.allSatisfy { $0.updatedProperties == nil && $0.tombstone == nil })

            let updates = transactions[1].changes ?? []
            #expect(updates.count == 1)
            #expect(updates.first?.changeType == .update)
            #expect(updates.first?.changedObjectID == itemID)
            #expect(updates.first.map(HistoryTests.updatedNames) == ["rank", "title"])
            #expect(updates.first?.transaction === transactions[1])

            // Deleting the item also updates its tag (the inverse lets go of it).
            let deletes = transactions[2].changes ?? []
            let delete = try #require(deletes.first { $0.changeType == .delete })
            #expect(delete.changedObjectID == itemID)
            #expect(delete.tombstone?["title"] as? String == "Buy oat milk and bread")
            #expect(delete.tombstone?["due"] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
            #expect(delete.tombstone?["rank"] == nil)
            let tagUpdate = try #require(deletes.first { $0.changeType == .update })
            #expect(HistoryTests.updatedNames(tagUpdate) == ["items"])
        }

        @Test(arguments: HistoryTests.storeTypes)
        func batchRequestsAreRecorded(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let context = stack.context(author: "importer")
            try context.performAndWait {
                let insert = NSBatchInsertRequest(
                    entityName: "HistItem", objects: [["title": "a", "rank": 1], ["title": "b", "rank": 2]])
                _ = try context.execute(insert)
                let update = NSBatchUpdateRequest(entityName: "HistItem")
                update.propertiesToUpdate = ["rank": 9]
                update.predicate = NSPredicate(format: "title == %@", "a")
                _ = try context.execute(update)
                let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "HistItem"))
                _ = try context.execute(delete)
            }
            let transactions = try stack.transactions()
            #expect(transactions.count == 3)
            #expect(transactions.allSatisfy { $0.author == "importer" })
            #expect(transactions[0].changes?.map(\.changeType) == [.insert, .insert])
            #expect(transactions[1].changes?.map(\.changeType) == [.update])
            #expect(transactions[1].changes?.first.map(HistoryTests.updatedNames) == ["rank"])
            let deletes = transactions[2].changes ?? []
            #expect(deletes.map(\.changeType) == [.delete, .delete])
            #expect(Set(deletes.compactMap { $0.tombstone?["title"] as? String }) == ["a", "b"])
            // The IDs the history gives are the rows the batch wrote.
            #expect(Set(deletes.map(\.changedObjectID)) == Set(transactions[0].changes?.map(\.changedObjectID) ?? []))
        }

        @Test(arguments: HistoryTests.storeTypes)
        func batchDeleteRecordsTheRowsItsCascadesReach(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch))
            let context = stack.context()
            let listID = try context.performAndWait {
                let list = NSEntityDescription.insertNewObject(forEntityName: "HistList", into: context)
                for title in ["x", "y"] {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "HistItem", into: context)
                    item.setValue(title, forKey: "title")
                    item.setValue(list, forKey: "list")
                }
                try context.save()
                return list.objectID
            }
            try context.performAndWait { _ = try context.execute(NSBatchDeleteRequest(objectIDs: [listID])) }
            let last = try #require(try stack.transactions().last)
            let deleted = (last.changes ?? []).filter { $0.changeType == .delete }
            #expect(deleted.count == 3)
            #expect(Set(deleted.map { $0.changedObjectID.entity.name }) == ["HistList", "HistItem"])
            #expect(Set(deleted.compactMap { $0.tombstone?["title"] as? String }) == ["x", "y"])
        }

        @Test func aSaveWithoutChangesRecordsNothingAndHistoryOffRecordsNothing() throws {
            let tracked = try Stack(at: scratch.file("on.sqlite"))
            let context = tracked.context()
            try context.performAndWait { try context.save() }
            #expect(try tracked.transactions().isEmpty)

            let untracked = try Stack(at: scratch.file("off.sqlite"), tracking: false)
            try HistoryTests.insertItem("quiet", in: untracked.context())
            let result = try untracked.history(
                NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect((result as? [NSPersistentHistoryTransaction])?.isEmpty == true)
            #expect(untracked.coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        }

        @Test(arguments: HistoryTests.storeTypes)
        func valuesOptionRecordsOldAndNewValuesOfUpdates(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch), values: true)
            let context = stack.context()
            let itemID = try HistoryTests.insertItem("draft", in: context)
            let listID = try context.performAndWait {
                let item = try context.existingObject(with: itemID)
                let list = NSEntityDescription.insertNewObject(forEntityName: "HistList", into: context)
                item.setValue("final", forKey: "title")
                item.setValue(list, forKey: "list")
                try context.save()
                return list.objectID
            }
            let update = try #require(try stack.transactions().last?.changes?.first { $0.changedObjectID == itemID })
            #expect(update.previousValues?["title"] as? String == "draft")
            #expect(update.updatedValues?["title"] as? String == "final")
            #expect(update.updatedValues?["list"] as? NSManagedObjectID == listID)
            #expect(update.previousValues?["list"] == nil)
        }

        /// To-many members live outside the object's row (a join table, the other side's
        /// column): the old ones are read before the save writes the new ones.
        @Test(arguments: HistoryTests.storeTypes)
        func valuesOptionRecordsOldAndNewToManyMembers(type: String) throws {
            let stack = try Stack(type: type, at: HistoryTests.url(for: type, in: scratch), values: true)
            let context = stack.context()
            let (item, tags, lists) = try context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "HistItem", into: context)
                let tags = (0..<3).map { _ in NSEntityDescription.insertNewObject(forEntityName: "HistTag", into: context) }
                let lists = (0..<2).map { _ in NSEntityDescription.insertNewObject(forEntityName: "HistList", into: context) }
                item.setValue(NSSet(array: [tags[0], tags[1]]), forKey: "tags")
                item.setValue(lists[0], forKey: "list")
                try context.save()
                return (item.objectID, tags.map(\.objectID), lists.map(\.objectID))
            }
            try context.performAndWait {
                let object = try context.existingObject(with: item)
                object.setValue(
                    NSSet(array: [try context.existingObject(with: tags[1]), try context.existingObject(with: tags[2])]),
                    forKey: "tags")
                object.setValue(try context.existingObject(with: lists[1]), forKey: "list")
                try context.save()
            }
            let changes = try #require(try stack.transactions().last?.changes)
            func members(_ value: Any?) -> Set<NSManagedObjectID>? {
                switch value {
                case let ids as [NSManagedObjectID]: Set(ids)
                case let ids as Set<NSManagedObjectID>: ids
                case let set as NSSet: Set(set.allObjects.compactMap { $0 as? NSManagedObjectID })
                default: nil
                }
            }
            let itemUpdate = try #require(changes.first { $0.changedObjectID == item && $0.changeType == .update })
            #expect(members(itemUpdate.previousValues?["tags"]) == [tags[0], tags[1]])
            #expect(members(itemUpdate.updatedValues?["tags"]) == [tags[1], tags[2]])
            // The lists' side of the move: the old list loses the item, the new one gains it.
            let oldList = try #require(changes.first { $0.changedObjectID == lists[0] && $0.changeType == .update })
            #expect(members(oldList.previousValues?["items"]) == [item])
            #expect(members(oldList.updatedValues?["items"]) == [])
            let newList = try #require(changes.first { $0.changedObjectID == lists[1] && $0.changeType == .update })
            #expect(members(newList.previousValues?["items"]) == [])
            #expect(members(newList.updatedValues?["items"]) == [item])
            // A tag that left: its items lose the item.
            let leftTag = try #require(changes.first { $0.changedObjectID == tags[0] && $0.changeType == .update })
            #expect(members(leftTag.previousValues?["items"]) == [item])
            #expect(members(leftTag.updatedValues?["items"]) == [])
        }

        @Test(arguments: [NSSQLiteStoreType, NSBinaryStoreType])
        func historyOutlivesTheCoordinator(type: String) throws {
            let url = HistoryTests.url(for: type, in: scratch)
            let first = try Stack(type: type, at: url)
            try HistoryTests.insertItem("kept", in: first.context(author: "a"))
            let token = try #require(first.coordinator.currentPersistentHistoryToken(fromStores: nil))
            try first.close()
            let second = try Stack(type: type, at: url)
            try HistoryTests.insertItem("later", in: second.context(author: "b"))
            #expect(try second.transactions().map(\.author) == ["a", "b"])
            let after = try second.transactions(after: token)
            #expect(after.map(\.author) == ["b"])
            #expect(after.first?.transactionNumber == 2)
        }
    }
}

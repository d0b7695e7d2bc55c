import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// Uniqueness constraints in batch insert: an upsert decided by the executing context's
    /// merge policy, for duplicates inside one request and for rows matching stored ones.
    @Suite struct BatchUpsertTests {
        /// The policy types and the name each leaves stored when `张八` comes first and `张九`
        /// second with the same id (issue 20's table).
        static let table: [(NSMergePolicyType, String)] = [
            (.errorMergePolicyType, "张八"),
            (.mergeByPropertyStoreTrumpMergePolicyType, "张八"),
            (.mergeByPropertyObjectTrumpMergePolicyType, "张九"),
            (.overwriteMergePolicyType, "张九"),
            (.rollbackMergePolicyType, "张八"),
        ]

        @Test(arguments: BatchTests.storeTypes, 0..<5)
        func duplicatesInOneRequestFollowThePolicy(type: String, row: Int) throws {
            let (policy, expected) = Self.table[row]
            let stack = try Stack(type)
            let context = stack.context(NSMergePolicy(merge: policy))
            try context.performAndWait {
                let insert = NSBatchInsertRequest(
                    entityName: "User", objects: [["id": "8", "name": "张八", "age": 8], ["id": "8", "name": "张九"]])
                _ = try context.execute(insert)
            }
            #expect(try stack.values("User", "name") == [expected])
        }

        @Test(arguments: BatchTests.storeTypes, 0..<5)
        func aRowMatchingAStoredRowFollowsThePolicy(type: String, row: Int) throws {
            let (policy, expected) = Self.table[row]
            let stack = try Stack(type)
            let stored = try stack.save("User", [["id": "8", "name": "张八", "age": Int16(8)]])
            let context = stack.context(NSMergePolicy(merge: policy))
            try context.performAndWait {
                let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "8", "name": "张九"], ["id": "9"]])
                insert.resultType = .objectIDs
                let ids = try #require((try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                // A replaced row keeps its identity; a kept one is not reported as written.
                #expect(ids.contains(stored[0]) == (expected == "张九"))
            }
            #expect(try stack.values("User", "name") == ["nil", expected])
            // Object-trump writes only the keys the row gave; overwrite writes every attribute.
            let ages = try stack.values("User", "age")
            #expect(ages == (policy == .overwriteMergePolicyType ? ["0", "0"] : ["0", "8"]))
        }

        /// A context holding the stored row sees the upserted values once it merges the IDs.
        @Test func upsertedRowsMergeIntoContexts() throws {
            let stack = try Stack()
            let stored = try stack.save("User", [["id": "8", "name": "张八"]])
            let viewContext = stack.context()
            let user = try viewContext.performAndWait { try viewContext.existingObject(with: stored[0]) }
            let context = stack.context(NSMergeByPropertyObjectTrumpMergePolicy)
            let ids = try context.performAndWait {
                let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "8", "name": "张九"]])
                insert.resultType = .objectIDs
                return try #require((try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
            }
            #expect(viewContext.performAndWait { user.value(forKey: "name") as? String } == "张八")
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: ids], into: [viewContext])
            #expect(viewContext.performAndWait { user.value(forKey: "name") as? String } == "张九")
        }
    }
}

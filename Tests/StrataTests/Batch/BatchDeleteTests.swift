import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// `NSBatchDeleteRequest`: fetch requests (predicate, sort, limit), object IDs, result
    /// types and merging into contexts.
    @Suite struct BatchDeleteTests {
        @Test(arguments: BatchTests.storeTypes)
        func deletesWhatTheFetchSelects(type: String) throws {
            let stack = try Stack(type)
            try stack.save("User", (1...6).map { ["id": "\($0)", "age": Int16($0 * 10)] })
            let context = stack.context()
            try context.performAndWait {
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "User")
                request.predicate = NSPredicate(format: "age > 15")
                request.sortDescriptors = [NSSortDescriptor(key: "age", ascending: false)]
                request.fetchLimit = 2
                let delete = NSBatchDeleteRequest(fetchRequest: request)
                delete.resultType = .resultTypeCount
                let result = try #require(try context.execute(delete) as? NSBatchDeleteResult)
                #expect(result.resultType == .resultTypeCount)
                #expect(result.result as? Int == 2)
            }
            #expect(try stack.values("User", "age") == ["10", "20", "30", "40"])
        }

        @Test(arguments: BatchTests.storeTypes)
        func typedRequestsAndObjectIDs(type: String) throws {
            let stack = try Stack(type)
            let ids = try stack.save("User", (1...4).map { ["id": "\($0)"] })
            let context = stack.context()
            try context.performAndWait {
                let typed = NSFetchRequest<NSManagedObject>(entityName: "User")
                typed.predicate = NSPredicate(format: "id == %@", "1")
                let delete = NSBatchDeleteRequest(fetchRequest: typed)
                delete.resultType = .resultTypeObjectIDs
                #expect((try? context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID] == [ids[0]])

                let byID = NSBatchDeleteRequest(objectIDs: [ids[1], ids[3]])
                #expect((try? context.execute(byID) as? NSBatchDeleteResult)?.result as? Bool == true)
            }
            #expect(try stack.values("User", "id") == ["3"])
        }

        /// The contexts keep the objects until the IDs are merged; then they are gone, and a
        /// deleted object's values read nil.
        @Test(arguments: BatchTests.storeTypes)
        func mergedDeletionsLeaveContexts(type: String) throws {
            let stack = try Stack(type)
            let ids = try stack.save("User", [["id": "1", "name": "张三"], ["id": "2", "name": "李四"]])
            let viewContext = stack.context()
            let user = try viewContext.performAndWait { try viewContext.existingObject(with: ids[0]) }
            #expect(viewContext.performAndWait { user.value(forKey: "name") as? String } == "张三")
            let context = stack.context()
            let deleted = try context.performAndWait {
                let delete = NSBatchDeleteRequest(objectIDs: [ids[0]])
                delete.resultType = .resultTypeObjectIDs
                return try #require((try context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
            }
            #expect(viewContext.performAndWait { viewContext.registeredObject(for: ids[0]) } != nil)
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [viewContext])
            viewContext.performAndWait {
                #expect(viewContext.registeredObject(for: ids[0]) == nil)
                #expect(user.value(forKey: "name") == nil)
            }
            #expect(try stack.values("User", "name") == ["李四"])
        }
    }
}

extension BatchTests.BatchDeleteTests {
    /// Rows whose deletion touches no other row go with one `DELETE`: predicate, sort,
    /// limit, subentities and IDs as for any other.
    @Test(arguments: BatchTests.storeTypes)
    func rowsWithoutRulesGoInOneStatement(type: String) throws {
        let stack = try BatchTests.Stack(type)
        let ids = try stack.save("Product", (1...5).map { ["name": "p\($0)", "price": Double($0)] })
        let gadget = try stack.save("Gadget", [["name": "g", "price": 9.0]])
        let context = stack.context()
        try context.performAndWait {
            let cheapest = NSFetchRequest<NSFetchRequestResult>(entityName: "Product")
            cheapest.predicate = NSPredicate(format: "price < 4")
            cheapest.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            cheapest.fetchLimit = 2
            let first = NSBatchDeleteRequest(fetchRequest: cheapest)
            first.resultType = .resultTypeObjectIDs
            let deleted = try #require((try context.execute(first) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
            #expect(Set(deleted) == Set(ids.prefix(2)))

            let products = NSFetchRequest<NSFetchRequestResult>(entityName: "Product")
            products.includesSubentities = false
            products.predicate = NSPredicate(format: "price > 4")
            let second = NSBatchDeleteRequest(fetchRequest: products)
            second.resultType = .resultTypeCount
            #expect((try context.execute(second) as? NSBatchDeleteResult)?.result as? Int == 1)
        }
        #expect(try stack.values("Product", "name") == ["g", "p3", "p4"])
        #expect(gadget.count == 1)
    }
}

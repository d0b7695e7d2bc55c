import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// Batch requests through `NSPersistentStoreCoordinator.execute(_:with:)`, predicates
    /// through relationships, and requests the coordinator refuses.
    @Suite struct BatchCoordinatorTests {
        @Test(arguments: BatchTests.storeTypes)
        func coordinatorRunsEachRequest(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "1", "age": 30], ["id": "2", "age": 40]])
            insert.resultType = .count
            let inserted = try stack.coordinator.execute(insert, with: context) as? NSBatchInsertResult
            #expect(inserted?.result as? Int == 2)

            let update = NSBatchUpdateRequest(entityName: "User")
            update.predicate = NSPredicate(format: "age >= 35")
            update.propertiesToUpdate = ["age": NSExpression(format: "age + 1")]
            update.resultType = .updatedObjectsCountResultType
            #expect((try stack.coordinator.execute(update, with: context) as? NSBatchUpdateResult)?.result as? Int == 1)
            #expect(try stack.values("User", "age") == ["30", "41"])

            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "User"))
            delete.resultType = .resultTypeCount
            #expect((try stack.coordinator.execute(delete, with: context) as? NSBatchDeleteResult)?.result as? Int == 2)
            #expect(try stack.count("User") == 0)
        }

        /// A predicate through a to-one relationship selects the rows to update and delete.
        @Test(arguments: BatchTests.storeTypes)
        func predicatesThroughRelationships(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            try context.performAndWait {
                for (teamName, users) in [("红", ["1", "2"]), ("蓝", ["3"])] {
                    let team = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
                    team.setValue(teamName, forKey: "name")
                    for id in users {
                        let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                        user.setValue(id, forKey: "id")
                        user.setValue(team, forKey: "team")
                    }
                }
                try context.save()
                let update = NSBatchUpdateRequest(entityName: "User")
                update.predicate = NSPredicate(format: "team.name == %@", "红")
                update.propertiesToUpdate = ["city": "上海"]
                update.resultType = .updatedObjectsCountResultType
                #expect((try? context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 2)

                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "User")
                request.predicate = NSPredicate(format: "team.name == %@", "蓝")
                let delete = NSBatchDeleteRequest(fetchRequest: request)
                delete.resultType = .resultTypeCount
                #expect((try? context.execute(delete) as? NSBatchDeleteResult)?.result as? Int == 1)
            }
            #expect(try stack.values("User", "city") == ["上海", "上海"])
        }

        @Test func requestsThatCannotRunAreRefused() throws {
            let stack = try Stack()
            let context = stack.context()
            let update = NSBatchUpdateRequest(entityName: "User")
            update.propertiesToUpdate = ["photo": NSExpression(format: "photo")]
            let error = #expect(throws: NSError.self) { try stack.coordinator.execute(update, with: context) }
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
            let fetch = #expect(throws: NSError.self) {
                try stack.coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "User"), with: context)
            }
            #expect(fetch?.code == NSPersistentStoreUnsupportedRequestTypeError)
            let unknown = #expect(throws: NSError.self) {
                try context.performAndWait { try context.execute(NSBatchInsertRequest(entityName: "Nobody", objects: [])) }
            }
            #expect(unknown?.domain == NSCocoaErrorDomain)
        }
    }
}

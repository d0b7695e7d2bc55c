import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// `NSBatchUpdateRequest`: constants and expressions, predicates, subentities, result
    /// types, versions, derived attributes and merging into contexts.
    @Suite struct BatchUpdateTests {
        static func products(_ stack: Stack) throws -> [NSManagedObjectID] {
            try stack.save(
                "Product",
                [
                    ["name": "tea", "price": 10.0, "onSale": true],
                    ["name": "rice", "price": 20.0, "onSale": false],
                ]) + stack.save("Gadget", [["name": "lamp", "price": 30.0, "onSale": true]])
        }

        @Test(arguments: BatchTests.storeTypes)
        func updatesMatchingRowsWithConstantsAndExpressions(type: String) throws {
            let stack = try Stack(type)
            try Self.products(stack)
            let before = Date()
            let context = stack.context()
            try context.performAndWait {
                let update = NSBatchUpdateRequest(entityName: "Product")
                update.predicate = NSPredicate(format: "onSale == YES")
                update.propertiesToUpdate = [
                    "price": NSExpression(format: "price * 1.1"), "checkedAt": NSExpression(format: "now()"),
                    "name": "sold",
                ]
                update.resultType = .updatedObjectsCountResultType
                let result = try #require(try context.execute(update) as? NSBatchUpdateResult)
                #expect(result.resultType == .updatedObjectsCountResultType)
                #expect(result.result as? Int == 2)
            }
            #expect(try stack.values("Product", "price") == ["11.0", "20.0", "33.0"])
            #expect(try stack.values("Product", "name") == ["rice", "sold", "sold"])
            let fresh = stack.context()
            try fresh.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Product")
                request.predicate = NSPredicate(format: "onSale == YES")
                for product in try fresh.fetch(request) {
                    let checked = try #require(product.value(forKey: "checkedAt") as? Date)
                    #expect(checked.timeIntervalSince(before) > -1 && checked.timeIntervalSinceNow < 1)
                    // The derived attribute follows the new name.
                    #expect(product.value(forKey: "upperName") as? String == "SOLD")
                }
            }
        }

        @Test(arguments: BatchTests.storeTypes)
        func subentitiesAndResultTypes(type: String) throws {
            let stack = try Stack(type)
            let ids = try Self.products(stack)
            let context = stack.context()
            try context.performAndWait {
                let update = NSBatchUpdateRequest(entityName: "Product")
                update.includesSubentities = false
                update.propertiesToUpdate = ["onSale": false]
                update.resultType = .updatedObjectIDsResultType
                let updated = try #require((try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
                #expect(Set(updated) == Set(ids.prefix(2)))

                let status = NSBatchUpdateRequest(
                    entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Gadget"]))
                status.propertiesToUpdate = [NSString(string: "battery") as AnyHashable: 5]
                #expect((try? context.execute(status) as? NSBatchUpdateResult)?.result as? Bool == true)
            }
            #expect(try stack.values("Product", "onSale") == ["false", "false", "true"])
            #expect(try stack.values("Gadget", "battery") == ["5"])
        }

        @Test(arguments: BatchTests.storeTypes)
        func badValuesChangeNothing(type: String) throws {
            let stack = try Stack(type)
            try Self.products(stack)
            let context = stack.context()
            let cases: [[AnyHashable: Any]] = [
                ["price": "cheap"], ["weight": 3], ["upperName": "X"], ["name": "ok", "onSale": Date()],
            ]
            for properties in cases {
                let update = NSBatchUpdateRequest(entityName: "Product")
                update.propertiesToUpdate = properties
                let error = #expect(throws: NSError.self) { try context.performAndWait { try context.execute(update) } }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == NSManagedObjectValidationError, "\(properties)")
            }
            #expect(try stack.values("Product", "name") == ["lamp", "rice", "tea"])
        }

        /// After the merge a context shows the new values; a context that kept an old version
        /// and changed it gets an optimistic-locking conflict at save.
        @Test(arguments: BatchTests.storeTypes)
        func versionsMoveAndMergesShowNewValues(type: String) throws {
            let stack = try Stack(type)
            let ids = try Self.products(stack)
            let viewContext = stack.context()
            let stale = stack.context()
            let tea = try viewContext.performAndWait { try viewContext.existingObject(with: ids[0]) }
            let staleTea = try stale.performAndWait { try stale.existingObject(with: ids[0]) }
            #expect(stale.performAndWait { staleTea.value(forKey: "name") as? String } == "tea")
            let context = stack.context()
            let updated = try context.performAndWait {
                let update = NSBatchUpdateRequest(entityName: "Product")
                update.predicate = NSPredicate(format: "name == %@", "tea")
                update.propertiesToUpdate = ["price": 12.5]
                update.resultType = .updatedObjectIDsResultType
                return try #require((try context.execute(update) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
            }
            #expect(updated == [ids[0]])
            #expect(viewContext.performAndWait { tea.value(forKey: "price") as? Double } == 10)
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [viewContext])
            #expect(viewContext.performAndWait { tea.value(forKey: "price") as? Double } == 12.5)

            let error = #expect(throws: NSError.self) {
                try stale.performAndWait {
                    staleTea.setValue("green tea", forKey: "name")
                    try stale.save()
                }
            }
            #expect(error?.code == NSManagedObjectMergeError)
            if type == NSSQLiteStoreType {
                #expect(try stack.sql("SELECT Z_OPT FROM ZPRODUCT ORDER BY Z_PK", as: Int64.self) == [2, 1, 1])
            }
        }

        /// Values read through a to-one relationship: each row takes its own destination's
        /// value, and a row without a destination gets nil; predicates through relationships
        /// choose the rows.
        @Test(arguments: BatchTests.storeTypes)
        func valuesThroughToOneRelationships(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            try context.performAndWait {
                let red = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
                red.setValue("red", forKey: "name")
                let blue = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
                blue.setValue("blue", forKey: "name")
                for (id, team) in [("1", red), ("2", blue), ("3", red), ("4", nil)] as [(String, NSManagedObject?)] {
                    let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                    user.setValue(id, forKey: "id")
                    user.setValue("u\(id)", forKey: "name")
                    user.setValue(team, forKey: "team")
                }
                try context.save()
                let copy = NSBatchUpdateRequest(entityName: "User")
                copy.propertiesToUpdate = ["city": NSExpression(format: "team.name")]
                copy.resultType = .updatedObjectsCountResultType
                #expect((try context.execute(copy) as? NSBatchUpdateResult)?.result as? Int == 4)
                let joined = NSBatchUpdateRequest(entityName: "User")
                joined.predicate = NSPredicate(format: "team.name == 'red' AND id != '3'")
                joined.propertiesToUpdate = ["name": NSExpression(format: "team.name"), "age": NSExpression(format: "age + 7")]
                joined.resultType = .updatedObjectIDsResultType
                let ids = try #require((try context.execute(joined) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
                #expect(ids.count == 1)
            }
            let fresh = stack.context()
            try fresh.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "User")
                request.sortDescriptors = [NSSortDescriptor(key: "id", ascending: true)]
                let users = try fresh.fetch(request)
                #expect(users.map { $0.value(forKey: "city") as? String } == ["red", "blue", "red", nil])
                #expect(users.map { $0.value(forKey: "name") as? String } == ["red", "u2", "u3", "u4"])
                #expect(users.map { $0.value(forKey: "age") as? Int16 } == [7, 0, 0, 0])
            }
        }

        /// A large binary constant for an attribute with external storage goes to a file of
        /// each row's own, so that deleting one row leaves the others' values; the replaced
        /// file is removed.
        @Test func externalBinaryConstantsGetAFilePerRow() throws {
            let stack = try Stack()
            try stack.save("User", [["id": "1", "photo": Data(repeating: 1, count: 200_000)], ["id": "2"], ["id": "3"]])
            let folder = stack.folder.appendingPathComponent(".batch.store_SUPPORT/_EXTERNAL_DATA")
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            #expect(before.count == 1)
            let photo = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0) })
            let context = stack.context()
            try context.performAndWait {
                let update = NSBatchUpdateRequest(entityName: "User")
                update.predicate = NSPredicate(format: "id != '3'")
                update.propertiesToUpdate = ["photo": photo]
                _ = try context.execute(update)
            }
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
            #expect(after.count == 2)
            #expect(after.isDisjoint(with: before))
            for name in after {
                #expect(FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) == photo)
            }
            // The column holds Apple's 38-byte marker, not the value.
            #expect(try stack.sql("SELECT length(ZPHOTO) FROM ZUSER ORDER BY Z_PK", as: Int64.self) == [38, 38, nil])
            try context.performAndWait {
                let delete = NSFetchRequest<NSFetchRequestResult>(entityName: "User")
                delete.predicate = NSPredicate(format: "id == '1'")
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: delete))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
            let fresh = stack.context()
            let stored = try fresh.performAndWait {
                let request = NSFetchRequest<NSManagedObject>(entityName: "User")
                request.predicate = NSPredicate(format: "id == '2'")
                return try fresh.fetch(request).first?.value(forKey: "photo") as? Data
            }
            #expect(stored == photo)
            // An expression cannot give an externally stored attribute its value.
            let error = #expect(throws: NSError.self) {
                try context.performAndWait {
                    let update = NSBatchUpdateRequest(entityName: "User")
                    update.propertiesToUpdate = ["photo": NSExpression(format: "photo")]
                    _ = try context.execute(update)
                }
            }
            #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
        }
    }
}

import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// Delete rules in batch delete, as Apple's current systems apply them: cascade (two levels),
    /// nullify (foreign keys and many-to-many join rows), deny (nothing deleted), and the
    /// external files of deleted rows.
    @Suite struct BatchDeleteRuleTests {
        /// Two owners, each with two pets, each pet with two toys.
        static func owners(_ stack: Stack) throws -> [NSManagedObjectID] {
            let context = stack.context()
            return try context.performAndWait {
                var owners: [NSManagedObject] = []
                for owner in ["甲", "乙"] {
                    let made = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                    made.setValue(owner, forKey: "name")
                    for pet in 1...2 {
                        let madePet = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
                        madePet.setValue("\(owner)\(pet)", forKey: "name")
                        madePet.setValue(made, forKey: "owner")
                        for toy in 1...2 {
                            let madeToy = NSEntityDescription.insertNewObject(forEntityName: "Toy", into: context)
                            madeToy.setValue("\(owner)\(pet)-\(toy)", forKey: "name")
                            madeToy.setValue(madePet, forKey: "pet")
                        }
                    }
                    owners.append(made)
                }
                try context.save()
                return owners.map(\.objectID)
            }
        }

        @Test(arguments: BatchTests.storeTypes)
        func cascadesReachRelatedRowsRecursively(type: String) throws {
            let stack = try Stack(type)
            let owners = try Self.owners(stack)
            let context = stack.context()
            try context.performAndWait {
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Owner")
                request.predicate = NSPredicate(format: "name == %@", "甲")
                let delete = NSBatchDeleteRequest(fetchRequest: request)
                delete.resultType = .resultTypeObjectIDs
                let ids = try #require((try context.execute(delete) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
                #expect(ids.count == 7)
                #expect(ids.contains(owners[0]))
            }
            #expect(try stack.values("Owner", "name") == ["乙"])
            #expect(try stack.values("Pet", "name") == ["乙1", "乙2"])
            #expect(try stack.values("Toy", "name") == ["乙1-1", "乙1-2", "乙2-1", "乙2-2"])
        }

        @Test(arguments: BatchTests.storeTypes)
        func nullifyClearsForeignKeysAndJoinRows(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            let (teamID, userIDs, labelID) = try context.performAndWait {
                let team = NSEntityDescription.insertNewObject(forEntityName: "Team", into: context)
                let label = NSEntityDescription.insertNewObject(forEntityName: "Label", into: context)
                let users = (1...2).map { number -> NSManagedObject in
                    let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                    user.setValue("\(number)", forKey: "id")
                    user.setValue(team, forKey: "team")
                    user.setValue(NSSet(object: label), forKey: "labels")
                    return user
                }
                try context.save()
                return (team.objectID, users.map(\.objectID), label.objectID)
            }
            try context.performAndWait {
                _ = try context.execute(NSBatchDeleteRequest(objectIDs: [teamID, userIDs[0]]))
            }
            let fresh = stack.context()
            try fresh.performAndWait {
                let user = try fresh.existingObject(with: userIDs[1])
                #expect(user.value(forKey: "team") == nil)
                let label = try fresh.existingObject(with: labelID)
                let users = (label.value(forKey: "users") as? Set<NSManagedObject>) ?? []
                #expect(users.map(\.objectID) == [userIDs[1]])
            }
            if type == NSSQLiteStoreType {
                #expect(try stack.sql("SELECT ZTEAM FROM ZUSER", as: Int64.self) == [nil])
                let join = try #require(
                    try stack.sql(
                        "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE')",
                        as: String.self
                    ).first ?? nil)
                #expect(try stack.sql("SELECT count(*) FROM \(join)", as: Int.self) == [1])
            }
        }

        @Test(arguments: BatchTests.storeTypes)
        func denyRefusesTheWholeRequest(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            let shelves = try context.performAndWait {
                let full = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                full.setValue("full", forKey: "label")
                let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
                volume.setValue(full, forKey: "shelf")
                let empty = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                empty.setValue("empty", forKey: "label")
                try context.save()
                return [empty.objectID, full.objectID]
            }
            let error = #expect(throws: NSError.self) {
                try context.performAndWait { try context.execute(NSBatchDeleteRequest(objectIDs: shelves)) }
            }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSValidationRelationshipDeniedDeleteError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "volumes")
            #expect(try stack.values("Shelf", "label") == ["empty", "full"])
            // Deleting the shelf's volumes with it is allowed: nothing is left to deny.
            try context.performAndWait {
                let volumes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Volume")).map(\.objectID)
                _ = try context.execute(NSBatchDeleteRequest(objectIDs: shelves + volumes))
            }
            #expect(try stack.count("Shelf") == 0)
        }

        @Test func externalFilesOfDeletedRowsAreRemoved() throws {
            let stack = try Stack()
            try stack.save("User", [["id": "1", "photo": Data(repeating: 1, count: 200_000)], ["id": "2"]])
            let folder = stack.folder.appendingPathComponent(".batch.store_SUPPORT/_EXTERNAL_DATA")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
            let context = stack.context()
            try context.performAndWait {
                _ = try context.execute(
                    NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "User")))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        }
    }
}

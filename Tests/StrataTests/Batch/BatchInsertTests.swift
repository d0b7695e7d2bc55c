import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// `NSBatchInsertRequest`: its forms, result types, checks against the model, defaults and
    /// keys, on every store type.
    @Suite struct BatchInsertTests {
        /// The issue's seed code, unchanged: insert with IDs, delete with IDs, merge.
        @Test func seedCodeCompilesAndRuns() throws {
            let stack = try Stack()
            let context = stack.context()
            let viewContext = stack.context()
            try context.performAndWait {
                let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "0001", "name": "张三", "age": 2]])
                insert.resultType = .objectIDs
                let ids = (try context.execute(insert) as! NSBatchInsertResult).result as? [NSManagedObjectID] ?? []
                #expect(ids.count == 1)
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: "User")
                let delete = NSBatchDeleteRequest(fetchRequest: request as! NSFetchRequest<NSFetchRequestResult>)
                delete.resultType = .resultTypeObjectIDs
                let deleted = (try context.execute(delete) as! NSBatchDeleteResult).result as? [NSManagedObjectID] ?? []
                NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [viewContext])
                #expect(deleted == ids)
            }
            #expect(try stack.count("User") == 0)
        }

        @Test(arguments: BatchTests.storeTypes)
        func insertsRowsWithEveryResultType(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            try context.performAndWait {
                let first = NSBatchInsertRequest(entityName: "User", objects: [["id": "1", "name": "张三", "age": 2]])
                let status = try #require(context.execute(first) as? NSBatchInsertResult)
                #expect(status.resultType == .statusOnly)
                #expect(status.result as? Bool == true)

                let second = NSBatchInsertRequest(
                    entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["User"]),
                    objects: [["id": "2", "name": "李四", "age": Int16(7)], ["id": "3", "name": "王五"]])
                second.resultType = .count
                #expect((try? context.execute(second) as? NSBatchInsertResult)?.result as? Int == 2)

                let third = NSBatchInsertRequest(entityName: "User", objects: [["id": "4", "name": "赵六"]])
                third.resultType = .objectIDs
                let ids = try #require((try context.execute(third) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                #expect(ids.count == 1)
                let object = try context.existingObject(with: ids[0])
                #expect(object.value(forKey: "name") as? String == "赵六")
                // Defaults fill what a row leaves out.
                #expect(object.value(forKey: "age") as? Int16 == 0)
                #expect(object.value(forKey: "city") as? String == "北京")
            }
            #expect(try stack.values("User", "name") == ["张三", "李四", "王五", "赵六"])
            #expect(try stack.values("User", "age") == ["0", "0", "2", "7"])
        }

        @Test(arguments: BatchTests.storeTypes)
        func handlersInsertUntilTheyReturnTrue(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            try context.performAndWait {
                var next = 0
                let dictionaries = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
                    guard next < 3 else { return true }
                    next += 1
                    row["id"] = "d\(next)"
                    row["age"] = next
                    return false
                }
                dictionaries.resultType = .count
                #expect((try? context.execute(dictionaries) as? NSBatchInsertResult)?.result as? Int == 3)

                var made = 0
                let objects = NSBatchInsertRequest(entityName: "User") { (object: NSManagedObject) in
                    guard made < 2 else { return true }
                    made += 1
                    object.setValue("o\(made)", forKey: "id")
                    object.setValue("对象\(made)", forKey: "name")
                    return false
                }
                objects.resultType = .count
                #expect((try? context.execute(objects) as? NSBatchInsertResult)?.result as? Int == 2)
            }
            #expect(try stack.values("User", "id") == ["d1", "d2", "d3", "o1", "o2"])
            #expect(try stack.values("User", "age") == ["0", "0", "1", "2", "3"])
        }

        /// The handler's dictionary behaves as a dictionary: it starts empty for each row, reads
        /// back what was set (values of other types as given), counts and lists its keys, and
        /// forgets removed keys; the row it inserts is what it held when the handler returned.
        @Test func theHandlersDictionaryIsADictionary() throws {
            let stack = try Stack()
            let context = stack.context()
            var seen: [String] = []
            try context.performAndWait {
                var next = 0
                let insert = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
                    seen.append("count \(row.count)")
                    guard next < 2 else { return true }
                    next += 1
                    row["id"] = "h\(next)"
                    row["age"] = 30  // an Int for an Integer 16 attribute: converted
                    row["name"] = "first"
                    row["name"] = "名\(next)"
                    row.setObject("上海", forKey: "city" as NSString)
                    row["photo"] = Data([1])
                    row.removeObject(forKey: "photo")
                    seen.append("\(row["name"] ?? "nil") \(row["age"] ?? "nil") \(row["photo"] ?? "nil") \(row.count)")
                    seen.append(
                        (row.allKeys.compactMap { $0 as? String ?? ($0 as? NSString).map { String($0) } }).sorted().joined(
                            separator: ","))
                    if next == 2 { row["city"] = NSNull() }
                    return false
                }
                _ = try context.execute(insert)
            }
            #expect(
                seen == [
                    "count 0", "名1 30 nil 4", "age,city,id,name", "count 0", "名2 30 nil 4", "age,city,id,name", "count 0",
                ])
            #expect(try stack.values("User", "name") == ["名1", "名2"])
            #expect(try stack.values("User", "age") == ["30", "30"])
            #expect(try stack.values("User", "city") == ["nil", "上海"])
            #expect(try stack.sql("SELECT count(*) FROM ZUSER WHERE ZPHOTO IS NULL", as: Int64.self) == [2])
        }

        /// Bad values set through the handler's dictionary fail the request as bad dictionaries do.
        @Test func badHandlerValuesFailTheWholeRequest() throws {
            let stack = try Stack()
            let context = stack.context()
            let cases: [(NSMutableDictionary) -> Void] = [
                { $0["age"] = "old" }, { $0["shoeSize"] = 42 }, { $0["team"] = NSNull() }, { $0["id"] = nil },
                { $0[7] = "seven" },
                {
                    $0["age"] = Int16.max; $0["age"] = 100_000
                },
            ]
            for (number, fill) in cases.enumerated() {
                var rows = 0
                let insert = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
                    guard rows < 2 else { return true }
                    rows += 1
                    row["id"] = "r\(rows)"
                    if rows == 2 { fill(row) }
                    return false
                }
                let error = #expect(throws: NSError.self, "case \(number)") {
                    try context.performAndWait { try context.execute(insert) }
                }
                #expect(error?.domain == NSCocoaErrorDomain)
            }
            #expect(try stack.count("User") == 0)
        }

        @Test(arguments: BatchTests.storeTypes)
        func badRowsFailTheWholeRequest(type: String) throws {
            let stack = try Stack(type)
            let context = stack.context()
            let cases: [([String: Any], Int)] = [
                (["id": "x", "age": "old"], NSManagedObjectValidationError),
                (["id": "x", "shoeSize": 42], NSManagedObjectValidationError),
                (["id": "x", "team": NSNull()], NSManagedObjectValidationError),
                (["name": "no id"], NSValidationMissingMandatoryPropertyError),
                (["id": "x", "age": 100_000], NSManagedObjectValidationError),
            ]
            for (bad, code) in cases {
                let insert = NSBatchInsertRequest(entityName: "User", objects: [["id": "good", "name": "好"], bad])
                let error = #expect(throws: NSError.self) { try context.performAndWait { try context.execute(insert) } }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == code, "\(bad)")
            }
            #expect(try stack.count("User") == 0)
        }

        /// New rows take keys from `Z_PRIMARYKEY`, which records them, so a context's insert
        /// after the batch gets the next key.
        @Test func keysAreRecordedInThePrimaryKeyTable() throws {
            let stack = try Stack()
            try stack.save("User", [["id": "a"]])
            let context = stack.context()
            try context.performAndWait {
                let insert = NSBatchInsertRequest(entityName: "User", objects: (1...3).map { ["id": "b\($0)"] })
                insert.resultType = .objectIDs
                let ids = try #require((try context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
                #expect(ids.map(\.primaryKey) == [2, 3, 4])
            }
            let ent = try stack.sql("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'User'", as: Int64.self).first ?? nil
            #expect(try stack.sql("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'User'", as: Int64.self) == [4])
            #expect(try stack.sql("SELECT DISTINCT Z_ENT FROM ZUSER", as: Int64.self) == [ent])
            #expect(try stack.sql("SELECT Z_OPT FROM ZUSER ORDER BY Z_PK", as: Int64.self) == [1, 1, 1, 1])
            let saved = try stack.save("User", [["id": "c"]])
            #expect(saved.map(\.primaryKey) == [5])
        }

        /// Large binary values go to files beside the store, as a save writes them.
        @Test func largeValuesGoToExternalFiles() throws {
            let stack = try Stack()
            let context = stack.context()
            let photo = Data(repeating: 7, count: 200_000)
            try context.performAndWait {
                _ = try context.execute(NSBatchInsertRequest(entityName: "User", objects: [["id": "p", "photo": photo]]))
            }
            let folder = stack.folder.appendingPathComponent(".batch.store_SUPPORT/_EXTERNAL_DATA")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
            let fresh = stack.context()
            try fresh.performAndWait {
                let user = try #require(try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "User")).first)
                #expect(user.value(forKey: "photo") as? Data == photo)
            }
        }
    }
}

extension BatchTests.BatchInsertTests {
    /// Derived attributes of inserted rows are computed as for saved ones.
    @Test(arguments: BatchTests.storeTypes)
    func derivedAttributesOfInsertedRows(type: String) throws {
        let stack = try BatchTests.Stack(type)
        let context = stack.context()
        try context.performAndWait {
            _ = try context.execute(
                NSBatchInsertRequest(entityName: "Gadget", objects: [["name": "lamp", "battery": 3], ["name": "fan"]]))
        }
        #expect(try stack.values("Product", "upperName") == ["FAN", "LAMP"])
        #expect(try stack.values("Gadget", "battery") == ["0", "3"])
    }
}

import Foundation
import Testing

@testable import Strata

extension BatchTests {
    /// The dictionary a batch insert's handler fills: keys as Swift strings or `NSString`s, an
    /// empty dictionary for every row (the same one when the handler keeps no reference to it),
    /// and the request's errors for keys the entity has no attribute for.
    @Suite struct BatchHandlerDictionaryTests {
        /// Inserts `count` rows through a handler given the row's number (from 1).
        static func insert(_ stack: Stack, rows count: Int, _ fill: @escaping (Int, NSMutableDictionary) -> Void) throws {
            let context = stack.context()
            try context.performAndWait {
                var next = 0
                let insert = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
                    guard next < count else { return true }
                    next += 1
                    fill(next, row)
                    return false
                }
                _ = try context.execute(insert)
            }
        }

        @Test(arguments: BatchTests.storeTypes)
        func keysMayBeStringsOrNSStrings(type: String) throws {
            let stack = try Stack(type)
            try Self.insert(stack, rows: 3) { n, row in
                switch n {
                case 1:
                    row["id"] = "u1"
                    row["name"] = "字符串"
                    row["age"] = Int16(31)
                case 2:
                    row[NSString(string: "id")] = "u2"
                    row.setObject(NSString(string: "对象"), forKey: NSString(string: "name"))
                    row[NSString(string: "age")] = NSNumber(value: 32)
                default:
                    // A key set as one form and replaced as the other is one key.
                    row["id"] = "u3"
                    row["name"] = "first"
                    row[NSString(string: "name")] = "second"
                    row[NSString(string: "age")] = Int16(1)
                    row["age"] = Int16(33)
                }
            }
            #expect(try stack.values("User", "id") == ["u1", "u2", "u3"])
            #expect(try stack.values("User", "name") == ["second", "字符串", "对象"])
            #expect(try stack.values("User", "age") == ["31", "32", "33"])
        }

        /// Apple's documentation says only that the handler is given a dictionary to fill for
        /// each object; here it is always empty, so a key the handler does not set takes the
        /// model's default, never the previous row's value.
        @Test(arguments: BatchTests.storeTypes)
        func aRowKeepsNothingOfThePreviousRow(type: String) throws {
            let stack = try Stack(type)
            var counts: [Int] = []
            var names: [String] = []
            try Self.insert(stack, rows: 4) { n, row in
                counts.append(row.count)
                names.append("\(row["name"] ?? "nil")")
                row["id"] = "r\(n)"
                if n % 2 == 1 {
                    row["name"] = "名\(n)"
                    row["age"] = Int16(n)
                    row["city"] = "上海"
                }
            }
            #expect(counts == [0, 0, 0, 0])
            #expect(names == ["nil", "nil", "nil", "nil"])
            #expect(try stack.values("User", "name") == ["nil", "nil", "名1", "名3"])
            #expect(try stack.values("User", "age") == ["0", "0", "1", "3"])
            #expect(try stack.values("User", "city") == ["上海", "上海", "北京", "北京"])
        }

        /// A handler that keeps no reference gets the same dictionary again; one that keeps the
        /// dictionaries finds each as it left it, and each row gets a new one.
        @Test func keptDictionariesAreLeftAsTheHandlerLeftThem() throws {
            let stack = try Stack()
            weak var first: NSMutableDictionary?
            var same: [Bool] = []
            try Self.insert(stack, rows: 3) { n, row in
                if n == 1 { first = row } else { same.append(row === first) }
                row["id"] = "s\(n)"
            }
            #expect(same == [true, true])

            var kept: [NSMutableDictionary] = []
            try Self.insert(stack, rows: 3) { n, row in
                kept.append(row)
                row["id"] = "k\(n)"
                row["age"] = Int16(n)
            }
            #expect(Set(kept.map(ObjectIdentifier.init)).count == 3)
            #expect(kept.map { "\($0["id"] ?? "nil") \($0["age"] ?? "nil") \($0.count)" } == ["k1 1 2", "k2 2 2", "k3 3 2"])
            #expect(try stack.values("User", "id") == ["k1", "k2", "k3", "s1", "s2", "s3"])
        }

        /// A key the entity has no property for, or one that is not a string, fails the whole
        /// request with Apple's validation error naming the key.
        @Test(arguments: BatchTests.storeTypes)
        func unknownKeysFailTheRequest(type: String) throws {
            let stack = try Stack(type)
            let cases: [(AnyHashable, String)] = [("shoeSize", "shoeSize"), (NSString(string: "shoeSize"), "shoeSize"), (7, "7")]
            for (key, name) in cases {
                let error = #expect(throws: NSError.self, "\(key)") {
                    try Self.insert(stack, rows: 2) { n, row in
                        row["id"] = "x\(n)"
                        if n == 2 { row[key] = Int16(42) }
                    }
                }
                #expect(error?.domain == NSCocoaErrorDomain)
                #expect(error?.code == NSManagedObjectValidationError)
                #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == name)
            }
            #expect(try stack.count("User") == 0)
        }

        /// Through the handler, an object-trump upsert writes only the keys each row set over
        /// the stored row; a key left unset is not written over it.
        @Test func objectTrumpUpsertsWriteTheKeysTheHandlerSet() throws {
            let stack = try Stack()
            try stack.save("User", [["id": "8", "name": "张八", "age": Int16(8)], ["id": "9", "name": "张九", "age": Int16(9)]])
            let context = stack.context(NSMergeByPropertyObjectTrumpMergePolicy)
            try context.performAndWait {
                var next = 0
                let insert = NSBatchInsertRequest(entityName: "User") { (row: NSMutableDictionary) in
                    next += 1
                    switch next {
                    case 1:
                        row["id"] = "8"
                        row["name"] = "新八"
                    case 2:
                        row["id"] = "9"
                        row["age"] = Int16(90)
                    default:
                        return true
                    }
                    return false
                }
                _ = try context.execute(insert)
            }
            #expect(try stack.values("User", "name") == ["张九", "新八"])
            #expect(try stack.values("User", "age") == ["8", "90"])
        }
    }
}

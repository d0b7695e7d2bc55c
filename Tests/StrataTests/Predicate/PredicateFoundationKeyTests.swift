import Foundation
import Testing

@testable import Strata

/// Keys of Foundation values, read as key-value coding reads them on Apple's systems.
@Suite struct PredicateFoundationKeyTests {
    @Test func descriptionOfStringsAndNumbers() {
        let words: [Any] = ["Do", "Re", "Mi"]
        let found = words.filter { NSPredicate(format: "description == 'Do'").evaluate(with: $0) }
        #expect(found as? [String] == ["Do"])
        #expect(NSPredicate(format: "description == '3'").evaluate(with: 3))
        #expect(NSPredicate(format: "description == '2.5'").evaluate(with: 2.5))
        #expect(NSPredicate(format: "SELF.description BEGINSWITH 'M'").evaluate(with: "Mi"))
    }

    @Test func lengthOfStringsCountsUTF16Units() {
        #expect(NSPredicate(format: "length == 6").evaluate(with: "Strata"))
        #expect(NSPredicate(format: "length == 2").evaluate(with: "😀"))
        #expect(!NSPredicate(format: "length > 6").evaluate(with: "Strata"))
    }

    @Test func countOfACollectionIsAtCountAndAPlainKeyReadsEachElement() {
        let list: [Any] = ["a", "bb", "ccc"]
        #expect(NSPredicate(format: "@count == 3").evaluate(with: list))
        #expect(NSPredicate(format: "SELF.@count == 3").evaluate(with: list))
        // `length` of an array is each element's length, as NSArray's value(forKey:) gives.
        #expect(NSPredicate(format: "ANY length == 2").evaluate(with: list))
        #expect(!NSPredicate(format: "ANY length == 4").evaluate(with: list))
        // A dictionary's `count` is its value for the key "count".
        #expect(NSPredicate(format: "count == 7").evaluate(with: ["count": 7, "other": 1]))
        #expect(!NSPredicate(format: "count == 2").evaluate(with: ["a": 7, "b": 1]))
        #expect(NSPredicate(format: "@count == 2").evaluate(with: ["a": 7, "b": 1]))
    }

    @Test func numberValuesOfStrings() {
        #expect(NSPredicate(format: "intValue == 12").evaluate(with: "12abc"))
        #expect(NSPredicate(format: "doubleValue == 2.5").evaluate(with: " 2.5"))
        #expect(NSPredicate(format: "doubleValue == 150").evaluate(with: "1.5e2 apples"))
        #expect(NSPredicate(format: "doubleValue == -0.5").evaluate(with: "-.5"))
        #expect(NSPredicate(format: "doubleValue == 7").evaluate(with: "7e"))
        #expect(NSPredicate(format: "doubleValue == 0").evaluate(with: "apples"))
        #expect(NSPredicate(format: "boolValue == YES").evaluate(with: "YES"))
        #expect(NSPredicate(format: "boolValue == NO").evaluate(with: "0.0"))
        #expect(NSPredicate(format: "uppercaseString == 'DO'").evaluate(with: "Do"))
    }

    @Test func storedPropertiesOfSwiftObjectsAreReadByName() {
        final class Person {
            let name: String
            let age: Int
            init(name: String, age: Int) { (self.name, self.age) = (name, age) }
        }
        struct Pet { var name: String }
        let people = [Person(name: "Ada", age: 36), Person(name: "Alan", age: 41)]
        let older = people.filter { NSPredicate(format: "age > 40").evaluate(with: $0) }
        #expect(older.map(\.name) == ["Alan"])
        #expect(NSPredicate(format: "name == 'Rex'").evaluate(with: Pet(name: "Rex")))
        #expect(!NSPredicate(format: "missing == 'Rex'").evaluate(with: Pet(name: "Rex")))
    }

    @Test func datesAndURLs() {
        let date = Date(timeIntervalSinceReferenceDate: 100)
        #expect(NSPredicate(format: "timeIntervalSinceReferenceDate == 100").evaluate(with: date))
        let url = URL(fileURLWithPath: "/tmp/store.sqlite")
        #expect(NSPredicate(format: "lastPathComponent == 'store.sqlite' AND pathExtension == 'sqlite'").evaluate(with: url))
    }
}

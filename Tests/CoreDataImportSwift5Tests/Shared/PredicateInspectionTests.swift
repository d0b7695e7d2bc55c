import CoreData
import Testing

/// What Core Data helper libraries do with predicates, in a file that imports only CoreData:
/// name the classes in type positions, take parsed predicates apart, and rewrite them
/// (COMPAT 8, 9 and 10).
@Suite("COMPAT 10: predicates are the classes Apple's are")
struct PredicateInspectionTests {
    /// Renames key paths everywhere in a predicate, as a query-building library does.
    static func renamingKeys(_ predicate: NSPredicate, _ names: [String: String]) -> NSPredicate {
        if let compound = predicate as? NSCompoundPredicate {
            let parts: [NSPredicate] = compound.subpredicates.map { renamingKeys($0, names) }
            return NSCompoundPredicate(type: compound.compoundPredicateType, subpredicates: parts)
        }
        guard let comparison = predicate as? NSComparisonPredicate else { return predicate }
        func rename(_ expression: NSExpression) -> NSExpression {
            guard expression.expressionType == .keyPath else { return expression }
            return NSExpression(forKeyPath: names[expression.keyPath] ?? expression.keyPath)
        }
        return NSComparisonPredicate(
            leftExpression: rename(comparison.leftExpression), rightExpression: rename(comparison.rightExpression),
            modifier: comparison.comparisonPredicateModifier, type: comparison.predicateOperatorType,
            options: comparison.options)
    }

    @Test("parsed predicates are NSComparisonPredicate and NSCompoundPredicate, with readable parts")
    func inspect() throws {
        let since = Date(timeIntervalSinceReferenceDate: 0)
        let predicate = NSPredicate(format: "name CONTAINS[c] %@ AND createdAt > %@", "y", since as NSDate)
        let compound = try #require(predicate as? NSCompoundPredicate)
        #expect(compound.compoundPredicateType == .and)
        let comparisons: [NSComparisonPredicate] = compound.subpredicates.compactMap { $0 as? NSComparisonPredicate }
        #expect(comparisons.count == 2)
        let first: NSComparisonPredicate = comparisons[0]
        #expect(first.predicateOperatorType == .contains)
        #expect(first.options == .caseInsensitive)
        let left: NSExpression = first.leftExpression
        #expect(left.keyPath == "name")
        #expect(first.rightExpression.constantValue as? String == "y")
        #expect(comparisons[1].rightExpression.constantValue as? Date == since)
    }

    @Test("a rewritten predicate equals the one written by hand, and prints alike")
    func rewrite() {
        let original = NSPredicate(format: "name BEGINSWITH 'A' OR (age > 3 AND NOT name == nil)")
        let renamed = Self.renamingKeys(original, ["name": "title", "age": "rating"])
        let expected = NSPredicate(format: "title BEGINSWITH 'A' OR (rating > 3 AND NOT title == nil)")
        #expect(renamed == expected)
        #expect(renamed.description == expected.description)
        #expect(renamed.description == "title BEGINSWITH \"A\" OR (rating > 3 AND NOT title == nil)")
    }

    @Test("compounds of nothing: AND holds, OR does not")
    func emptyCompounds() {
        let none: [NSPredicate] = []
        #expect(NSCompoundPredicate(type: .and, subpredicates: none).evaluate(with: "x"))
        #expect(!NSCompoundPredicate(type: .or, subpredicates: none).evaluate(with: "x"))
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: none).description == "TRUEPREDICATE")
    }

    @Test("Foundation's types are in scope with import CoreData alone")
    func foundationComesWithCoreData() throws {
        let values: NSArray = [NSNumber(value: 1), "two", Date(timeIntervalSince1970: 0)]
        let dictionary: NSDictionary = ["url": URL(fileURLWithPath: "/tmp"), "id": UUID()]
        #expect(values.count == 3)
        #expect(dictionary["url"] as? URL == URL(fileURLWithPath: "/tmp"))
        let data = try JSONEncoder().encode(["a": 1])
        #expect(String(decoding: data, as: UTF8.self) == "{\"a\":1}")
        let words: [String] = ["Do", "Re", "Mi"]
        let filtered = words.filter { NSPredicate(format: "description == 'Do'").evaluate(with: $0) }
        #expect(filtered == ["Do"])
    }
}

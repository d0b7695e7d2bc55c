import Foundation
import Testing

@testable import Strata

/// Predicates evaluated on dictionaries read the dictionary's keys first, before any key a
/// collection answers (`count`, `#first`, `#size`…); and `predicateFormat` keeps the parentheses
/// a nested expression needs, so that it parses back to the same tree.
@Suite struct PredicateDictionaryAndPrintingTests {
    /// `SIZE`, `FIRST` and `LAST` are reserved words of Apple's grammar (case-insensitive):
    /// a key of that name is written `#size` (or passed with `%K`), as on Apple's systems, where
    /// `size == 2` does not parse.
    @Test func aDictionarysKeysAreReadByName() throws {
        let row: [String: Any] = ["name": "a", "size": 2]
        #expect(NSPredicate(format: "name == \"a\" AND #size == 2").evaluate(with: row))
        #expect(NSPredicate(format: "%K == 2", "size").evaluate(with: row))
        #expect(!NSPredicate(format: "#size == 3").evaluate(with: row))
        #expect(NSPredicate(format: "name == \"a\" AND #size == 2").evaluate(with: NSDictionary(dictionary: row)))
        let error = try #require(throws: PredicateSyntaxError.self) { try NSPredicate.parse(format: "size == 2") }
        #expect(error.expected.contains("#size"))
    }

    @Test func aDictionarysKeysComeBeforeCollectionKeys() {
        let row: [String: Any] = ["count": 7, "first": "x", "last": "y", "size": 4, "length": 9, "description": "d"]
        for (format, expected) in [
            ("count == 7", true), ("#first == 'x'", true), ("#last == 'y'", true), ("#size == 4", true),
            ("length == 9", true), ("description == 'd'", true), ("count == 6", false), ("SELF.count == 7", true),
            ("SELF['count'] == 7", true), ("SELF[SIZE] == 6", true),
        ] {
            #expect(NSPredicate(format: format).evaluate(with: row) == expected, "\(format)")
            #expect(NSPredicate(format: format).evaluate(with: NSDictionary(dictionary: row)) == expected, "\(format)")
        }
        // Keys the dictionary lacks read as nil, not as the collection's own.
        #expect(NSPredicate(format: "count == nil").evaluate(with: ["a": 1, "b": 2]))
        // The collection's count is `@count`.
        #expect(NSPredicate(format: "@count == 2").evaluate(with: ["a": 1, "b": 2]))
    }

    @Test func nestedArithmeticPrintsWhatParsesBack() throws {
        let formats = [
            #"$single LIKE ("b\"" + $b) + $c"#, #"$single LIKE "b\"" + ($b + $c)"#, "a - (b - c) == 1", "(a - b) - c == 1",
            "a * (b + c) == 1", "(a + b) * c == 1", "a / (b * c) == 1", "(a / b) * c == 1", "-(x) == 1", "-(a + b) == 1",
            "-a * b == 1", "a ** (b ** c) == 1", "(a ** b) ** c == 1", "a - -b == 1", "(a + b) - (c + d) == 1",
            "a * (b - c) / d == 1", "2 * (x + 1) > y - (z - 3)", "(a + b).c == 1", "{a + b, (c - d) * e} == x",
            "-(-x) == 1", "a - (-b + c) == 1",
        ]
        for format in formats {
            let parsed = try NSPredicate.parse(format: format)
            let printed = parsed.predicateFormat
            let reparsed = try NSPredicate.parse(format: printed)
            #expect(
                try PredicateConversion.node(of: reparsed) == PredicateConversion.node(of: parsed),
                "\(format) printed as \(printed)")
            #expect(reparsed.predicateFormat == printed, "\(format) printed as \(printed)")
        }
        #expect(NSPredicate(format: "a - (b - c) == 1").predicateFormat == "a - (b - c) == 1")
        #expect(NSPredicate(format: "a * (b + c) == 1").predicateFormat == "a * (b + c) == 1")
        #expect(NSPredicate(format: "(a + b) * c == 1").predicateFormat == "(a + b) * c == 1")
        #expect(NSPredicate(format: #"$single LIKE "b\"" + ($b + $c)"#).predicateFormat == #"$single LIKE "b\"" + ($b + $c)"#)
    }
}

import Foundation
import Testing

@testable import Strata

/// `NSPredicate(format:)` gives the classes Apple's parser gives, whose parts code can read
/// and rebuild (COMPAT.md item 10), and built predicates equal parsed ones.
@Suite struct PredicateClassTests {
    @Test func aComparisonIsAnNSComparisonPredicateWithReadableParts() throws {
        let parsed = NSPredicate(format: "name CONTAINS[cd] 'y'")
        let comparison = try #require(parsed as? NSComparisonPredicate)
        #expect(comparison.predicateOperatorType == .contains)
        #expect(comparison.comparisonPredicateModifier == .direct)
        #expect(comparison.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(comparison.leftExpression.expressionType == .keyPath)
        #expect(comparison.leftExpression.keyPath == "name")
        #expect(comparison.rightExpression.expressionType == .constantValue)
        #expect(comparison.rightExpression.constantValue as? String == "y")

        let any = try #require(NSPredicate(format: "ANY tags.title == %@", "home") as? NSComparisonPredicate)
        #expect(any.comparisonPredicateModifier == .any)
        #expect(any.leftExpression.keyPath == "tags.title")
    }

    @Test func andOrAndNotAreNSCompoundPredicatesOfTheirParts() throws {
        let parsed = NSPredicate(format: "done == NO AND (priority > 2 OR NOT title BEGINSWITH 'x')")
        let and = try #require(parsed as? NSCompoundPredicate)
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 2)
        #expect((and.subpredicates[0] as? NSComparisonPredicate)?.leftExpression.keyPath == "done")
        let or = try #require(and.subpredicates[1] as? NSCompoundPredicate)
        #expect(or.compoundPredicateType == .or)
        let not = try #require(or.subpredicates[1] as? NSCompoundPredicate)
        #expect(not.compoundPredicateType == .not)
        let inner = try #require(not.subpredicates.first as? NSComparisonPredicate)
        #expect(inner.predicateOperatorType == .beginsWith)
        // Still Foundation's class too, for code that names that one.
        #expect(parsed is Foundation.NSCompoundPredicate)
    }

    @Test func constantsAreNeitherComparisonsNorCompounds() {
        let truth = NSPredicate(format: "TRUEPREDICATE")
        #expect(!(truth is NSComparisonPredicate) && !(truth is Foundation.NSCompoundPredicate))
        #expect(truth.description == "TRUEPREDICATE")
        #expect(truth.evaluate(with: nil))
        #expect(!NSPredicate(format: "FALSEPREDICATE").evaluate(with: nil))
        #expect(truth == NSPredicate(value: true))
    }

    @Test func builtPredicatesEqualParsedOnesAndPrintAlike() {
        let built = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSComparisonPredicate(
                leftExpression: NSExpression(forKeyPath: "title"), rightExpression: NSExpression(forConstantValue: "Dune"),
                modifier: .direct, type: .equalTo, options: [.caseInsensitive]),
            NSCompoundPredicate(orPredicateWithSubpredicates: [
                NSPredicate(format: "priority > 2"), NSPredicate(format: "done == YES"),
            ]),
        ])
        let parsed = NSPredicate(format: "title ==[c] 'Dune' AND (priority > 2 OR done == YES)")
        #expect(built.predicateFormat == "title ==[c] \"Dune\" AND (priority > 2 OR done == TRUE)")
        #expect(built.description == parsed.description)
        #expect(built == parsed)
        #expect(parsed == built)
        #expect(built.hash == parsed.hash)
        #expect(built != NSPredicate(format: "title ==[c] 'Dune' AND (priority > 3 OR done == YES)"))
        let negated = NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "a == 1"))
        #expect(negated.description == "NOT a == 1")
        #expect(negated == NSPredicate(format: "NOT a == 1"))
    }

    @Test func aParsedPredicateRebuiltFromItsPartsEqualsIt() throws {
        let parsed = NSPredicate(format: "(a == 1 OR b < 2.5) AND NOT ANY tags.name IN {'x', 'y'} AND c BETWEEN {1, 5}")
        let rebuilt = try rebuild(parsed)
        #expect(rebuilt == parsed)
        #expect(rebuilt.description == parsed.description)
        #expect(PredicateObjects.predicate(for: try PredicateConversion.node(of: rebuilt)) == parsed)
    }

    /// What a helper library that rewrites predicates does: walk the classes, make new ones.
    private func rebuild(_ predicate: NSPredicate) throws -> NSPredicate {
        if let compound = predicate as? NSCompoundPredicate {
            return NSCompoundPredicate(
                type: compound.compoundPredicateType, subpredicates: try compound.subpredicates.map(rebuild))
        }
        let comparison = try #require(predicate as? NSComparisonPredicate)
        return NSComparisonPredicate(
            leftExpression: rebuild(comparison.leftExpression), rightExpression: rebuild(comparison.rightExpression),
            modifier: comparison.comparisonPredicateModifier, type: comparison.predicateOperatorType,
            options: comparison.options)
    }

    private func rebuild(_ expression: NSExpression) -> NSExpression {
        switch expression.expressionType {
        case .keyPath: NSExpression(forKeyPath: expression.keyPath)
        case .constantValue: NSExpression(forConstantValue: expression.constantValue)
        case .aggregate: NSExpression(forAggregate: (expression.collection as? [NSExpression] ?? []).map(rebuild))
        default: expression
        }
    }

    @Test func compoundsOfNothingHoldForAndNotForOr() {
        let emptyAnd = NSCompoundPredicate(type: .and, subpredicates: [])
        let emptyOr = NSCompoundPredicate(type: .or, subpredicates: [])
        #expect(emptyAnd.evaluate(with: "anything"))
        #expect(!emptyOr.evaluate(with: "anything"))
        #expect(emptyAnd.description == "TRUEPREDICATE")
        #expect(emptyOr.description == "FALSEPREDICATE")
        #expect(NSCompoundPredicate(andPredicateWithSubpredicates: []).evaluate(with: nil))
    }

    @Test func aCompoundWithABlockPredicateStillPrintsAndEvaluates() {
        let block = NSPredicate { object, _ in (object as? String) == "x" }
        let compound = NSCompoundPredicate(type: .or, subpredicates: [NSPredicate(format: "length > 3"), block])
        #expect(compound.evaluate(with: "x"))
        #expect(compound.evaluate(with: "long"))
        #expect(!compound.evaluate(with: "ab"))
        #expect(compound.description.hasPrefix("length > 3 OR "))
    }

    @Test func substitutionKeepsTheClasses() throws {
        let template = NSPredicate(format: "title == $TITLE AND priority > 1")
        let filled = template.withSubstitutionVariables(["TITLE": "Milk"])
        let compound = try #require(filled as? NSCompoundPredicate)
        let first = try #require(compound.subpredicates.first as? NSComparisonPredicate)
        #expect(first.rightExpression.constantValue as? String == "Milk")
    }

    @Test func printingKeepsTheParenthesesArithmeticNeeds() throws {
        for format in ["(\"b\" + $b) + $c == \"x\"", "\"b\" + ($b + $c) == \"x\"", "(a - b) - c > 0", "a - (b - c) > 0"] {
            let parsed = NSPredicate(format: format)
            let reparsed = NSPredicate(format: parsed.description)
            #expect(reparsed == parsed, "\(format) printed as \(parsed.description)")
        }
        #expect(NSPredicate(format: "\"b\" + ($b + $c) == \"x\"").description == "\"b\" + ($b + $c) == \"x\"")
        #expect(NSPredicate(format: "(a * (b + c)) > 1").description == "a * (b + c) > 1")
    }
}

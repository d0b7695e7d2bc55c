import Foundation

@testable import Strata

extension FuzzTarget {
    /// The bytes as a format string (UTF-8, damaged sequences replaced), parsed as a predicate
    /// and as an expression with a few arguments. A string that does not parse must give a
    /// `PredicateSyntaxError` pointing inside it. One that parses is evaluated against a few
    /// objects (which must end, whatever it asks), and its `predicateFormat` must parse back to
    /// the same format: the README promises formats that parse back.
    public static let predicate = FuzzTarget(name: "predicate") { data throws(FuzzFinding) in
        let format = String(decoding: data, as: UTF8.self)
        let predicate = try PredicateFuzzing.predicate(format)
        let expression = try PredicateFuzzing.expression(format)
        return predicate == .taken || expression == .taken ? .taken : .refused
    }
}

enum PredicateFuzzing {
    /// The values `%@`, `%d`, `%f`, `%K`… take, in order.
    nonisolated(unsafe) static let arguments: [Any?] = ["Ann", 42, 2.5, ["a", "b"], "name"]

    /// Objects of several shapes: key paths, to-many collections, nested objects, nil.
    nonisolated(unsafe) static let objects: [Any?] = [
        [
            "name": "Ann", "age": 42, "score": 2.5, "tags": ["a", "b"], "born": Date(timeIntervalSinceReferenceDate: 0),
            "friends": [["name": "Bo", "age": 7], ["name": "Éva", "age": 70]], "owner": ["name": "Cy", "age": 3],
            "data": Data([0, 1, 2]), "flag": true,
        ] as [String: Any],
        ["name": "", "tags": [String](), "friends": [[String: Any]]()] as [String: Any],
        ["a", "b", "c"],
        "Ann",
        nil,
    ]

    nonisolated(unsafe) static let variables: [String: Any] = ["X": 1, "NAME": "Ann", "LIST": [1, 2, 3]]

    static func predicate(_ format: String) throws(FuzzFinding) -> FuzzOutcome {
        let predicate: NSPredicate
        do {
            predicate = try parse(format, arguments: arguments)
        } catch let error as PredicateSyntaxError {
            try FuzzCheck.require(
                error.format == format && (0...format.count).contains(error.offset),
                "the syntax error of \(debug(format)) points outside the string: \(error)")
            return .refused
        } catch {
            throw FuzzFinding("parsing \(debug(format)) threw \(type(of: error)), not a PredicateSyntaxError: \(error)")
        }
        for object in objects {
            _ = predicate.evaluate(with: object)
            _ = predicate.evaluate(with: object, substitutionVariables: variables)
        }
        _ = predicate.withSubstitutionVariables(variables).evaluate(with: objects[0])
        let printed = predicate.predicateFormat
        let again: NSPredicate
        do {
            again = try parse(printed, arguments: [])
        } catch {
            throw FuzzFinding("the predicateFormat \(debug(printed)) of \(debug(format)) does not parse back: \(error)")
        }
        try FuzzCheck.require(
            again.predicateFormat == printed,
            "the predicateFormat of \(debug(format)) is not a fixed point: \(debug(printed)) → \(debug(again.predicateFormat))")
        return .taken
    }

    static func expression(_ format: String) throws(FuzzFinding) -> FuzzOutcome {
        let expression: Strata.NSExpression
        do throws(PredicateSyntaxError) {
            expression = Strata.NSExpression(node: try PredicateParser.parseExpression(format, arguments: arguments))
        } catch {
            try FuzzCheck.require(
                error.format == format && (0...format.count).contains(error.offset),
                "the syntax error of the expression \(debug(format)) points outside the string: \(error)")
            return .refused
        }
        for object in objects {
            _ = expression.expressionValue(with: object, context: NSMutableDictionary(dictionary: variables))
        }
        let printed = expression.expressionFormat
        let again: ExpressionNode
        do {
            again = try PredicateParser.parseExpression(printed, arguments: [])
        } catch {
            throw FuzzFinding("the expressionFormat \(debug(printed)) of \(debug(format)) does not parse back: \(error)")
        }
        try FuzzCheck.require(
            PredicateFormatter.format(again) == printed,
            "the expressionFormat of \(debug(format)) is not a fixed point: \(debug(printed))")
        return .taken
    }

    /// `NSPredicate.parse(format:_:)` with its arguments in an array.
    private static func parse(_ format: String, arguments: [Any?]) throws -> NSPredicate {
        PredicateObjects.predicate(for: try PredicateParser.parsePredicate(format, arguments: arguments))
    }

    static func debug(_ text: String) -> String { String(reflecting: text) }
}

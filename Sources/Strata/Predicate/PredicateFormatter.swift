import Foundation

/// Prints predicate and expression trees as format strings: `predicateFormat`,
/// `NSExpression.description`, fetch request templates written to model files.
///
/// The output is Apple's canonical form (`title ==[c] "x"`, `ANY tags.name == "a"`,
/// `a == 1 AND (b == 2 OR c == 3)`, `SUBQUERY(friends, $f, $f.age > 40).@count > 1`), and
/// `PredicateParser` reads it back to an equal tree. Where Apple's form would not read back
/// the same, the round trip wins:
/// - Booleans print as `TRUE`/`FALSE` (Apple prints `1`/`0`), doubles keep their decimal
///   point (`3.0`; Apple prints `3`), so that they stay Booleans and doubles.
/// - Dates print as `CAST(<seconds since 2001>, "NSDate")` as Apple does; UUIDs, URLs, data
///   and decimals, which Apple prints unreadably, print as `CAST("…", "NSUUID")`,
///   `"NSURL"`, `"NSData"` (base64) and `"NSDecimalNumber"`, which the parser folds back.
///
/// What does not read back to an equal tree: object constants (managed objects, object IDs:
/// they print as their `description`, like Apple's); array, set and dictionary constants
/// (they print as `{…}` aggregates, which parse to `.aggregate` of constants); `AND`/`OR`
/// of fewer than two terms (printed as `TRUEPREDICATE`, `FALSEPREDICATE` or the one term);
/// NaN; `.member` of `SELF`'s key path written as a member; names (key path components,
/// variables, functions) that are not identifiers.
enum PredicateFormatter {
    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let comparison): format(comparison)
        case .and(let terms): compound(terms, joinedBy: "AND", whenEmpty: "TRUEPREDICATE")
        case .or(let terms): compound(terms, joinedBy: "OR", whenEmpty: "FALSEPREDICATE")
        case .not(let inner): "NOT " + subpredicate(inner)
        }
    }

    static func format(_ node: ExpressionNode) -> String {
        expression(node).text
    }

    // MARK: Predicates

    private static func compound(_ terms: [PredicateNode], joinedBy word: String, whenEmpty: String) -> String {
        if terms.isEmpty { return whenEmpty }
        if terms.count == 1 { return format(terms[0]) }
        return terms.map(subpredicate).joined(separator: " \(word) ")
    }

    /// A term of `AND`, `OR` or `NOT`: compound terms keep parentheses, so that nesting as
    /// written (`(a AND b) AND c`) reads back as written.
    private static func subpredicate(_ node: PredicateNode) -> String {
        isCompound(node) ? "(\(format(node)))" : format(node)
    }

    private static func isCompound(_ node: PredicateNode) -> Bool {
        switch node {
        case .and(let terms), .or(let terms): terms.count == 1 ? isCompound(terms[0]) : terms.count > 1
        case .constant, .comparison, .not: false
        }
    }

    private static func format(_ comparison: ComparisonNode) -> String {
        let modifier = ["", "ALL ", "ANY "][Int(comparison.modifier.rawValue)]
        let operators: [ComparisonNode.Operator: String] = [
            .lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">=",
            .equalTo: "==", .notEqualTo: "!=", .matches: "MATCHES", .like: "LIKE", .beginsWith: "BEGINSWITH",
            .endsWith: "ENDSWITH", .in: "IN", .contains: "CONTAINS", .between: "BETWEEN",
        ]
        let letters: [(ComparisonNode.Options, String)] = [
            (.caseInsensitive, "c"), (.diacriticInsensitive, "d"), (.normalized, "n"), (.localeSensitive, "l"),
        ]
        let options = letters.filter { comparison.options.contains($0.0) }.map(\.1).joined()
        let op = (operators[comparison.op] ?? "==") + (options.isEmpty ? "" : "[\(options)]")
        return "\(modifier)\(format(comparison.left)) \(op) \(format(comparison.right))"
    }

    // MARK: Expressions

    /// How tightly printed expressions bind, as the parser reads them: an operand that binds
    /// less tightly than its place requires is parenthesized.
    private enum Precedence: Int, Comparable {
        case assignment, setOperation, additive, multiplicative, power, unary, postfix

        static func < (lhs: Precedence, rhs: Precedence) -> Bool { lhs.rawValue < rhs.rawValue }

        var next: Precedence { Precedence(rawValue: rawValue + 1) ?? .postfix }
    }

    private static func expression(_ node: ExpressionNode) -> (text: String, precedence: Precedence) {
        switch node {
        case .constant(let value): (constant(value), .postfix)
        case .evaluatedObject: ("SELF", .postfix)
        case .variable(let name): ("$" + name, .postfix)
        case .keyPath(let path): (keyPath(path), .postfix)
        case .member(let base, let path): (postfixBase(base, beforeMember: true) + "." + keyPath(path), .postfix)
        case .function(let name, let arguments): function(name, arguments)
        case .aggregate(let items): ("{" + items.map(format).joined(separator: ", ") + "}", .postfix)
        case .index(let base, let kind): (postfixBase(base, beforeMember: false) + "[" + index(kind) + "]", .postfix)
        case .subquery(let collection, let variable, let predicate):
            ("SUBQUERY(\(format(collection)), $\(variable), \(format(predicate)))", .postfix)
        case .conditional(let condition, let whenTrue, let whenFalse):
            ("TERNARY(\(format(condition)), \(format(whenTrue)), \(format(whenFalse)))", .postfix)
        case .assignment(let name, let value): ("$\(name) := \(format(value))", .assignment)
        case .setOperation(let operation, let left, let right):
            binary(left, operation.rawValue, right, .setOperation)
        case .anyKey: ("ANYKEY", .postfix)
        }
    }

    private static func operand(_ node: ExpressionNode, atLeast minimum: Precedence) -> String {
        let (text, precedence) = expression(node)
        return precedence < minimum ? "(\(text))" : text
    }

    private static func binary(
        _ left: ExpressionNode, _ symbol: String, _ right: ExpressionNode, _ precedence: Precedence
    ) -> (text: String, precedence: Precedence) {
        (operand(left, atLeast: precedence) + " \(symbol) " + operand(right, atLeast: precedence.next), precedence)
    }

    /// The expression before `.key` or `[index]`. A key path (or `SELF`, or a member) before
    /// `.key` is parenthesized, else it would read back as one longer key path.
    private static func postfixBase(_ base: ExpressionNode, beforeMember: Bool) -> String {
        let (text, precedence) = expression(base)
        var parenthesize = precedence < .postfix
        switch base {
        case .keyPath, .evaluatedObject, .member: parenthesize = parenthesize || beforeMember
        case .constant(.integer), .constant(.double), .constant(.decimal): parenthesize = true
        default: break
        }
        return parenthesize ? "(\(text))" : text
    }

    private static func index(_ kind: ExpressionNode.IndexKind) -> String {
        switch kind {
        case .first: "FIRST"
        case .last: "LAST"
        case .size: "SIZE"
        case .expression(let expression): format(expression)
        }
    }

    /// Arithmetic prints as operators, `CAST` as itself, one-part selectors as `name:(…)`,
    /// functions without arguments as `name()`, and any other selector as
    /// `FUNCTION(receiver, "selector", …)` (`FUNCTION(title, "length")`).
    private static func function(
        _ name: String, _ arguments: [ExpressionNode]
    ) -> (text: String, precedence: Precedence) {
        let operators: [String: (String, Precedence)] = [
            "add:to:": ("+", .additive), "from:subtract:": ("-", .additive), "multiply:by:": ("*", .multiplicative),
            "divide:by:": ("/", .multiplicative), "raise:toPower:": ("**", .power),
        ]
        if arguments.count == 2, let (symbol, precedence) = operators[name] {
            if name == "from:subtract:", arguments[0] == .constant(.integer(0)), !isNumber(arguments[1]) {
                return ("-" + operand(arguments[1], atLeast: .unary), .unary)
            }
            return binary(arguments[0], symbol, arguments[1], precedence)
        }
        if name == "castObject:toType:", arguments.count == 2, case .constant(.string(let className)) = arguments[1],
            PredicateParser.castConstant(arguments[0], toClass: className) == nil
        {
            return ("CAST(\(format(arguments[0])), \(quoted(className)))", .postfix)
        }
        let list = arguments.map(format).joined(separator: ", ")
        if name.hasSuffix(":"), isIdentifier(String(name.dropLast())) {
            return ("\(escaped(String(name.dropLast()))):(\(list))", .postfix)
        }
        if arguments.isEmpty, isIdentifier(name) { return ("\(escaped(name))()", .postfix) }
        guard let receiver = arguments.first else { return ("\(name)()", .postfix) }
        let rest = arguments.dropFirst().map { ", " + format($0) }.joined()
        return ("FUNCTION(\(format(receiver)), \(quoted(name))\(rest))", .postfix)
    }

    private static func isNumber(_ node: ExpressionNode) -> Bool {
        switch node {
        case .constant(.integer), .constant(.double): true
        default: false
        }
    }

    // MARK: Names

    /// A key path with `#` before components that spell reserved words (`#size`).
    private static func keyPath(_ path: String) -> String {
        path.split(separator: ".", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: ".")
    }

    private static func escaped(_ name: String) -> String {
        PredicateKeyword(name) != nil && isIdentifier(name) ? "#" + name : name
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, PredicateLexer.isIdentifierStart(first) else { return false }
        return name.unicodeScalars.allSatisfy(PredicateLexer.isIdentifierContinue)
    }

    // MARK: Constants

    private static func constant(_ value: PredicateValue) -> String {
        switch value {
        case .null: "nil"
        case .bool(let flag): flag ? "TRUE" : "FALSE"
        case .integer(let integer): String(integer)
        case .double(let double): number(double)
        case .decimal(let decimal): "CAST(\(quoted(decimal.description)), \"NSDecimalNumber\")"
        case .string(let text): quoted(text)
        case .date(let date): "CAST(\(number(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
        case .data(let data): "CAST(\(quoted(data.base64EncodedString())), \"NSData\")"
        case .uuid(let uuid): "CAST(\(quoted(uuid.uuidString)), \"NSUUID\")"
        case .url(let url): "CAST(\(quoted(url.absoluteString)), \"NSURL\")"
        case .array(let values), .set(let values): "{" + values.map(constant).joined(separator: ", ") + "}"
        case .dictionary(let pairs):
            "{"
                + pairs.sorted { $0.key < $1.key }.map { "{\(quoted($0.key)), \(constant($0.value))}" }
                .joined(separator: ", ") + "}"
        case .object(let object):
            (object.object as? NSObject)?.description ?? "<\(type(of: object.object))>"
        }
    }

    /// The shortest text that reads back as the same double, with a decimal point or an
    /// exponent so that it stays a double; infinities overflow on purpose (`1e999`).
    private static func number(_ value: Double) -> String {
        if value.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
        if value.isInfinite { return value < 0 ? "-1e999" : "1e999" }
        return "\(value)"
    }

    /// A string in double quotes, with quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

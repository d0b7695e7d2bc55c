import Foundation

/// Parses Apple's predicate format strings (`NSPredicate(format:)`, `NSExpression(format:)`)
/// into `PredicateNode` and `ExpressionNode` trees. The grammar is Apple's, summarised in
/// STORE-FORMAT §4; `PredicateFormatter` prints the trees back in the same grammar.
///
/// The parser is a recursive descent over the tokens of `PredicateLexer`. Its recursion is
/// bounded (`maximumDepth`), it backs up at most over the tokens of one parenthesized
/// predicate, remembering each attempt, and every failure is a `PredicateSyntaxError`.
enum PredicateParser {
    /// The deepest nesting accepted (parentheses, braces, brackets, calls, `NOT`s, unary
    /// minuses, assignments): deeper input is an error, not a stack overflow.
    static let maximumDepth = 500

    static func parsePredicate(_ format: String, arguments: [Any?]) throws(PredicateSyntaxError) -> PredicateNode {
        var parser = try PredicateParsing(format: format, arguments: arguments)
        let predicate = try parser.predicate()
        try parser.expectEnd("AND, OR or the end of the predicate")
        return predicate
    }

    static func parseExpression(_ format: String, arguments: [Any?]) throws(PredicateSyntaxError) -> ExpressionNode {
        var parser = try PredicateParsing(format: format, arguments: arguments)
        let expression = try parser.expression()
        try parser.expectEnd("an operator or the end of the expression")
        return expression
    }

    /// The constant a `CAST` of a literal stands for: `CAST(<seconds since 2001>, "NSDate")`
    /// is how dates print, and `CAST("…", "NSUUID")`, `"NSURL"`, `"NSData"` (base64) and
    /// `"NSDecimalNumber"` print the other constants without a literal of their own, so the
    /// parser reads them back as constants. Any other `CAST` is a `castObject:toType:`
    /// function.
    static func castConstant(_ operand: ExpressionNode, toClass className: String) -> PredicateValue? {
        guard case .constant(let value) = operand else { return nil }
        switch (className, value) {
        case ("NSDate", .integer(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case ("NSDate", .double(let seconds)): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("NSUUID", .string(let text)): return UUID(uuidString: text).map { .uuid($0) }
        case ("NSURL", .string(let text)): return URL(string: text).map { .url($0) }
        case ("NSData", .string(let text)): return Data(base64Encoded: text).map { .data($0) }
        case ("NSDecimalNumber", .string(let text)) where isDecimalLiteral(text):
            return Decimal(string: text).map { .decimal($0) }
        default: return nil
        }
    }

    /// `-?digits(.digits)?(e[+-]?digits)?`: `Decimal(string:)` alone accepts "12abc" as 12.
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Bool {
            let count = scalars.prefix(while: { ("0"..."9").contains($0) }).count
            scalars = scalars.dropFirst(count)
            return count > 0
        }
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        guard digits() else { return false }
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            guard digits() else { return false }
        }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
            guard digits() else { return false }
        }
        return scalars.isEmpty
    }

    /// The value of a numeric literal, negated when a unary minus precedes it.
    static func numberValue(_ number: PredicateToken.Number, negated: Bool) -> PredicateValue {
        switch number {
        case .integer(let magnitude) where !negated:
            return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .double(Double(magnitude))
        case .integer(let magnitude):
            guard magnitude <= UInt64(Int64.max) + 1 else { return .double(-Double(magnitude)) }
            return .integer(Int64(bitPattern: 0 &- magnitude))
        case .real(let value):
            return .double(negated ? -value : value)
        }
    }
}

/// One parse: the tokens, the position, the nesting depth and the remembered attempts at
/// parenthesized predicates.
private struct PredicateParsing {
    typealias Attempt = Result<(node: PredicateNode, end: Int), PredicateSyntaxError>

    let format: String
    let tokens: [PredicateToken]
    private let scalars: [Unicode.Scalar]
    var index = 0
    private var depth = 0
    /// `(` at a predicate's start is a parenthesized predicate or the start of an expression
    /// (`(a + b) * 2 > c`): the predicate is tried first, and each try is kept by the index
    /// of its parenthesis so that nested backing up stays linear.
    private var parenthesizedAttempts: [Int: Attempt] = [:]

    init(format: String, arguments: [Any?]) throws(PredicateSyntaxError) {
        self.format = format
        (tokens, scalars) = try PredicateLexer.tokens(of: format, arguments: arguments)
    }

    var current: PredicateToken { tokens[index] }

    func token(after offset: Int) -> PredicateToken { tokens[min(index + offset, tokens.count - 1)] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    func error(_ expected: String, at token: PredicateToken? = nil) -> PredicateSyntaxError {
        let token = token ?? current
        let found = PredicateLexer.text(of: scalars, token.start..<token.end, limit: 30)
        return PredicateLexer.error(in: format, atScalar: token.start, expected: expected, found: found)
    }

    func text(of token: PredicateToken) -> String { PredicateLexer.text(of: scalars, token.start..<token.end) }

    func isSymbol(_ symbol: PredicateToken.Symbol) -> Bool { current.kind == .symbol(symbol) }

    mutating func take(_ symbol: PredicateToken.Symbol) -> Bool {
        guard isSymbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func expect(_ symbol: PredicateToken.Symbol, _ expected: String) throws(PredicateSyntaxError) {
        guard take(symbol) else { throw error(expected) }
    }

    mutating func takeKeyword(_ keywords: PredicateKeyword...) -> PredicateKeyword? {
        guard let keyword = current.keyword, keywords.contains(keyword) else { return nil }
        advance()
        return keyword
    }

    func expectEnd(_ expected: String) throws(PredicateSyntaxError) {
        guard current.kind == .end else { throw error(expected) }
    }

    /// Counts one level of nesting: parentheses, braces, brackets, calls, `NOT`, unary minus,
    /// `:=`. Every cycle of the recursion passes one. Balanced by `leave()` on every path out.
    mutating func enter() throws(PredicateSyntaxError) {
        depth += 1
        if depth > PredicateParser.maximumDepth {
            depth -= 1
            throw error("at most \(PredicateParser.maximumDepth) levels of nesting")
        }
    }

    mutating func leave() { depth -= 1 }

    // MARK: Predicates

    /// `a OR b OR c`: one `.or` of all the terms joined without parentheses, likewise `AND`.
    mutating func predicate() throws(PredicateSyntaxError) -> PredicateNode {
        var terms = [try conjunction()]
        while takeKeyword(.or) != nil || take(.or) { terms.append(try conjunction()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction() throws(PredicateSyntaxError) -> PredicateNode {
        var terms = [try negation()]
        while takeKeyword(.and) != nil || take(.and) { terms.append(try negation()) }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func negation() throws(PredicateSyntaxError) -> PredicateNode {
        guard takeKeyword(.not) != nil || take(.not) else { return try primaryPredicate() }
        try enter()
        defer { leave() }
        return .not(try negation())
    }

    private mutating func primaryPredicate() throws(PredicateSyntaxError) -> PredicateNode {
        switch current.keyword {
        case .truePredicate:
            advance()
            return .constant(true)
        case .falsePredicate:
            advance()
            return .constant(false)
        case .any, .someQuantifier:
            advance()
            return try comparison(.any)
        case .all:
            advance()
            return try comparison(.all)
        case .noneQuantifier:
            advance()
            return .not(try comparison(.any))
        default:
            return isSymbol(.openParen) ? try parenthesized() : try comparison(.direct)
        }
    }

    private mutating func parenthesized() throws(PredicateSyntaxError) -> PredicateNode {
        let start = index
        let attempt = parenthesizedAttempts[start] ?? parenthesizedPredicate()
        parenthesizedAttempts[start] = attempt
        if case .success(let result) = attempt, endsPredicate(tokens[result.end]) {
            index = result.end
            return result.node
        }
        index = start
        do {
            return try comparison(.direct)
        } catch {
            switch attempt {
            case .success(let result):
                index = result.end
                return result.node
            case .failure(let first):
                throw first.offset >= error.offset ? first : error
            }
        }
    }

    private mutating func parenthesizedPredicate() -> Attempt {
        do {
            try enter()
            defer { leave() }
            advance()
            let inner = try predicate()
            try expect(.closeParen, "a closing parenthesis")
            return .success((inner, index))
        } catch {
            return .failure(error)
        }
    }

    /// Whether a token can follow a whole predicate (rather than continue an expression).
    private func endsPredicate(_ token: PredicateToken) -> Bool {
        switch token.kind {
        case .end, .symbol(.closeParen), .symbol(.comma), .symbol(.and), .symbol(.or): return true
        default: return token.keyword == .and || token.keyword == .or
        }
    }

    private mutating func comparison(
        _ modifier: ComparisonNode.Modifier
    ) throws(PredicateSyntaxError) -> PredicateNode {
        let left = try expression()
        let op = try comparisonOperator()
        let options = try comparisonOptions()
        let right = try expression()
        return .comparison(ComparisonNode(left: left, op: op, right: right, modifier: modifier, options: options))
    }

    private static let operatorSymbols: [PredicateToken.Symbol: ComparisonNode.Operator] = [
        .equal: .equalTo, .notEqual: .notEqualTo, .less: .lessThan, .lessOrEqual: .lessThanOrEqualTo,
        .greater: .greaterThan, .greaterOrEqual: .greaterThanOrEqualTo,
    ]
    private static let operatorKeywords: [PredicateKeyword: ComparisonNode.Operator] = [
        .in: .in, .like: .like, .matches: .matches, .contains: .contains, .beginsWith: .beginsWith,
        .endsWith: .endsWith, .between: .between,
    ]

    private mutating func comparisonOperator() throws(PredicateSyntaxError) -> ComparisonNode.Operator {
        if case .symbol(let symbol) = current.kind, let op = Self.operatorSymbols[symbol] {
            advance()
            return op
        }
        if let keyword = current.keyword, let op = Self.operatorKeywords[keyword] {
            advance()
            return op
        }
        if current.keyword == .utiConformsTo || current.keyword == .utiEquals {
            throw error(
                "a comparison operator (\(text(of: current).uppercased()) needs Uniform Type Identifiers, "
                    + "unsupported on Linux)")
        }
        throw error("a comparison operator")
    }

    /// `[c]`, `[d]`, `[n]`, `[l]` in any combination, right after the operator.
    private mutating func comparisonOptions() throws(PredicateSyntaxError) -> ComparisonNode.Options {
        guard take(.openBracket) else { return [] }
        let letters: [Character: ComparisonNode.Options] = [
            "c": .caseInsensitive, "d": .diacriticInsensitive, "n": .normalized, "l": .localeSensitive,
        ]
        guard case .word(let word) = current.kind else { throw error("comparison options such as c, d, cd, n or l") }
        var options: ComparisonNode.Options = []
        for letter in word.lowercased() {
            guard let option = letters[letter] else { throw error("comparison options such as c, d, cd, n or l") }
            options.insert(option)
        }
        advance()
        try expect(.closeBracket, "] after the comparison options")
        return options
    }

    // MARK: Expressions

    /// An expression: `$x := expression`, or operators over unary expressions. Binding from
    /// loosest to tightest: `UNION INTERSECT MINUS`, `+ -`, `* /`, `**`, all left associative,
    /// then unary minus, then `.key` and `[index]`.
    mutating func expression() throws(PredicateSyntaxError) -> ExpressionNode {
        if case .variable(let name) = current.kind, token(after: 1).kind == .symbol(.assign) {
            try enter()
            defer { leave() }
            advance()
            advance()
            return .assignment(name, try expression())
        }
        return try binary(minimumPrecedence: 1)
    }

    private mutating func binary(minimumPrecedence: Int) throws(PredicateSyntaxError) -> ExpressionNode {
        var left = try unary()
        while let (precedence, combine) = binaryOperator(), precedence >= minimumPrecedence {
            advance()
            let right = try binary(minimumPrecedence: precedence + 1)
            left = combine(left, right)
        }
        return left
    }

    private func binaryOperator() -> (Int, (ExpressionNode, ExpressionNode) -> ExpressionNode)? {
        func function(_ name: String) -> (ExpressionNode, ExpressionNode) -> ExpressionNode {
            { .function(name, [$0, $1]) }
        }
        func set(_ operation: ExpressionNode.SetOperation) -> (ExpressionNode, ExpressionNode) -> ExpressionNode {
            { .setOperation(operation, $0, $1) }
        }
        switch current.kind {
        case .symbol(.plus): return (2, function("add:to:"))
        case .symbol(.minus): return (2, function("from:subtract:"))
        case .symbol(.times): return (3, function("multiply:by:"))
        case .symbol(.divide): return (3, function("divide:by:"))
        case .symbol(.power): return (4, function("raise:toPower:"))
        default: break
        }
        switch current.keyword {
        case .union: return (1, set(.union))
        case .intersect: return (1, set(.intersect))
        case .minus: return (1, set(.minus))
        default: return nil
        }
    }

    /// `-5` is the literal -5; `-x` is `0 - x` (`from:subtract:`), as Apple builds it.
    private mutating func unary() throws(PredicateSyntaxError) -> ExpressionNode {
        guard take(.minus) else { return try postfix(try primary()) }
        try enter()
        defer { leave() }
        if case .number(let number) = current.kind {
            advance()
            return try postfix(.constant(PredicateParser.numberValue(number, negated: true)))
        }
        return .function("from:subtract:", [.constant(.integer(0)), try unary()])
    }

    /// `.key.path` and `[index]` after an expression.
    private mutating func postfix(_ base: ExpressionNode) throws(PredicateSyntaxError) -> ExpressionNode {
        var result = base
        while true {
            if take(.dot) {
                result = .member(result, try keyPathComponents())
            } else if take(.openBracket) {
                result = .index(result, try indexKind())
            } else {
                return result
            }
        }
    }

    private mutating func indexKind() throws(PredicateSyntaxError) -> ExpressionNode.IndexKind {
        try enter()
        defer { leave() }
        let kinds: [PredicateKeyword: ExpressionNode.IndexKind] = [.first: .first, .last: .last, .size: .size]
        let kind: ExpressionNode.IndexKind
        if let keyword = current.keyword, let named = kinds[keyword], token(after: 1).kind == .symbol(.closeBracket) {
            advance()
            kind = named
        } else {
            kind = .expression(try expression())
        }
        try expect(.closeBracket, "] after the index")
        return kind
    }

    /// One or more components joined by dots: identifiers, `#escaped` reserved words,
    /// collection operators and `%K` arguments.
    mutating func keyPathComponents() throws(PredicateSyntaxError) -> String {
        var components: [String] = []
        repeat {
            switch current.kind {
            case .word(let word):
                if current.keyword != nil {
                    throw error("a key path component (write #\(word) for a key named like the reserved word)")
                }
                components.append(word)
            case .escapedWord(let word), .collectionOperator(let word), .keyPathArgument(let word):
                components.append(word)
            default:
                throw error("a key path component")
            }
            advance()
        } while take(.dot)
        return components.joined(separator: ".")
    }

    /// The key path that starts with `first` and continues with `.component`s.
    mutating func keyPath(startingWith first: String) throws(PredicateSyntaxError) -> ExpressionNode {
        guard take(.dot) else { return .keyPath(first) }
        return .keyPath(first + "." + (try keyPathComponents()))
    }

    // MARK: Primary expressions

    private mutating func primary() throws(PredicateSyntaxError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .number(let number):
            advance()
            return .constant(PredicateParser.numberValue(number, negated: false))
        case .string(let text):
            advance()
            return .constant(.string(text))
        case .argument(let value):
            advance()
            return .constant(value)
        case .variable(let name):
            advance()
            return .variable(name)
        case .keyPathArgument(let path), .collectionOperator(let path):
            advance()
            return try keyPath(startingWith: path)
        case .escapedWord(let word):
            advance()
            return try named(word)
        case .word(let word):
            guard let keyword = token.keyword else {
                advance()
                return try named(word)
            }
            return try keywordPrimary(keyword)
        case .symbol(.openParen):
            return try parenthesizedExpression()
        case .symbol(.openBrace):
            advance()
            return .aggregate(try list(closing: .closeBrace, "a closing brace"))
        default:
            throw error("an expression")
        }
    }

    private mutating func parenthesizedExpression() throws(PredicateSyntaxError) -> ExpressionNode {
        try enter()
        defer { leave() }
        advance()
        let inner = try expression()
        try expect(.closeParen, "a closing parenthesis")
        return inner
    }

    /// After an identifier: a call `name(args)` or `name:(args)`, or a key path.
    private mutating func named(_ name: String) throws(PredicateSyntaxError) -> ExpressionNode {
        if take(.openParen) {
            return .function(name, try list(closing: .closeParen, "a closing parenthesis"))
        }
        if take(.colon) {
            try expect(.openParen, "( with the arguments of \(name):")
            return .function(name + ":", try list(closing: .closeParen, "a closing parenthesis"))
        }
        return try keyPath(startingWith: name)
    }

    /// Comma-separated expressions up to the closing symbol (the opening one is taken).
    private mutating func list(
        closing: PredicateToken.Symbol, _ expected: String
    ) throws(PredicateSyntaxError) -> [ExpressionNode] {
        try enter()
        defer { leave() }
        if take(closing) { return [] }
        var items: [ExpressionNode] = []
        repeat {
            items.append(try expression())
        } while take(.comma)
        try expect(closing, "a comma or \(expected)")
        return items
    }

    /// The literals and calls that start with a reserved word. Each call has a function of
    /// its own: a debug build's frame is as large as all the branches of its function, and
    /// nested calls stack these frames.
    private mutating func keywordPrimary(_ keyword: PredicateKeyword) throws(PredicateSyntaxError) -> ExpressionNode {
        let token = current
        advance()
        switch keyword {
        case .trueLiteral, .yes: return .constant(.bool(true))
        case .falseLiteral, .no: return .constant(.bool(false))
        case .null, .nilLiteral: return .constant(.null)
        case .anyKey: return .anyKey
        case .selfKeyword: return take(.dot) ? .keyPath(try keyPathComponents()) : .evaluatedObject
        case .subquery: return try subquery()
        case .ternary: return try ternary()
        case .cast: return try cast()
        case .function: return try functionExpression()
        case .fetch: throw error("an expression (FETCH expressions are not supported)", at: token)
        default:
            throw error("an expression (write #\(text(of: token)) for a key named like the reserved word)", at: token)
        }
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    private mutating func subquery() throws(PredicateSyntaxError) -> ExpressionNode {
        try enter()
        defer { leave() }
        try expect(.openParen, "( after SUBQUERY")
        let collection = try expression()
        try expect(.comma, "a comma after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else { throw error("a variable such as $x") }
        advance()
        try expect(.comma, "a comma after the SUBQUERY variable")
        let predicate = try predicate()
        try expect(.closeParen, "a closing parenthesis after the SUBQUERY predicate")
        return .subquery(collection: collection, variable: variable, predicate: predicate)
    }

    /// `TERNARY(predicate, whenTrue, whenFalse)`.
    private mutating func ternary() throws(PredicateSyntaxError) -> ExpressionNode {
        try enter()
        defer { leave() }
        try expect(.openParen, "( after TERNARY")
        let condition = try predicate()
        try expect(.comma, "a comma after the TERNARY condition")
        let whenTrue = try expression()
        try expect(.comma, "a comma after the TERNARY true value")
        let whenFalse = try expression()
        try expect(.closeParen, "a closing parenthesis after TERNARY")
        return .conditional(condition, whenTrue, whenFalse)
    }

    /// `CAST(value, 'ClassName')`: a constant when it prints one (see `castConstant`), else
    /// `castObject:toType:`.
    private mutating func cast() throws(PredicateSyntaxError) -> ExpressionNode {
        try enter()
        defer { leave() }
        try expect(.openParen, "( after CAST")
        let operand = try expression()
        try expect(.comma, "a comma after the CAST value")
        let className = try stringConstant("a class name string such as 'NSDate'")
        try expect(.closeParen, "a closing parenthesis after CAST")
        if let constant = PredicateParser.castConstant(operand, toClass: className) { return .constant(constant) }
        return .function("castObject:toType:", [operand, .constant(.string(className))])
    }

    /// `FUNCTION(receiver, 'selector:', arguments…)`: the selector with the receiver first.
    private mutating func functionExpression() throws(PredicateSyntaxError) -> ExpressionNode {
        try enter()
        defer { leave() }
        try expect(.openParen, "( after FUNCTION")
        let receiver = try expression()
        try expect(.comma, "a comma after the FUNCTION receiver")
        let selector = try stringConstant("a selector name string such as 'length'")
        var arguments = [receiver]
        if take(.comma) {
            arguments += try list(closing: .closeParen, "a closing parenthesis")
        } else {
            try expect(.closeParen, "a comma or a closing parenthesis")
        }
        return .function(selector, arguments)
    }

    /// A string literal or a `%@` string argument.
    private mutating func stringConstant(_ expected: String) throws(PredicateSyntaxError) -> String {
        let token = current
        switch token.kind {
        case .string(let text) where !text.isEmpty, .argument(.string(let text)) where !text.isEmpty:
            advance()
            return text
        default:
            throw error(expected)
        }
    }
}

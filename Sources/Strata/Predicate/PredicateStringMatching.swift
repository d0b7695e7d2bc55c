import Foundation

/// The string operators of predicates with their `[c]`, `[d]` and `[n]` options, in one
/// place: the in-memory evaluator calls these, and the SQLite store registers them as SQL
/// functions, so that a predicate gives the same answer in memory and in SQL.
///
/// `[c]` folds case and `[d]` folds diacritics with Foundation's Unicode folding ("Café"
/// `==[cd]` "CAFE"; "Straße" `==[c]` "STRASSE"); `[n]` compares as given.
enum PredicateStringMatching {
    /// The string as compared under the options.
    static func fold(_ text: String, _ options: ComparisonNode.Options) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        guard !folding.isEmpty, !options.contains(.normalized) else { return text }
        return text.folding(options: folding, locale: nil)
    }

    /// Without options the strings must have the same Unicode scalars, as `isEqual:` and
    /// SQLite's `=` require (Swift's `==` would also equate other spellings of a character).
    static func equals(_ left: String, _ right: String, _ options: ComparisonNode.Options) -> Bool {
        fold(left, options).unicodeScalars.elementsEqual(fold(right, options).unicodeScalars)
    }

    static func beginsWith(_ text: String, _ prefix: String, _ options: ComparisonNode.Options) -> Bool {
        unicodeScalarsStart(fold(text, options), with: fold(prefix, options))
    }

    static func endsWith(_ text: String, _ suffix: String, _ options: ComparisonNode.Options) -> Bool {
        let folded = fold(text, options).unicodeScalars
        let ending = fold(suffix, options).unicodeScalars
        return folded.count >= ending.count && folded.suffix(ending.count).elementsEqual(ending)
    }

    static func contains(_ text: String, _ part: String, _ options: ComparisonNode.Options) -> Bool {
        let needle = fold(part, options)
        if needle.isEmpty { return true }
        return fold(text, options).range(of: needle, options: .literal) != nil
    }

    /// `LIKE`: `*` matches any run of characters, `?` one character, `\` escapes the next;
    /// the pattern covers the whole string.
    static func like(_ text: String, _ pattern: String, _ options: ComparisonNode.Options) -> Bool {
        let subject = Array(fold(text, options))
        let pattern = Array(fold(pattern, options))
        return likeMatch(subject[...], pattern[...])
    }

    private static func likeMatch(_ subject: ArraySlice<Character>, _ pattern: ArraySlice<Character>) -> Bool {
        var s = subject.startIndex
        var p = pattern.startIndex
        var star: (pattern: Int, subject: Int)?
        while s < subject.endIndex {
            if p < pattern.endIndex {
                let token = pattern[p]
                if token == "*" {
                    star = (p, s)
                    p += 1
                    continue
                }
                if token == "\\", p + 1 < pattern.endIndex, pattern[p + 1] == subject[s] {
                    p += 2
                    s += 1
                    continue
                }
                if token == "?" || (token != "\\" && token == subject[s]) {
                    p += 1
                    s += 1
                    continue
                }
            }
            guard let backtrack = star else { return false }
            p = backtrack.pattern + 1
            s = backtrack.subject + 1
            star = (backtrack.pattern, backtrack.subject + 1)
        }
        while p < pattern.endIndex, pattern[p] == "*" { p += 1 }
        return p == pattern.endIndex
    }

    /// `MATCHES`: an ICU regular expression that must match the whole string. A pattern
    /// that is not a valid expression matches nothing.
    static func matches(_ text: String, _ pattern: String, _ options: ComparisonNode.Options) -> Bool {
        var regexOptions: NSRegularExpression.Options = []
        if options.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
        let subject = options.contains(.diacriticInsensitive) ? fold(text, [.diacriticInsensitive]) : text
        let expression = options.contains(.diacriticInsensitive) ? fold(pattern, [.diacriticInsensitive]) : pattern
        guard let regex = RegexCache.regex("^(?:\(expression))$", regexOptions) else { return false }
        let range = NSRange(subject.startIndex..., in: subject)
        return regex.firstMatch(in: subject, options: [], range: range) != nil
    }

    private static func unicodeScalarsStart(_ text: String, with prefix: String) -> Bool {
        text.unicodeScalars.starts(with: prefix.unicodeScalars)
    }
}

/// Compiled regular expressions, reused across evaluations and SQL calls.
enum RegexCache {
    private static let cache = Protected([String: NSRegularExpression]())

    static func regex(_ pattern: String, _ options: NSRegularExpression.Options) -> NSRegularExpression? {
        let key = "\(options.rawValue)|\(pattern)"
        if let cached = cache.withLock({ $0[key] }) { return cached }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}

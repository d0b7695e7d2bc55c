import Foundation

/// An object that answers `FUNCTION(object, 'selector:', arguments…)` in an expression.
///
/// On Apple's platforms `FUNCTION` sends any Objective-C message to its receiver; Linux has no
/// such runtime, so receivers that mapping models call (`$manager`, `$entityPolicy`) answer
/// the selectors they know through this method instead.
protocol PredicateFunctionTarget: AnyObject {
    /// The value of the selector called with the evaluated arguments; `nil` for a selector
    /// the receiver does not answer.
    func predicateFunctionValue(_ selector: String, arguments: [Any?]) -> Any?
}

/// The Foundation methods `FUNCTION` may call on plain values (`FUNCTION($source.title,
/// 'uppercaseString')`), as Objective-C would send them: strings, numbers, dates and any
/// value's `valueForKey:`. A selector not listed gives `nil`.
enum PredicateObjectMethods {
    static func call(_ selector: String, on receiver: Any?, arguments: [Any?]) -> Any? {
        let argument = arguments.first.flatMap(PredicateValues.normalize)
        switch selector {
        case "valueForKey:", "valueForKeyPath:":
            guard let key = PredicateValues.string(argument) else { return nil }
            return PredicateKeyPaths.value(atPath: key, of: receiver)
        case "description", "stringValue":
            if let text = PredicateValues.string(receiver) { return text }
            return receiver.map { String(describing: $0) }
        default:
            break
        }
        if let text = PredicateValues.string(receiver) { return string(selector, text, argument, arguments) }
        if let number = PredicateValues.number(receiver) { return self.number(selector, number.doubleValue, number) }
        if let date = PredicateValues.normalize(receiver) as? Date {
            switch selector {
            case "timeIntervalSinceReferenceDate": return date.timeIntervalSinceReferenceDate
            case "timeIntervalSince1970": return date.timeIntervalSince1970
            case "dateByAddingTimeInterval:":
                return PredicateValues.number(argument).map { date.addingTimeInterval($0.doubleValue) }
            default: return nil
            }
        }
        return nil
    }

    private static func string(_ selector: String, _ text: String, _ argument: Any?, _ arguments: [Any?]) -> Any? {
        let other = PredicateValues.string(argument)
        let index = PredicateValues.number(argument).map { max(0, Int($0.doubleValue)) }
        switch selector {
        case "uppercaseString": return text.uppercased()
        case "lowercaseString": return text.lowercased()
        case "capitalizedString": return text.capitalized
        case "length": return Int64(text.utf16.count)
        case "integerValue", "longLongValue", "intValue": return Int64(text.trimmingCharacters(in: .whitespaces)) ?? 0
        case "doubleValue", "floatValue": return Double(text.trimmingCharacters(in: .whitespaces)) ?? 0
        case "boolValue": return ["y", "t", "1"].contains(text.lowercased().prefix(1))
        case "stringByAppendingString:": return other.map { text + $0 }
        case "hasPrefix:": return other.map { text.hasPrefix($0) }
        case "hasSuffix:": return other.map { text.hasSuffix($0) }
        case "containsString:": return other.map { text.contains($0) }
        case "componentsSeparatedByString:": return other.map { text.components(separatedBy: $0) }
        case "stringByTrimmingWhitespace", "stringByTrimmingWhitespaceAndNewlines":
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case "substringToIndex:":
            return index.map { String(decoding: Array(text.utf16.prefix($0)), as: UTF16.self) }
        case "substringFromIndex:":
            return index.map { String(decoding: Array(text.utf16.dropFirst($0)), as: UTF16.self) }
        case "stringByReplacingOccurrencesOfString:withString:":
            guard arguments.count == 2, let target = other,
                let replacement = PredicateValues.string(PredicateValues.normalize(arguments[1]))
            else { return nil }
            return text.replacingOccurrences(of: target, with: replacement)
        default: return nil
        }
    }

    private static func number(_ selector: String, _ value: Double, _ number: PredicateNumber) -> Any? {
        switch selector {
        case "integerValue", "longLongValue", "intValue": return Int64(value.rounded(.towardZero))
        case "doubleValue", "floatValue": return value
        case "boolValue": return value != 0
        default: return nil
        }
    }
}

/// Reads `NSExpression`s from keyed archives, as Xcode keeps the value expressions of a
/// mapping model's property mappings (`valueexpressiondata`): the classes
/// `NSConstantValueExpression`, `NSVariableExpression`, `NSKeyPathExpression`,
/// `NSKeyPathSpecifierExpression`, `NSFunctionExpression` (`FUNCTION(receiver, 'selector', …)`,
/// or a built-in function when the receiver is `_NSPredicateUtilities`) and aggregates.
struct ArchivedExpressionReader {
    let archive: KeyedArchive

    /// Deeper expressions come from damaged archives.
    static let maximumDepth = 64

    /// The expression of an archive whose root is one, or `nil` when it holds something else.
    static func expression(from data: Data) -> NSExpression? {
        guard let archive = try? KeyedArchive(data) else { return nil }
        return ArchivedExpressionReader(archive: archive).node(archive.root, depth: 0).map(NSExpression.init(node:))
    }

    func node(_ value: PropertyListValue?, depth: Int) -> ExpressionNode? {
        guard depth < Self.maximumDepth, let object = archive.resolve(value) else { return nil }
        let arguments = archive.elements(archive.field(object, "NSArguments")) ?? []
        switch archive.integer(object["NSExpressionType"]) {
        case 0:
            return .constant(PredicateArguments.value(archive.plainValue(object["NSConstantValue"])))
        case 1:
            return .evaluatedObject
        case 2:
            return archive.string(object["NSVariable"]).map { .variable($0) }
        case 10:
            return archive.string(object["NSKeyPath"]).map { .keyPath($0) }
        case 3, 4:
            let selector = archive.string(object["NSSelectorName"]) ?? ""
            let operandValue = archive.field(object, "NSOperand")
            let parts = arguments.compactMap { node($0, depth: depth + 1) }
            guard parts.count == arguments.count else { return nil }
            if selector == "valueForKey:" || selector == "valueForKeyPath:", parts.count == 1,
                case .keyPath(let path) = parts[0]
            {
                if archive.integer(operandValue?["NSExpressionType"]) == 1 { return .keyPath(path) }
                guard let base = node(operandValue, depth: depth + 1) else { return nil }
                return .member(base, path)
            }
            // Built-in functions (`now`, `sum:`…) are archived with `_NSPredicateUtilities` as
            // their receiver, a class rather than a value.
            let operand = archive.resolve(operandValue)
            if archive.integer(operand?["NSExpressionType"]) == 0,
                archive.string(operand?["NSConstantValueClassName"]) != nil
            {
                return .function(selector, parts)
            }
            guard let receiver = node(operandValue, depth: depth + 1) else { return nil }
            return .function(selector, [receiver] + parts)
        case 14:
            let parts = (archive.elements(archive.field(object, "NSCollection")) ?? []).compactMap {
                node($0, depth: depth + 1)
            }
            return .aggregate(parts)
        default:
            return nil
        }
    }
}

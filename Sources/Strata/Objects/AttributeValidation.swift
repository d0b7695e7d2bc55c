import Foundation

/// The rules a model sets on attribute values, checked by `validateValue(_:forKey:)` and so
/// at every save: numeric bounds (1620/1610), string and binary lengths (1670/1660), a
/// regular expression for strings (1680), and date bounds (1640/1630).
///
/// Apple folds a model file's `minValueString`, `maxValueString` and
/// `regularExpressionString` into `validationPredicates`; Strata keeps the texts and reads
/// them here, when a value is checked. A bound that is not a number is no rule at all, so
/// that a hand-edited model cannot make every save fail. `nil` values pass: only the
/// required rule looks at them.
enum AttributeValidation {
    /// A broken rule: Core Data's code and a sentence for `NSLocalizedDescriptionKey`.
    private struct Failure {
        let code: Int
        let reason: String
    }

    /// The first rule the value breaks, as Core Data's validation error; `nil` when it keeps
    /// them all.
    static func error(for value: Any?, of attribute: NSAttributeDescription, on object: NSManagedObject) -> NSError? {
        // Most attributes have no rules: nothing to convert, and no name to build, at every save.
        guard hasRules(attribute), let value, !ManagedValueCoercion.isNull(value) else { return nil }
        // Values checked on demand may still be `NSNumber`s or `NSString`s.
        let typed = ManagedValueCoercion.attributeValue(value, type: attribute.attributeType) ?? value
        let name = "\(object.entity.name ?? "?").\(attribute.name)"
        if let failure = failure(of: typed, attribute, name) {
            return CoreDataError.validation(failure.code, object: object, key: attribute.name, value: value, failure.reason)
        }
        return predicateError(for: typed, of: attribute, on: object)
    }

    /// Whether the attribute sets a bound or a pattern that `failure` can check.
    static func hasRules(_ attribute: NSAttributeDescription) -> Bool {
        func given(_ text: String?) -> Bool { !(text?.isEmpty ?? true) }
        return given(attribute.minValueString) || given(attribute.maxValueString)
            || (attribute.attributeType == .stringAttributeType && given(attribute.regularExpressionString))
            || !attribute.validationPredicates.isEmpty
    }

    /// The first validation predicate the value fails, as Core Data's error: its warning is the
    /// error's description (a string) or code (a number; 1550 otherwise), and the predicate
    /// is under `NSValidationPredicateErrorKey`.
    static func predicateError(
        for value: Any, of property: NSPropertyDescription, on object: NSManagedObject
    ) -> NSError? {
        for (position, predicate) in property.validationPredicates.enumerated() where !predicate.evaluate(with: value) {
            let warning = position < property.validationWarnings.count ? property.validationWarnings[position] : nil
            let code = (warning as? NSNumber)?.intValue ?? (warning as? Int) ?? NSManagedObjectValidationError
            let name = "\(object.entity.name ?? "?").\(property.name)"
            let reason = (warning as? String) ?? "\(name) does not satisfy \(predicate.description)."
            var error = CoreDataError.validation(code, object: object, key: property.name, value: value, reason)
            var info = error.userInfo
            info[NSValidationPredicateErrorKey] = predicate
            error = NSError(domain: error.domain, code: error.code, userInfo: info)
            return error
        }
        return nil
    }

    private static func failure(of value: Any, _ attribute: NSAttributeDescription, _ name: String) -> Failure? {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .decimalAttributeType:
            // Decimal holds every Int64 and every decimal bound exactly.
            guard let number = decimal(value), !number.isNaN else { return nil }
            return numberFailure(number, bounds(attribute, parse: decimal(text:)), name)
        case .doubleAttributeType:
            guard let number = value as? Double, !number.isNaN else { return nil }
            return numberFailure(number, bounds(attribute) { Double($0) }, name)
        case .floatAttributeType:
            // Compared as Float, so that 0.1 is within a maximum of "0.1".
            guard let number = value as? Float, !number.isNaN else { return nil }
            return numberFailure(number, bounds(attribute) { Float($0) }, name)
        case .stringAttributeType:
            guard let string = value as? String else { return nil }
            // NSString's length: UTF-16 code units, as Foundation counts on Apple's systems.
            if let failure = lengthFailure(string.utf16.count, unit: "characters", attribute, name) { return failure }
            guard let pattern = attribute.regularExpressionString, !pattern.isEmpty,
                !PredicateStringMatching.matches(string, pattern, [])
            else { return nil }
            return Failure(
                code: NSValidationStringPatternMatchingError,
                reason: "\(name) does not match the regular expression \(pattern).")
        case .binaryDataAttributeType:
            guard let data = value as? Data else { return nil }
            return lengthFailure(data.count, unit: "bytes", attribute, name)
        case .dateAttributeType:
            guard let date = value as? Date else { return nil }
            let limits = bounds(attribute) { Double($0).map(Date.init(timeIntervalSinceReferenceDate:)) }
            if let min = limits.min, date < min {
                return Failure(code: NSValidationDateTooSoonError, reason: "\(name) is \(date), before \(min).")
            }
            if let max = limits.max, date > max {
                return Failure(code: NSValidationDateTooLateError, reason: "\(name) is \(date), after \(max).")
            }
            return nil
        default:
            return nil
        }
    }

    private static func numberFailure<Number: Comparable>(
        _ number: Number, _ limits: (min: Number?, max: Number?), _ name: String
    ) -> Failure? {
        if let min = limits.min, number < min {
            return Failure(code: NSValidationNumberTooSmallError, reason: "\(name) is \(number), less than \(min).")
        }
        if let max = limits.max, number > max {
            return Failure(code: NSValidationNumberTooLargeError, reason: "\(name) is \(number), more than \(max).")
        }
        return nil
    }

    private static func lengthFailure(
        _ length: Int, unit: String, _ attribute: NSAttributeDescription, _ name: String
    ) -> Failure? {
        let limits = bounds(attribute) { text in Int(text) ?? Double(text).flatMap { Int(exactly: $0) } }
        if let min = limits.min, length < min {
            return Failure(
                code: NSValidationStringTooShortError, reason: "\(name) is \(length) \(unit) long, less than \(min).")
        }
        if let max = limits.max, length > max {
            return Failure(
                code: NSValidationStringTooLongError, reason: "\(name) is \(length) \(unit) long, more than \(max).")
        }
        return nil
    }

    /// The attribute's minimum and maximum read with `parse`; a missing or unreadable text
    /// gives no bound.
    private static func bounds<Bound>(
        _ attribute: NSAttributeDescription, parse: (String) -> Bound?
    ) -> (min: Bound?, max: Bound?) {
        func read(_ text: String?) -> Bound? {
            guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return parse(text)
        }
        return (read(attribute.minValueString), read(attribute.maxValueString))
    }

    /// A bound as a decimal number ("10", "-2.5", "1e3"); text that `Double` does not read
    /// in full is no number, although `Decimal(string:)` would take its prefix.
    private static func decimal(text: String) -> Decimal? {
        guard let double = Double(text), double.isFinite else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    private static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let value as Decimal: value
        case let value as Int64: Decimal(value)
        case let value as Int32: Decimal(Int64(value))
        case let value as Int16: Decimal(Int64(value))
        case let value as Int: Decimal(value)
        default: nil
        }
    }
}

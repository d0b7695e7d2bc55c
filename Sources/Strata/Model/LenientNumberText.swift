import Foundation

/// Numbers read from the start of a text the way `NSString`'s `integerValue`, `doubleValue`
/// and `boolValue` read them: leading whitespace is skipped, the longest number at the start
/// counts, anything after it is ignored, and a text that does not start with a number is 0.
///
/// Xcode compiles model files whose default value does not fit the attribute's type
/// (`defaultValueString="YES"` on an Integer 32 attribute), and Core Data then runs with
/// the value its model compiler read from the text in that way; Strata reads such texts
/// alike (see DEVIATIONS.md for what could not be confirmed).
enum LenientNumberText {
    /// The integer at the start of the text, clamped to `Int64` on overflow; 0 when the text
    /// does not start with one ("YES" is 0, "1.5" is 1, " -7 apples" is -7).
    static func integer(_ text: String) -> Int64 {
        var scalars = Substring(text).unicodeScalars.drop { $0.properties.isWhitespace }
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflowed = false
        for scalar in scalars {
            guard let digit = decimalDigit(scalar) else { break }
            let (times, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(digit))
            if overflowA || overflowB {
                overflowed = true
                break
            }
            magnitude = sum
        }
        if negative {
            if overflowed || magnitude > UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        if overflowed || magnitude > UInt64(Int64.max) { return Int64.max }
        return Int64(magnitude)
    }

    /// The integer at the start of the text, clamped to the range of `T` (a default of
    /// "100000" for an Integer 16 attribute is `Int16.max`).
    static func integer<T: FixedWidthInteger & SignedInteger>(_ text: String, as type: T.Type) -> T {
        T(clamping: integer(text))
    }

    /// The decimal number at the start of the text (sign, digits, fraction, exponent), and
    /// whether it is the whole text once surrounding whitespace is trimmed. `nil` text means
    /// no number starts the text; Core Data then reads 0.
    static func decimalPrefix(_ text: String) -> (text: Substring, isWhole: Bool)? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let scalars = Array(trimmed.unicodeScalars)
        var index = 0
        if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" { index += 1 }
        let integerStart = index
        while index < scalars.count, decimalDigit(scalars[index]) != nil { index += 1 }
        var digits = index - integerStart
        if index < scalars.count, scalars[index] == "." {
            var fraction = index + 1
            while fraction < scalars.count, decimalDigit(scalars[fraction]) != nil { fraction += 1 }
            digits += fraction - index - 1
            if digits > 0 { index = fraction }
        }
        guard digits > 0 else { return nil }
        if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
            var exponent = index + 1
            if exponent < scalars.count, scalars[exponent] == "+" || scalars[exponent] == "-" { exponent += 1 }
            let exponentDigits = exponent
            while exponent < scalars.count, decimalDigit(scalars[exponent]) != nil { exponent += 1 }
            if exponent > exponentDigits { index = exponent }
        }
        let prefix = String(String.UnicodeScalarView(scalars[..<index]))
        return (Substring(prefix), index == scalars.count)
    }

    /// The floating-point number at the start of the text; 0 when none starts it.
    static func double(_ text: String) -> Double {
        decimalPrefix(text).flatMap { Double($0.text) } ?? 0
    }

    /// `NSString.boolValue`: true when the text starts (after whitespace, and after a sign
    /// followed by zeroes) with Y, y, T, t or a digit 1 to 9; false otherwise ("0.0", "NO",
    /// "abc" and "" are false).
    static func bool(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars.drop { $0.properties.isWhitespace }
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        scalars = scalars.drop { $0 == "0" }
        guard let first = scalars.first else { return false }
        switch first {
        case "Y", "y", "T", "t", "1"..."9": return true
        default: return false
        }
    }

    private static func decimalDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        ("0"..."9").contains(scalar) ? scalar.value - 48 : nil
    }
}

import Foundation

/// Dates in archives: ISO 8601 text in UTC, like every other JSON the app prints, with as
/// many digits of fraction as the exact value needs (`2025-11-15T08:53:20.1234568Z`), so
/// that an import gives back exactly the instant the store held. Archives written before
/// held seconds since 2001-01-01 as numbers; those still read.
enum ArchiveDate {
    /// The most fraction digits ever written; always enough to give back the exact `Double`
    /// of a date within a few thousand years of 2001.
    private static let maximumFractionDigits = 24

    static func text(for date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        let fraction = interval - whole
        let wholeText = Date(timeIntervalSinceReferenceDate: whole).formatted(Date.ISO8601FormatStyle())
        guard fraction != 0, wholeText.hasSuffix("Z") else { return wholeText }
        // The fewest digits (milliseconds at least, as the app's other JSON) that read back
        // as the same number.
        var digits = String(format: "%.\(maximumFractionDigits)f", fraction)
        for count in 3..<maximumFractionDigits {
            let candidate = String(format: "%.\(count)f", fraction)
            if candidate.hasPrefix("0."), let value = Double(candidate), whole + value == interval {
                digits = candidate
                break
            }
        }
        return wholeText.dropLast() + digits.dropFirst() + "Z"
    }

    /// Reads ISO 8601 text (any number of fraction digits) or, as older archives hold,
    /// seconds since 2001-01-01.
    static func decode(from decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) {
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        let text = try container.decode(String.self)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an ISO 8601 date or a number of seconds")
        }
        return date
    }

    /// The date of ISO 8601 text. The fraction of a second is read apart, as a decimal
    /// number, because the format style keeps only milliseconds of it.
    static func date(from text: String) -> Date? {
        var rest = Substring(text)
        var fraction = 0.0
        if let time = rest.firstIndex(of: "T"), let point = rest[time...].firstIndex(where: { $0 == "." || $0 == "," }) {
            let digitsEnd = rest[rest.index(after: point)...].firstIndex { !$0.isASCII || !$0.isNumber } ?? rest.endIndex
            let digits = rest[rest.index(after: point)..<digitsEnd]
            guard !digits.isEmpty, let value = Double("0." + digits) else { return nil }
            fraction = value
            rest = rest[..<point] + rest[digitsEnd...]
        }
        guard let whole = try? Date.ISO8601FormatStyle().parse(String(rest)) else { return nil }
        return Date(timeIntervalSinceReferenceDate: whole.timeIntervalSinceReferenceDate + fraction)
    }
}

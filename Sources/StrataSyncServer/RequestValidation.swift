import Foundation
import StrataSyncProtocol

/// The names and values a client may send. Everything is bound as a query parameter anyway;
/// these rules keep names printable and bounded (as CloudKit's are), and refuse what
/// PostgreSQL's JSONB cannot keep (a NUL character in a string), so that a bad request is a
/// 400 that names the problem rather than a database error.
enum RequestValidation {
    /// Field names and record types: a letter or `_`, then letters, digits and `_`; at most
    /// 255 characters (CloudKit's rule for field names).
    static func isIdentifier(_ text: String) -> Bool {
        guard (1...255).contains(text.utf8.count), let first = text.utf8.first, isLetter(first) || first == UInt8(ascii: "_")
        else { return false }
        return text.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// Record names, client IDs: printable ASCII without spaces, at most 255 characters.
    static func isName(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Zone names: letters, digits, `.`, `_` and `-` (one path segment), at most 255 characters.
    static func isZoneName(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy { isLetter($0) || isDigit($0) || ".-_".utf8.contains($0) }
            && text != "." && text != ".."
    }

    static func zoneName(_ text: String) throws -> String {
        guard isZoneName(text) else {
            throw SyncError.badRequest("Zone names are 1 to 255 letters, digits, '.', '_' or '-'.")
        }
        return text
    }

    static func clientID(_ text: String) throws -> String {
        guard isName(text) else {
            throw SyncError.badRequest("A client ID is 1 to 255 printable ASCII characters without spaces.")
        }
        return text
    }

    /// Checks every change of a push; the first problem found is the 400's message.
    static func validate(_ request: PushRequest, maxRecords: Int) throws {
        _ = try clientID(request.clientID)
        let count = request.batches.reduce(0) { $0 + $1.changes.count }
        guard count <= maxRecords else {
            throw SyncError(.limitExceeded, "A push carries at most \(maxRecords) record changes; this one has \(count).")
        }
        var previous: Int64?
        for batch in request.batches {
            guard batch.batchSequence >= 1 else { throw SyncError.badRequest("Batch sequence numbers start at 1.") }
            // Subtracting from a number ≥ 1 cannot overflow; adding to Int64.max would.
            if let previous, batch.batchSequence - 1 != previous {
                throw SyncError.badRequest(
                    "The batches of one push must be consecutive (\(previous), then \(batch.batchSequence)).")
            }
            previous = batch.batchSequence
            if let hash = batch.modelHash, hash.utf8.count > 1024 || hash.contains("\0") {
                throw SyncError.badRequest("The model hash is too long.")
            }
            for change in batch.changes {
                try validate(change)
            }
        }
    }

    static func validate(_ change: RecordChange) throws {
        guard isIdentifier(change.recordType) else {
            throw SyncError.badRequest("Bad record type \(quoted(change.recordType)): letters, digits and '_', at most 255.")
        }
        guard isName(change.recordName) else {
            throw SyncError.badRequest(
                "Bad record name \(quoted(change.recordName)): printable ASCII without spaces, at most 255.")
        }
        switch change.operation {
        case .delete:
            guard let clock = change.deleteClock else {
                throw SyncError.badRequest("The delete of \(change.recordName) has no deleteClock.")
            }
            try validate(clock)
            guard change.fields.isEmpty else {
                throw SyncError.badRequest("The delete of \(change.recordName) carries fields.")
            }
        case .upsert:
            guard Set(change.fields.keys) == Set(change.clocks.keys) else {
                throw SyncError.badRequest("The fields and clocks of \(change.recordName) name different fields.")
            }
            for (name, value) in change.fields {
                guard isIdentifier(name) else {
                    throw SyncError.badRequest("Bad field name \(quoted(name)): letters, digits and '_', at most 255.")
                }
                try validate(value, field: name)
            }
            for clock in change.clocks.values {
                try validate(clock)
            }
        }
    }

    static func validate(_ clock: HybridLogicalClock) throws {
        guard isName(clock.node) else { throw SyncError.badRequest("Bad clock node \(quoted(clock.node)).") }
    }

    static func validate(_ value: FieldValue, field: String) throws {
        let text: String?
        switch value {
        case .string(let value), .decimal(let value), .url(let value), .reference(let value): text = value
        case .double(let value), .date(let value):
            guard value.isFinite else { throw SyncError.badRequest("The value of \(field) is not a finite number.") }
            text = nil
        case .asset(let reference):
            guard isSHA256(reference.sha256), reference.size >= 0 else {
                throw SyncError.badRequest("The asset of \(field) needs a lower-case hex SHA-256 and a size.")
            }
            text = nil
        default: text = nil
        }
        if let text, text.utf8.contains(0) {
            throw SyncError.badRequest("The value of \(field) holds a NUL character, which the server cannot keep.")
        }
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// A name in a message, cut short and with control characters escaped.
    private static func quoted(_ text: String) -> String {
        let short = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return "\"" + short.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
            + "\""
    }
}

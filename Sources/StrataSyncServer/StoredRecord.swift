import Foundation
import Strata
import StrataSyncProtocol

/// A record as the `records` table keeps it, and the merge of pushed changes into it.
///
/// The merge is per field, last writer wins by hybrid logical clock: a field takes a pushed
/// value only when the value's clock is greater than the clock stored for that field, so the
/// order in which pushes arrive never changes the outcome (equal clocks are the same write,
/// sent again). A delete at clock `d` drops every field whose clock is not after `d`; with
/// none left the record is a tombstone. Later values whose clocks are not after the newest
/// delete are ignored, so a delete wins over the updates it may have raced with, and a record
/// comes back only through a change made after its delete. Both rules commute, which is what
/// lets clients apply the same changes in any order and still agree.
struct StoredRecord: Sendable, Equatable {
    var recordType: String
    var recordName: String
    var fields: [String: FieldValue] = [:]
    var clocks: [String: HybridLogicalClock] = [:]
    var deleted = false
    /// The newest delete's clock; kept after the record comes back, so that changes older
    /// than the delete still lose.
    var deleteClock: HybridLogicalClock?
    var serverSequence: Int64 = 0
    var changedBy: String?

    /// Merges one change into the record; whether the record changed (and so needs a new
    /// sequence number).
    mutating func apply(_ change: RecordChange) -> Bool {
        switch change.operation {
        case .upsert: applyUpsert(change)
        case .delete:
            if let clock = change.deleteClock { applyDelete(clock) } else { false }
        }
    }

    private mutating func applyUpsert(_ change: RecordChange) -> Bool {
        var changed = false
        for (name, value) in change.fields {
            guard let clock = change.clocks[name] else { continue }
            if let deleteClock, clock <= deleteClock { continue }
            if let stored = clocks[name], clock <= stored { continue }
            fields[name] = value
            clocks[name] = clock
            changed = true
        }
        if changed && deleted {
            deleted = false
        }
        return changed
    }

    private mutating func applyDelete(_ clock: HybridLogicalClock) -> Bool {
        if let deleteClock, clock <= deleteClock { return false }
        deleteClock = clock
        for (name, fieldClock) in clocks where fieldClock <= clock {
            clocks[name] = nil
            fields[name] = nil
        }
        if fields.isEmpty {
            deleted = true
        }
        return true
    }

    /// The client that wrote every field and the delete of the record (the clocks' node), if
    /// one did: that client has the record as the server keeps it, so its pulls leave it out.
    /// Nil when several clients did, or nothing carries a clock (a record made by a change
    /// without fields).
    var soleWriter: String? {
        var writer = deleteClock?.node
        for clock in clocks.values {
            if let known = writer, known != clock.node { return nil }
            writer = clock.node
        }
        return writer
    }

    /// The record as pulls and queries answer with it, with the clock of its newest delete: on
    /// a tombstone, the delete the client must apply; on a record that came back after a
    /// delete (fields written later), what the delete outdated, so that a client drops the
    /// links to the record made before it (their link records may never have been deleted:
    /// the deleting client did not know them).
    var state: RecordState {
        RecordState(
            recordType: recordType, recordName: recordName, fields: fields, clocks: clocks, deleted: deleted,
            deleteClock: deleteClock, serverSequence: serverSequence, changedBy: changedBy)
    }
}

extension StoredRecord {
    /// The `folded` column of a record: each string field's value as `[cd]` compares it (the
    /// predicate evaluator's folding), where that differs from the value, as a JSON object.
    /// Written by hand: every record of every push passes here.
    static func foldedJSON(_ fields: [String: FieldValue]) -> String {
        var folded: [(name: String, value: String)] = []
        for (name, value) in fields {
            guard case .string(let text) = value else { continue }
            let fold = queryFold(text)
            if !fold.unicodeScalars.elementsEqual(text.unicodeScalars) { folded.append((name, fold)) }
        }
        guard !folded.isEmpty else { return "{}" }
        folded.sort { $0.name < $1.name }
        return "{" + folded.map { jsonString($0.name) + ":" + jsonString($0.value) }.joined(separator: ",") + "}"
    }

    /// `[cd]` folding, as `PredicateTreeAccess.fold` gives it: ASCII text is only lowercased
    /// (Foundation's folding of ASCII, without its cost), anything else goes to Foundation.
    static func queryFold(_ text: String) -> String {
        var upper = false
        for byte in text.utf8 {
            if byte >= 0x80 { return PredicateTreeAccess.fold(text, [.caseInsensitive, .diacriticInsensitive]) }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { upper = true }
        }
        guard upper else { return text }
        return String(
            decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// A JSON string literal of the text.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// JSON of the `fields` and `clocks` columns: the wire format's own encoding, so that what
/// comes out of the database decodes with the types that went in.
enum RecordJSON {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }
}

import Foundation
import StrataSyncProtocol

/// The records both modes push: to-dos as Core Data's mirroring names them (`CD_Todo`,
/// `CD_<attribute>`), each made from its number alone, so that any run makes the same ones.
enum TodoRecords {
    static let recordType = "CD_Todo"
    /// Pushes carry at most this many changes (the server's `maxRecords`, CloudKit's 400).
    static let batchSize = 400
    /// One note in this many holds the word `marker`: the non-indexed query's matches.
    static let markerEvery = 1000
    static let marker = "zzq"

    /// No word holds a "z", so only the marker word can hold "zzq".
    private static let words = [
        "buy", "milk", "call", "mother", "about", "the", "weekend", "plans", "fix", "leaking", "kitchen", "tap",
        "book", "dentist", "renew", "passport", "before", "summer", "water", "plants", "on", "balcony", "send",
        "invoice", "to", "client", "review", "draft", "of", "report", "pick", "up", "parcel", "from", "post",
        "office", "clean", "garage", "shelves", "return", "library", "books", "order", "new", "printer", "ink",
        "walk", "dog", "after", "lunch", "bake", "bread", "for", "party", "update", "budget", "sheet", "check",
    ]

    static func title(_ number: Int) -> String { "Todo number \(number)" }

    /// The record name: the number with leading zeros, so that names sort in the order they
    /// were made, as the client's `CD_<Entity>_<UUIDv7>` names do.
    static func recordName(_ number: Int) -> String {
        let digits = String(number)
        return "CD_Todo_" + String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    static func hasMarker(_ number: Int) -> Bool { number % markerEvery == 7 }

    /// Records of `0..<count` whose notes hold the marker.
    static func markerCount(below count: Int) -> Int {
        count / markerEvery + (count % markerEvery > 7 ? 1 : 0)
    }

    /// Some 40 characters of words, varied by the number; the marker replaces a word in one
    /// note in `markerEvery`.
    static func notes(_ number: Int, generator: inout SplitMix64) -> String {
        var chosen: [String] = []
        var length = 0
        while length < 38 {
            let word = words[Int(generator.next() % UInt64(words.count))]
            chosen.append(word)
            length += word.count + 1
        }
        if hasMarker(number) {
            chosen[Int(generator.next() % UInt64(chosen.count))] = marker
        }
        return chosen.joined(separator: " ")
    }

    /// The upsert of to-do `number`, every field stamped by `node`'s clock at `wall`.
    static func change(_ number: Int, node: String, wall: Int64) -> RecordChange {
        var generator = SplitMix64(seed: UInt64(number) &* 0x2545_F491_4F6C_DD1D)
        let fields: [String: FieldValue] = [
            "CD_title": .string(title(number)),
            "CD_notes": .string(notes(number, generator: &generator)),
            "CD_priority": .int(Int64(generator.next() % 10)),
            "CD_done": .bool(generator.next() % 4 == 0),
            "CD_created": .date(786_000_000 + Double(number)),
        ]
        let clock = HybridLogicalClock(wallMilliseconds: wall, counter: 0, node: node)
        return RecordChange(
            recordType: recordType, recordName: recordName(number), operation: .upsert, fields: fields,
            clocks: fields.mapValues { _ in clock })
    }

    /// The priority `change(number, …)` gives to-do `number`.
    static func priority(_ number: Int) -> Int64 {
        var generator = SplitMix64(seed: UInt64(number) &* 0x2545_F491_4F6C_DD1D)
        _ = notes(number, generator: &generator)
        return Int64(generator.next() % 10)
    }

    /// A push of one batch, as the client sends its outbox: the batch's JSON (written by
    /// `WireJSON`, as the client stores it) inside the request.
    static func pushBody(clientID: String, batchSequence: Int64, changes: [RecordChange]) throws -> Data {
        let batch = try WireJSON.encode(ChangeBatch(batchSequence: batchSequence, changes: changes))
        // Client IDs here are letters, digits and dashes: nothing to escape.
        var body = Data("{\"clientID\":\"\(clientID)\",\"batches\":[".utf8)
        body.append(batch)
        body.append(contentsOf: Array("]}".utf8))
        return body
    }

    /// How many of `0..<count` have a title starting with "Todo number <prefix>": the numbers
    /// whose decimal digits start with the prefix's.
    static func prefixMatches(_ prefix: Int, below count: Int) -> Int {
        guard prefix > 0 else { return prefix == 0 && count > 0 ? 1 : 0 }
        var total = 0
        var low = prefix
        var width = 1
        while low < count {
            total += min(low + width, count) - low
            low *= 10
            width *= 10
        }
        return total
    }
}

import Foundation
import Testing

@testable import StrataSyncProtocol

/// The hand-written JSON of the record-carrying messages against Foundation's coders, which
/// define the wire format through the `Codable` conformances: each writes what the other reads,
/// and the fast reader never takes an input that `JSONDecoder` refuses or reads otherwise.
@Suite("Sync wire JSON")
struct WireJSONTests {
    /// SplitMix64: a failing seed can be replayed.
    struct Random {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let pieces = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "ß", "✓", "😀",
        "\u{2028}", "\u{FEFF}", "CD_", "-", "{", "}", "[", "]", ",", ":",
    ]

    static func text(_ random: inout Random, maximum: Int = 12) -> String {
        (0..<random.below(maximum)).map { _ in pieces[random.below(pieces.count)] }.joined()
    }

    static func double(_ random: inout Random) -> Double {
        switch random.below(8) {
        case 0: return Double(Int64(bitPattern: random.next()) >> random.below(63))
        case 1: return Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (random.below(2) == 0 ? 1 : -1)
        case 2: return [0.1, -0.0, 1e300, 1.5e-7, 5e-324, .greatestFiniteMagnitude, 1.0 / 3.0][random.below(7)]
        default: return Double(random.next() % 1_000_000) / Double(1 + random.below(1000))
        }
    }

    static func clock(_ random: inout Random) -> HybridLogicalClock {
        HybridLogicalClock(
            wallMilliseconds: Int64(random.next() >> 1) >> random.below(62), counter: UInt32(truncatingIfNeeded: random.next()),
            node: ["a", "client-with-dashes", "é-node", UUID().uuidString.lowercased()][random.below(4)])
    }

    static func value(_ random: inout Random) -> FieldValue {
        switch random.below(12) {
        case 0: .null
        case 1: .string(text(&random))
        case 2: .int(Int64(bitPattern: random.next()) >> random.below(64))
        case 3: .double(double(&random))
        case 4: .bool(random.below(2) == 0)
        case 5: .date(double(&random))
        case 6: .bytes(Data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
        case 7:
            .asset(
                AssetReference(
                    sha256: String(repeating: "0f", count: 32), size: Int64(random.next() >> 1) >> random.below(63)))
        case 8: .decimal("\(random.next()).\(random.below(100))")
        case 9: .uuid(UUID())
        case 10: .url("file:///tmp/\(text(&random))")
        default: .reference("CD_Item_\(random.next())")
        }
    }

    static func fields(_ random: inout Random) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        for _ in 0..<random.below(6) { fields["CD_" + text(&random, maximum: 6)] = value(&random) }
        return fields
    }

    static func change(_ random: inout Random) -> RecordChange {
        if random.below(4) == 0 {
            return RecordChange(
                recordType: "CD_" + text(&random), recordName: text(&random), operation: .delete,
                deleteClock: clock(&random))
        }
        let fields = fields(&random)
        var clocks: [String: HybridLogicalClock] = [:]
        for key in fields.keys { clocks[key] = clock(&random) }
        return RecordChange(
            recordType: "CD_" + text(&random), recordName: text(&random), operation: .upsert, fields: fields, clocks: clocks)
    }

    static func batch(_ random: inout Random) -> ChangeBatch {
        ChangeBatch(
            batchSequence: Int64(random.next() >> 1), modelHash: random.below(2) == 0 ? nil : text(&random),
            changes: (0..<random.below(5)).map { _ in change(&random) })
    }

    static func record(_ random: inout Random) -> RecordState {
        let change = change(&random)
        return RecordState(
            recordType: change.recordType, recordName: change.recordName, fields: change.fields, clocks: change.clocks,
            deleted: change.operation == .delete, deleteClock: change.deleteClock,
            serverSequence: Int64(random.next() >> 1), changedBy: random.below(3) == 0 ? nil : text(&random))
    }

    @Test("what the writer writes, JSONDecoder reads back the same", arguments: 0..<4)
    func writerAgainstJSONDecoder(seed: UInt64) throws {
        var random = Random(state: seed)
        for _ in 0..<300 {
            let batch = Self.batch(&random)
            #expect(try JSONDecoder().decode(ChangeBatch.self, from: WireJSON.encode(batch)) == batch)
            let fields = Self.fields(&random)
            #expect(
                try JSONDecoder().decode([String: FieldValue].self, from: Data(WireJSON.encode(fields: fields).utf8)) == fields)
            let clocks = Self.change(&random).clocks
            #expect(
                try JSONDecoder().decode([String: HybridLogicalClock].self, from: Data(WireJSON.encode(clocks: clocks).utf8))
                    == clocks)
        }
    }

    @Test("what JSONEncoder writes, the fast reader takes and reads the same", arguments: 0..<4)
    func fastReaderAgainstJSONEncoder(seed: UInt64) throws {
        var random = Random(state: seed)
        for _ in 0..<100 {
            let request = PushRequest(
                clientID: Self.text(&random), batches: (0..<random.below(4)).map { _ in Self.batch(&random) })
            let pushed = try JSONEncoder().encode(request)
            #expect(WireJSON.fastDecode(pushed) { try $0.pushRequest() } == request)
            let answer = ChangesResponse(
                records: (0..<random.below(6)).map { _ in Self.record(&random) }, nextToken: Self.text(&random),
                hasMore: random.below(2) == 0)
            let pulled = try JSONEncoder().encode(answer)
            #expect(WireJSON.fastDecode(pulled) { try $0.changesResponse() } == answer)
            #expect(try WireJSON.decodeChangesResponse(from: pulled) == answer)
            // Pretty-printed, with slashes escaped and keys sorted: still taken.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            #expect(WireJSON.fastDecode(try encoder.encode(request)) { try $0.pushRequest() } == request)
        }
    }

    @Test("a damaged message the fast reader takes, JSONDecoder takes too and reads the same", arguments: 0..<4)
    func damagedMessages(seed: UInt64) throws {
        var random = Random(state: seed)
        var taken = 0
        var refused = 0
        for _ in 0..<1500 {
            let request = PushRequest(clientID: "c", batches: [Self.batch(&random)])
            var bytes = [UInt8](try JSONEncoder().encode(request))
            for _ in 0..<(1 + random.below(3)) where !bytes.isEmpty {
                let at = random.below(bytes.count)
                let byte = Array(" \"\\{}[],:0123456789.eE-+tfnul\u{1}x".utf8)[random.below(31)]
                switch random.below(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(byte, at: at)
                default: bytes[at] = byte
                }
            }
            let data = Data(bytes)
            let fast = WireJSON.fastDecode(data) { try $0.pushRequest() }
            let foundation = try? JSONDecoder().decode(PushRequest.self, from: data)
            if let fast {
                taken += 1
                #expect(foundation == fast, "\(String(decoding: bytes, as: UTF8.self))")
            } else {
                refused += 1
            }
            // Whatever the fast reader does, `decode` answers as Foundation does.
            let decoded = try? WireJSON.decodePushRequest(from: data)
            #expect(decoded == (fast ?? foundation))
        }
        // Both kinds occur, or the test shows nothing.
        #expect(taken > 50 && refused > 50)
    }

    /// JSONDecoder keeps the first value of a key written twice; the fast reader, which would
    /// keep the last, leaves such an object to it (found by fuzzing: Fuzz/Regressions/sync-wire).
    @Test("a key written twice is read as JSONDecoder reads it: its first value")
    func duplicateKeys() throws {
        let clocks = #"{"CD_a":"1-0-x","CD_a":"2-0-y"}"#
        #expect(WireJSON.fastDecode(Data(clocks.utf8)) { try $0.clocks() } == nil)
        #expect(
            try WireJSON.decodeClocks(from: clocks) == ["CD_a": HybridLogicalClock(wallMilliseconds: 1, counter: 0, node: "x")])
        let fields = #"{"CD_n":{"type":"int","value":1},"CD_n":{"type":"int","value":2}}"#
        #expect(WireJSON.fastDecode(Data(fields.utf8)) { try $0.fields() } == nil)
        #expect(try WireJSON.decodeFields(from: fields) == ["CD_n": .int(1)])
        let value = #"{"CD_n":{"type":"int","value":1,"value":2}}"#
        #expect(WireJSON.fastDecode(Data(value.utf8)) { try $0.fields() } == nil)
        #expect(try WireJSON.decodeFields(from: value) == ["CD_n": .int(1)])
        let push = Data(#"{"clientID":"a","batches":[],"clientID":"b"}"#.utf8)
        #expect(WireJSON.fastDecode(push) { try $0.pushRequest() } == nil)
        #expect(try WireJSON.decodePushRequest(from: push) == PushRequest(clientID: "a", batches: []))
    }

    @Test("a change's deleteClock and a batch's modelHash are left out or given, never null, for both readers")
    func noNulls() throws {
        let change = #""recordType":"CD_T","recordName":"n","operation":"delete","fields":{},"clocks":{}"#
        func push(_ batch: String) -> String { #"{"clientID":"c","batches":[{"batchSequence":1,\#(batch)}]}"# }
        let given = push(#""modelHash":"h","changes":[{\#(change),"deleteClock":"5-0-c"}]"#)
        let expected = PushRequest(
            clientID: "c",
            batches: [
                ChangeBatch(
                    batchSequence: 1, modelHash: "h",
                    changes: [
                        RecordChange(
                            recordType: "CD_T", recordName: "n", operation: .delete,
                            deleteClock: HybridLogicalClock(wallMilliseconds: 5, counter: 0, node: "c"))
                    ])
            ])
        #expect(try JSONDecoder().decode(PushRequest.self, from: Data(given.utf8)) == expected)
        #expect(WireJSON.fastDecode(Data(given.utf8)) { try $0.pushRequest() } == expected)
        let leftOut = push(#""changes":[{\#(change)}]"#)
        #expect(try WireJSON.decodePushRequest(from: Data(leftOut.utf8)).batches[0].changes[0].deleteClock == nil)
        for null in [push(#""changes":[{\#(change),"deleteClock":null}]"#), push(#""modelHash":null,"changes":[]"#)] {
            #expect(throws: DecodingError.self, "\(null)") { try JSONDecoder().decode(PushRequest.self, from: Data(null.utf8)) }
            #expect(WireJSON.fastDecode(Data(null.utf8)) { try $0.pushRequest() } == nil, "\(null)")
            #expect(throws: DecodingError.self, "\(null)") { try WireJSON.decodePushRequest(from: Data(null.utf8)) }
        }
    }

    @Test("forms the fast reader leaves to JSONDecoder, and what neither takes")
    func fallbacks() throws {
        // `value` before `type` (JSONEncoder writes either order): read once the type is known.
        let reordered = Data(#"{"CD_n":{"value":5,"type":"int"},"CD_a":{"value":{"size":3,"sha256":"ab"},"type":"asset"}}"#.utf8)
        #expect(
            WireJSON.fastDecode(reordered) { try $0.fields() }
                == ["CD_n": .int(5), "CD_a": .asset(AssetReference(sha256: "ab", size: 3))])
        // A value that does not fit its type is refused, wherever it stands.
        #expect(WireJSON.fastDecode(Data(#"{"CD_n":{"value":"5","type":"int"}}"#.utf8)) { try $0.fields() } == nil)
        #expect(throws: DecodingError.self) { try WireJSON.decodeFields(from: #"{"CD_n":{"value":"5","type":"int"}}"#) }
        // Unknown keys are skipped, as Codable skips them; a missing required key is an error.
        let extra = Data(#"{"clientID":"c","batches":[],"later":{"x":[1,2,{"y":null}]}}"#.utf8)
        #expect(WireJSON.fastDecode(extra) { try $0.pushRequest() } == PushRequest(clientID: "c", batches: []))
        #expect(throws: DecodingError.self) { try WireJSON.decodePushRequest(from: Data(#"{"batches":[]}"#.utf8)) }
        for bad in [
            #"{"clientID":"c","batches":[]"#, #"{"clientID":"c","batches":[]} x"#, "", "[]", #"{"clientID":7,"batches":[]}"#,
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try WireJSON.decodePushRequest(from: Data(bad.utf8)) }
        }
        // Numbers: an integer field takes no fraction, exponent, leading zero or overflow.
        for number in ["1.0", "1e2", "01", "9223372036854775808", "-", "+1", "0x10"] {
            let text = #"{"CD_n":{"type":"int","value":\#(number)}}"#
            #expect(WireJSON.fastDecode(Data(text.utf8)) { try $0.fields() } == nil, "\(number)")
        }
        #expect(
            WireJSON.fastDecode(Data(#"{"d":{"type":"double","value":-1.5E+3}}"#.utf8)) { try $0.fields() } == [
                "d": .double(-1500)
            ])
        // Out of a double's range either way: refused, as Foundation refuses it; zero is zero.
        for number in ["1e400", "-2.5e-458"] {
            let text = #"{"d":{"type":"double","value":\#(number)}}"#
            #expect(WireJSON.fastDecode(Data(text.utf8)) { try $0.fields() } == nil, "\(number)")
            #expect(throws: DecodingError.self) { try WireJSON.decodeFields(from: text) }
        }
        #expect(
            WireJSON.fastDecode(Data(#"{"d":{"type":"double","value":-0.0e-999}}"#.utf8)) { try $0.fields() } == ["d": .double(0)]
        )
        // Escapes, surrogate pairs, and a lone surrogate (refused by the fast reader).
        #expect(
            WireJSON.fastDecode(Data(#"{"s":{"type":"string","value":"a\u00e9\ud83d\ude00\/\n"}}"#.utf8)) { try $0.fields() }
                == ["s": .string("aé😀/\n")])
        #expect(WireJSON.fastDecode(Data(#"{"s":{"type":"string","value":"\ud83d"}}"#.utf8)) { try $0.fields() } == nil)
        // Bytes that are not UTF-8 in a string are refused.
        var invalid = Data(#"{"s":{"type":"string","value":""#.utf8)
        invalid.append(contentsOf: [0xC3, 0x28])
        invalid.append(contentsOf: Array(#""}}"#.utf8))
        #expect(WireJSON.fastDecode(invalid) { try $0.fields() } == nil)
        // A double that is not finite is refused when written, as JSONEncoder refuses it.
        #expect(throws: EncodingError.self) { try WireJSON.encode(fields: ["x": .double(.infinity)]) }
        #expect(throws: EncodingError.self) { try WireJSON.encode(fields: ["x": .date(.nan)]) }
    }
}

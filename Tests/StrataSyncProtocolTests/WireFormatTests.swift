import Foundation
import StrataSyncProtocol
import Testing

@Suite("Sync wire format")
struct WireFormatTests {
    @Test("clock readings order by wall time, counter, then client, and read back from their text")
    func clocks() throws {
        let early = HybridLogicalClock(wallMilliseconds: 1_000, counter: 5, node: "b")
        let sameMillisecond = HybridLogicalClock(wallMilliseconds: 1_000, counter: 6, node: "a")
        let tie = HybridLogicalClock(wallMilliseconds: 1_000, counter: 6, node: "c")
        #expect(early < sameMillisecond)
        #expect(sameMillisecond < tie)
        let dashed = HybridLogicalClock(wallMilliseconds: 1_732_590_000_123, counter: 2, node: "client-with-dashes")
        #expect(dashed.description == "1732590000123-2-client-with-dashes")
        #expect(HybridLogicalClock(dashed.description) == dashed)
        #expect(HybridLogicalClock("12-x-a") == nil)
        #expect(HybridLogicalClock("12-3-") == nil)
        #expect(HybridLogicalClock("-1-3-a") == nil)
        // The limits of each part, and what lies past them.
        let largest = HybridLogicalClock(wallMilliseconds: .max, counter: .max, node: "é-node")
        #expect(HybridLogicalClock(largest.description) == largest)
        #expect(HybridLogicalClock("9223372036854775808-0-a") == nil)
        #expect(HybridLogicalClock("12-4294967296-a") == nil)
        #expect(HybridLogicalClock("99999999999999999999-0-a") == nil)
        #expect(HybridLogicalClock("0-0-a") == HybridLogicalClock(wallMilliseconds: 0, counter: 0, node: "a"))
        for text in ["", "12", "12-", "12-3", "12--a", "1 2-3-a", "+12-3-a", "12-3a-b", "--a"] {
            #expect(HybridLogicalClock(text) == nil, "\(text)")
        }
    }

    @Test("every kind of field value goes through JSON unchanged, dates to the last bit")
    func fieldValues() throws {
        let date = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)
        let values: [FieldValue] = [
            .null, .string("Buy oat milk ✓"), .int(Int64.min), .double(0.1), .bool(true),
            .date(date.timeIntervalSinceReferenceDate), .bytes(Data([0, 1, 255])),
            .asset(AssetReference(sha256: String(repeating: "ab", count: 32), size: 1 << 40)),
            .decimal("12345678901234567890.25"), .uuid(UUID()), .url("file:///tmp/a%20b"), .reference("CD_Todo_1"),
        ]
        let data = try JSONEncoder().encode(values)
        let decoded = try JSONDecoder().decode([FieldValue].self, from: data)
        #expect(decoded == values)
        if case .date(let seconds) = decoded[5] {
            #expect(Date(timeIntervalSinceReferenceDate: seconds) == date)
        } else {
            Issue.record("the date came back as \(decoded[5])")
        }
        let text = String(decoding: try JSONEncoder().encode(FieldValue.int(42)), as: UTF8.self)
        #expect(text.contains("\"type\":\"int\"") && text.contains("\"value\":42"))
    }

    @Test("a push with a bad clock or an unknown value type is refused when decoded")
    func badInput() throws {
        let badClock = #"{"recordType":"CD_Todo","recordName":"n","operation":"upsert","fields":{},"clocks":{"CD_title":"soon"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(RecordChange.self, from: Data(badClock.utf8)) }
        let badKind = #"{"type":"pointer","value":1}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FieldValue.self, from: Data(badKind.utf8)) }
    }

    @Test("each error code answers with its HTTP status")
    func statuses() {
        #expect(SyncErrorCode.limitExceeded.httpStatus == 400)
        #expect(SyncErrorCode.unauthorized.httpStatus == 401)
        #expect(SyncErrorCode.resyncRequired.httpStatus == 410)
        #expect(SyncErrorCode.payloadTooLarge.httpStatus == 413)
        #expect(SyncErrorCode.rateLimited.httpStatus == 429)
        #expect(SyncPaths.push("a/b") == "/v1/zones/a%2Fb/push")
    }
}

import Foundation

@testable import StrataSyncProtocol

extension FuzzTarget {
    /// The bytes as each JSON message of the sync protocol that `WireJSON` reads by hand (a push
    /// request, a pull's answer, a record's fields and clocks). `WireJSON`'s promise is checked:
    /// its fast reader never takes what `JSONDecoder` refuses, nor reads it differently. What
    /// decodes must encode and decode back equal.
    public static let syncWire = FuzzTarget(name: "sync-wire") { data throws(FuzzFinding) in
        let push = try SyncWireFuzzing.decode(data, "push request", PushRequest.self) { try $0.pushRequest() }
        try SyncWireFuzzing.require(push, decodedBy: { try WireJSON.decodePushRequest(from: data) })
        for batch in push?.batches ?? [] {
            try SyncWireFuzzing.roundTrip(batch)
        }
        let changes = try SyncWireFuzzing.decode(data, "pull answer", ChangesResponse.self) { try $0.changesResponse() }
        try SyncWireFuzzing.require(changes, decodedBy: { try WireJSON.decodeChangesResponse(from: data) })
        // Fields and clocks are columns of the server's database: text.
        let text = String(decoding: data, as: UTF8.self)
        let textData = Data(text.utf8)
        let fields = try SyncWireFuzzing.decode(textData, "fields", [String: FieldValue].self) { try $0.fields() }
        try SyncWireFuzzing.require(fields, decodedBy: { try WireJSON.decodeFields(from: text) })
        if let fields {
            let written: String
            do {
                written = try WireJSON.encode(fields: fields)
            } catch {
                throw FuzzFinding("decoded fields do not encode: \(error)")
            }
            try SyncWireFuzzing.require(fields, decodedBy: { try WireJSON.decodeFields(from: written) })
        }
        let clocks = try SyncWireFuzzing.decode(textData, "clocks", [String: HybridLogicalClock].self) { try $0.clocks() }
        try SyncWireFuzzing.require(clocks, decodedBy: { try WireJSON.decodeClocks(from: text) })
        if let clocks {
            let written = WireJSON.encode(clocks: clocks)
            try SyncWireFuzzing.require(clocks, decodedBy: { try WireJSON.decodeClocks(from: written) })
        }
        return push != nil || changes != nil || fields != nil || clocks != nil ? .taken : .refused
    }
}

enum SyncWireFuzzing {
    /// The message as `JSONDecoder` reads it (nil when it refuses it), after checking that the
    /// fast reader reads it the same way or not at all.
    static func decode<Value: Decodable & Equatable>(
        _ data: Data, _ name: String, _ type: Value.Type, fast read: (inout WireJSON.Reader) throws -> Value
    ) throws(FuzzFinding) -> Value? {
        let foundation = try? JSONDecoder().decode(Value.self, from: data)
        guard let fast = WireJSON.fastDecode(data, read) else { return foundation }
        guard let foundation else {
            throw FuzzFinding("WireJSON's fast reader takes a \(name) that JSONDecoder refuses")
        }
        try FuzzCheck.require(fast == foundation, "WireJSON's fast reader reads a \(name) otherwise than JSONDecoder")
        return foundation
    }

    /// `WireJSON`'s public decoding gives `expected` (or fails where it is nil).
    static func require<Value: Equatable>(_ expected: Value?, decodedBy decode: () throws -> Value) throws(FuzzFinding) {
        let decoded = try? decode()
        try FuzzCheck.require(decoded == expected, "WireJSON decodes a \(Value.self) otherwise than JSONDecoder")
    }

    /// A batch written by `WireJSON` reads back equal, with either reader.
    static func roundTrip(_ batch: ChangeBatch) throws(FuzzFinding) {
        let written: Data
        do {
            written = try WireJSON.encode(batch)
        } catch {
            throw FuzzFinding("a decoded batch does not encode: \(error)")
        }
        let fast = WireJSON.fastDecode(written) { reader in try reader.changeBatch() }
        let foundation = try? JSONDecoder().decode(ChangeBatch.self, from: written)
        try FuzzCheck.require(foundation == batch, "a batch written by WireJSON reads back otherwise with JSONDecoder")
        try FuzzCheck.require(
            fast == nil || fast == batch, "a batch written by WireJSON reads back otherwise with the fast reader")
    }
}

import Foundation

/// The JSON of the messages that carry many records (a push's batches, a pull's records, the
/// server's `fields` and `clocks` columns), written and read by hand.
///
/// Why by hand: Foundation's `JSONEncoder` and `JSONDecoder` go through `Codable`'s generic
/// containers, which cost about 20 µs per record change here (a change is some thirty JSON
/// values); uploading or downloading 100,000 objects spent most of its time there. These
/// functions write and read the same JSON as the `Codable` conformances, which stay the
/// definition of the wire format: a test checks each direction against Foundation's coders.
///
/// Reading is strict, and only a fast path: when the fast reader meets anything it does not
/// take (bad JSON, a wrong type, a `FieldValue` whose `value` comes before its `type`, a
/// number in a form it does not read, a key written twice), `decode` reads the whole message again with
/// `JSONDecoder`, which accepts it or throws the error a caller reports. So the fast path
/// never accepts what Foundation refuses with another meaning, and refuses nothing it takes.
public enum WireJSON {
    // MARK: Writing

    /// A batch as `JSONEncoder` writes it (keys in another order).
    public static func encode(_ batch: ChangeBatch) throws -> Data {
        var writer = Writer()
        try writer.write(batch)
        return Data(writer.bytes)
    }

    /// A record's fields: the server's `fields` column.
    public static func encode(fields: [String: FieldValue]) throws -> String {
        var writer = Writer()
        try writer.write(fields)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A record's clocks: the server's `clocks` column.
    public static func encode(clocks: [String: HybridLogicalClock]) -> String {
        var writer = Writer()
        writer.write(clocks)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Reading

    /// A push request, read by the fast reader or else by `JSONDecoder`.
    public static func decodePushRequest(from data: Data) throws -> PushRequest {
        try decode(data) { reader in try reader.pushRequest() }
    }

    /// A pull's answer, read by the fast reader or else by `JSONDecoder`.
    public static func decodeChangesResponse(from data: Data) throws -> ChangesResponse {
        try decode(data) { reader in try reader.changesResponse() }
    }

    /// A record's fields as the server keeps them.
    public static func decodeFields(from text: String) throws -> [String: FieldValue] {
        try decode(Data(text.utf8)) { reader in try reader.fields() }
    }

    /// A record's clocks as the server keeps them.
    public static func decodeClocks(from text: String) throws -> [String: HybridLogicalClock] {
        try decode(Data(text.utf8)) { reader in try reader.clocks() }
    }

    /// The fast reader alone: nil where it does not take the input (the `decode` functions then
    /// ask `JSONDecoder`; tests compare the two).
    static func fastDecode<Value>(_ data: Data, _ read: (inout Reader) throws -> Value) -> Value? {
        data.withUnsafeBytes { raw -> Value? in
            var reader = Reader(raw.bindMemory(to: UInt8.self))
            guard let value = try? read(&reader), reader.isAtEnd() else { return nil }
            return value
        }
    }

    private static func decode<Value: Decodable>(_ data: Data, _ read: (inout Reader) throws -> Value) throws -> Value {
        if let value = fastDecode(data, read) { return value }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    // MARK: The writer

    struct Writer {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1024) }

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ text: String) {
            bytes.append(UInt8(ascii: "\""))
            var text = text
            text.withUTF8 { utf8 in
                var start = 0
                for index in 0..<utf8.count {
                    let byte = utf8[index]
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    start = index + 1
                    bytes.append(UInt8(ascii: "\\"))
                    switch byte {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                    case 0x0A: bytes.append(UInt8(ascii: "n"))
                    case 0x0D: bytes.append(UInt8(ascii: "r"))
                    case 0x09: bytes.append(UInt8(ascii: "t"))
                    case 0x08: bytes.append(UInt8(ascii: "b"))
                    case 0x0C: bytes.append(UInt8(ascii: "f"))
                    default:
                        let hex = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                    }
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
            bytes.append(UInt8(ascii: "\""))
        }

        mutating func integer(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

        /// A finite double in its shortest form that reads back to the same value, as
        /// `JSONEncoder` writes it; infinities and NaN are refused, as there.
        mutating func double(_ value: Double) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, .init(codingPath: [], debugDescription: "Unable to encode \(value) directly in JSON."))
            }
            bytes.append(contentsOf: value.description.utf8)
        }

        /// `,"name":`: a key after the first.
        mutating func key(_ name: StaticString) {
            bytes.append(UInt8(ascii: ","))
            bytes.append(UInt8(ascii: "\""))
            raw(name)
            raw("\":")
        }

        mutating func write(_ clock: HybridLogicalClock) { string(clock.description) }

        mutating func write(_ value: FieldValue) throws {
            raw("{\"type\":\"")
            bytes.append(contentsOf: value.kind.rawValue.utf8)
            bytes.append(UInt8(ascii: "\""))
            switch value {
            case .null:
                bytes.append(UInt8(ascii: "}"))
                return
            case .string(let text), .decimal(let text), .url(let text), .reference(let text):
                key("value")
                string(text)
            case .int(let number):
                key("value")
                integer(number)
            case .double(let number), .date(let number):
                key("value")
                try double(number)
            case .bool(let flag):
                key("value")
                raw(flag ? "true" : "false")
            case .bytes(let data):
                key("value")
                string(data.base64EncodedString())
            case .asset(let reference):
                raw(",\"value\":{\"sha256\":")
                string(reference.sha256)
                key("size")
                integer(reference.size)
                bytes.append(UInt8(ascii: "}"))
            case .uuid(let uuid):
                key("value")
                string(uuid.uuidString)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        mutating func write(_ fields: [String: FieldValue]) throws {
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (name, value) in fields {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                string(name)
                bytes.append(UInt8(ascii: ":"))
                try write(value)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        mutating func write(_ clocks: [String: HybridLogicalClock]) {
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (name, clock) in clocks {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                string(name)
                bytes.append(UInt8(ascii: ":"))
                write(clock)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        mutating func write(_ change: RecordChange) throws {
            raw("{\"recordType\":")
            string(change.recordType)
            key("recordName")
            string(change.recordName)
            key("operation")
            string(change.operation.rawValue)
            key("fields")
            try write(change.fields)
            key("clocks")
            write(change.clocks)
            if let clock = change.deleteClock {
                key("deleteClock")
                write(clock)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        mutating func write(_ batch: ChangeBatch) throws {
            raw("{\"batchSequence\":")
            integer(batch.batchSequence)
            if let hash = batch.modelHash {
                key("modelHash")
                string(hash)
            }
            key("changes")
            bytes.append(UInt8(ascii: "["))
            for (index, change) in batch.changes.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(change)
            }
            raw("]}")
        }
    }

    // MARK: The reader

    /// Why the fast reader stopped; never shown (the `JSONDecoder` fallback's error is).
    struct NotTaken: Error {}

    struct Reader {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func isAtEnd() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        /// The next byte after white space, not consumed.
        private mutating func peek() throws -> UInt8 {
            skipSpace()
            guard index < bytes.count else { throw NotTaken() }
            return bytes[index]
        }

        private mutating func expect(_ byte: UInt8) throws {
            guard try peek() == byte else { throw NotTaken() }
            index += 1
        }

        /// Consumes `null` when it comes next.
        private mutating func readNull() throws -> Bool {
            guard try peek() == UInt8(ascii: "n") else { return false }
            try literal("null")
            return true
        }

        private mutating func literal(_ text: StaticString) throws {
            let matches = text.withUTF8Buffer { expected -> Bool in
                guard bytes.count - index >= expected.count else { return false }
                for offset in 0..<expected.count where bytes[index + offset] != expected[offset] { return false }
                return true
            }
            guard matches else { throw NotTaken() }
            index += text.utf8CodeUnitCount
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return try text(start..<index)
                }
                if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
                guard byte >= 0x20 else { throw NotTaken() }
                index += 1
            }
            throw NotTaken()
        }

        private func text(_ range: Range<Int>) throws -> String {
            guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
                throw NotTaken()
            }
            return text
        }

        private mutating func escapedString(from start: Int) throws -> String {
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw NotTaken() }
                    return text
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw NotTaken() }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            try literal("\\u")
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw NotTaken() }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw NotTaken() }
                        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default: throw NotTaken()
                    }
                default:
                    guard byte >= 0x20 else { throw NotTaken() }
                    utf8.append(byte)
                }
            }
            throw NotTaken()
        }

        private mutating func hex4() throws -> UInt32 {
            guard bytes.count - index >= 4 else { throw NotTaken() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw NotTaken()
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// A number's text, checked against JSON's grammar; whether it has a fraction or exponent.
        private mutating func number() throws -> (Range<Int>, isInteger: Bool) {
            skipSpace()
            let start = index
            func digits() -> Int {
                let first = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - first
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            let count = digits()
            guard count > 0, count == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw NotTaken() }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw NotTaken() }
                isInteger = false
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw NotTaken() }
                isInteger = false
            }
            return (start..<index, isInteger)
        }

        mutating func int64() throws -> Int64 {
            let (range, isInteger) = try number()
            guard isInteger, let value = Int64(try text(range)) else { throw NotTaken() }
            return value
        }

        mutating func double() throws -> Double {
            let (range, _) = try number()
            guard let value = Double(try text(range)), value.isFinite else { throw NotTaken() }
            if value == 0 {
                // Too small for a double (1e-400): Foundation refuses it rather than read 0.
                let mantissa = bytes[range].prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
                guard mantissa.allSatisfy({ $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
                else { throw NotTaken() }
            }
            return value
        }

        mutating func bool() throws -> Bool {
            switch try peek() {
            case UInt8(ascii: "t"):
                try literal("true")
                return true
            case UInt8(ascii: "f"):
                try literal("false")
                return false
            default: throw NotTaken()
            }
        }

        /// Reads an object, calling `body` with each key (positioned at its value).
        mutating func object(_ body: (inout Reader, String) throws -> Void) throws {
            try expect(UInt8(ascii: "{"))
            if try peek() == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                let key = try string()
                try expect(UInt8(ascii: ":"))
                try body(&self, key)
                switch try peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return
                default: throw NotTaken()
                }
            }
        }

        /// An object read as a type's keyed container: a key written twice is left to
        /// `JSONDecoder`, which keeps the first value where `object` would keep the last.
        mutating func keyedObject(_ body: (inout Reader, String) throws -> Void) throws {
            // A type has a few keys: a list is cheaper than a set.
            var keys: [String] = []
            try object { reader, key in
                guard !keys.contains(key) else { throw NotTaken() }
                keys.append(key)
                try body(&reader, key)
            }
        }

        mutating func array(_ body: (inout Reader) throws -> Void) throws {
            try expect(UInt8(ascii: "["))
            if try peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                try body(&self)
                switch try peek() {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return
                default: throw NotTaken()
                }
            }
        }

        /// Skips a value of a key the types do not have (as `Codable` ignores it), at most a
        /// few levels deep.
        mutating func skipValue(depth: Int = 0) throws {
            guard depth < 32 else { throw NotTaken() }
            switch try peek() {
            case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["): try array { reader in try reader.skipValue(depth: depth + 1) }
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
            case UInt8(ascii: "n"): try literal("null")
            default: _ = try number()
            }
        }

        // MARK: The wire types

        mutating func clock() throws -> HybridLogicalClock {
            guard let clock = HybridLogicalClock(try string()) else { throw NotTaken() }
            return clock
        }

        mutating func optionalClock() throws -> HybridLogicalClock? { try readNull() ? nil : try clock() }

        mutating func optionalString() throws -> String? { try readNull() ? nil : try string() }

        mutating func fieldValue() throws -> FieldValue {
            var kind: FieldValue.Kind?
            var value: FieldValue?
            // Which value to read depends on `type`; a `value` written before it (as
            // `JSONEncoder` may order the keys) is skipped and read once `type` is known.
            var valueAhead: Reader?
            try keyedObject { reader, key in
                switch key {
                case "type":
                    guard let read = FieldValue.Kind(rawValue: try reader.string()) else { throw NotTaken() }
                    kind = read
                case "value":
                    if let kind {
                        value = try reader.value(of: kind)
                    } else {
                        valueAhead = reader
                        try reader.skipValue()
                    }
                default: try reader.skipValue()
                }
            }
            guard let kind else { throw NotTaken() }
            if kind == .null { return .null }
            if value == nil, var ahead = valueAhead { value = try ahead.value(of: kind) }
            guard let value else { throw NotTaken() }
            return value
        }

        private mutating func value(of kind: FieldValue.Kind) throws -> FieldValue {
            switch kind {
            case .null:
                try skipValue()
                return .null
            case .string: return .string(try string())
            case .int: return .int(try int64())
            case .double: return .double(try double())
            case .bool: return .bool(try bool())
            case .date: return .date(try double())
            case .bytes:
                guard let data = Data(base64Encoded: try string()) else { throw NotTaken() }
                return .bytes(data)
            case .asset:
                var sha: String?
                var size: Int64?
                try keyedObject { reader, key in
                    switch key {
                    case "sha256": sha = try reader.string()
                    case "size": size = try reader.int64()
                    default: try reader.skipValue()
                    }
                }
                guard let sha, let size else { throw NotTaken() }
                return .asset(AssetReference(sha256: sha, size: size))
            case .decimal: return .decimal(try string())
            case .uuid:
                guard let uuid = UUID(uuidString: try string()) else { throw NotTaken() }
                return .uuid(uuid)
            case .url: return .url(try string())
            case .reference: return .reference(try string())
            }
        }

        mutating func fields() throws -> [String: FieldValue] {
            var fields: [String: FieldValue] = [:]
            // A key written twice is left to JSONDecoder, which keeps the first value.
            try object { reader, key in
                guard fields.updateValue(try reader.fieldValue(), forKey: key) == nil else { throw NotTaken() }
            }
            return fields
        }

        mutating func clocks() throws -> [String: HybridLogicalClock] {
            var clocks: [String: HybridLogicalClock] = [:]
            try object { reader, key in
                guard clocks.updateValue(try reader.clock(), forKey: key) == nil else { throw NotTaken() }
            }
            return clocks
        }

        mutating func recordChange() throws -> RecordChange {
            var type: String?
            var name: String?
            var operation: RecordChange.Operation?
            var fields: [String: FieldValue]?
            var clocks: [String: HybridLogicalClock]?
            var deleteClock: HybridLogicalClock?
            try keyedObject { reader, key in
                switch key {
                case "recordType": type = try reader.string()
                case "recordName": name = try reader.string()
                case "operation":
                    guard let read = RecordChange.Operation(rawValue: try reader.string()) else { throw NotTaken() }
                    operation = read
                case "fields": fields = try reader.fields()
                case "clocks": clocks = try reader.clocks()
                // Never null in a change (`RecordChange.init(from:)` refuses it too).
                case "deleteClock": deleteClock = try reader.clock()
                default: try reader.skipValue()
                }
            }
            guard let type, let name, let operation, let fields, let clocks else { throw NotTaken() }
            return RecordChange(
                recordType: type, recordName: name, operation: operation, fields: fields, clocks: clocks,
                deleteClock: deleteClock)
        }

        mutating func changeBatch() throws -> ChangeBatch {
            var sequence: Int64?
            var hash: String?
            var changes: [RecordChange]?
            try keyedObject { reader, key in
                switch key {
                case "batchSequence": sequence = try reader.int64()
                case "modelHash": hash = try reader.string()
                case "changes":
                    var read: [RecordChange] = []
                    try reader.array { reader in read.append(try reader.recordChange()) }
                    changes = read
                default: try reader.skipValue()
                }
            }
            guard let sequence, let changes else { throw NotTaken() }
            return ChangeBatch(batchSequence: sequence, modelHash: hash, changes: changes)
        }

        mutating func pushRequest() throws -> PushRequest {
            var client: String?
            var batches: [ChangeBatch]?
            try keyedObject { reader, key in
                switch key {
                case "clientID": client = try reader.string()
                case "batches":
                    var read: [ChangeBatch] = []
                    try reader.array { reader in read.append(try reader.changeBatch()) }
                    batches = read
                default: try reader.skipValue()
                }
            }
            guard let client, let batches else { throw NotTaken() }
            return PushRequest(clientID: client, batches: batches)
        }

        mutating func recordState() throws -> RecordState {
            var type: String?
            var name: String?
            var fields: [String: FieldValue]?
            var clocks: [String: HybridLogicalClock]?
            var deleted: Bool?
            var deleteClock: HybridLogicalClock?
            var sequence: Int64?
            var changedBy: String?
            try keyedObject { reader, key in
                switch key {
                case "recordType": type = try reader.string()
                case "recordName": name = try reader.string()
                case "fields": fields = try reader.fields()
                case "clocks": clocks = try reader.clocks()
                case "deleted": deleted = try reader.bool()
                case "deleteClock": deleteClock = try reader.optionalClock()
                case "serverSequence": sequence = try reader.int64()
                case "changedBy": changedBy = try reader.optionalString()
                default: try reader.skipValue()
                }
            }
            guard let type, let name, let fields, let clocks, let deleted, let sequence else { throw NotTaken() }
            return RecordState(
                recordType: type, recordName: name, fields: fields, clocks: clocks, deleted: deleted,
                deleteClock: deleteClock, serverSequence: sequence, changedBy: changedBy)
        }

        mutating func changesResponse() throws -> ChangesResponse {
            var records: [RecordState]?
            var token: String?
            var hasMore: Bool?
            try keyedObject { reader, key in
                switch key {
                case "records":
                    var read: [RecordState] = []
                    try reader.array { reader in read.append(try reader.recordState()) }
                    records = read
                case "nextToken": token = try reader.string()
                case "hasMore": hasMore = try reader.bool()
                default: try reader.skipValue()
                }
            }
            guard let records, let token, let hasMore else { throw NotTaken() }
            return ChangesResponse(records: records, nextToken: token, hasMore: hasMore)
        }
    }
}

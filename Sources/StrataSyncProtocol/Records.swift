import Foundation

/// The wire format of Strata's sync protocol, shared by the server (`strata-sync`) and the
/// client (`NSPersistentCloudKitContainer`). The server is generic, as CloudKit is: it keeps
/// records of any type with any fields, never the app's entities. `openapi.yaml` in the
/// repository describes the same types for clients written in other languages.
///
/// Records follow CloudKit's mirroring of Core Data: a record per object (type `CD_<Entity>` of
/// the root entity, fields `CD_<attribute>`, its own stable record name), a to-one
/// relationship as a string field holding the related record's name, and a record of type
/// `CDMR` per many-to-many link.

/// A hybrid logical clock reading: wall time in milliseconds, a counter for events within one
/// millisecond, and the writing client's ID to break ties. Readings order by all three, so two
/// clients never produce equal readings; a client advances its clock past every reading it
/// sees, so a later edit anywhere compares greater than an earlier one it knew of.
///
/// On the wire a reading is one string, `"<wall ms>-<counter>-<client ID>"`, with the wall time
/// and counter in decimal, so that clocks can be compared in PostgreSQL too.
public struct HybridLogicalClock: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var wallMilliseconds: Int64
    public var counter: UInt32
    public var node: String

    public init(wallMilliseconds: Int64, counter: UInt32, node: String) {
        self.wallMilliseconds = wallMilliseconds
        self.counter = counter
        self.node = node
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.wallMilliseconds, lhs.counter, lhs.node) < (rhs.wallMilliseconds, rhs.counter, rhs.node)
    }

    /// The reading written as `"<wall ms>-<counter>-<client ID>"`.
    public var description: String { "\(wallMilliseconds)-\(counter)-\(node)" }

    /// Reads a reading written by `description`; nil for anything else. A client ID may hold
    /// dashes itself: only the first two separate fields. (Read byte by byte: every field of
    /// every record pulled or pushed carries a reading.)
    public init?(_ text: String) {
        var text = text
        let parsed: (Int64, UInt32, String)? = text.withUTF8 { bytes in
            var index = 0
            func number(max: UInt64) -> UInt64? {
                let start = index
                var value: UInt64 = 0
                while index < bytes.count, bytes[index] != UInt8(ascii: "-") {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10, index - start < 19 else { return nil }
                    value = value * 10 + UInt64(digit)
                    index += 1
                }
                guard index > start, index < bytes.count, value <= max else { return nil }
                index += 1  // the dash
                return value
            }
            guard let wall = number(max: UInt64(Int64.max)), let counter = number(max: UInt64(UInt32.max)),
                index < bytes.count
            else { return nil }
            let node = String(decoding: UnsafeBufferPointer(rebasing: bytes[index...]), as: UTF8.self)
            return (Int64(wall), UInt32(counter), node)
        }
        guard let (wall, counter, node) = parsed else { return nil }
        self.init(wallMilliseconds: wall, counter: counter, node: node)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let clock = HybridLogicalClock(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Not a clock reading (\"<wall ms>-<counter>-<client ID>\"): \(text)")
        }
        self = clock
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A field's value, typed as CloudKit's fields are. On the wire an object with `type` and
/// `value`: `{"type": "string", "value": "Buy milk"}`.
///
/// - `date`: seconds since 2001-01-01 00:00:00 UTC (a JSON number), Core Data's own unit, so
///   that a date goes through the server and back unchanged to the last bit.
/// - `bytes`: base64; values larger than the client's asset threshold travel as `asset`.
/// - `asset`: the SHA-256 (lower-case hex) and size of bytes uploaded to the zone's assets.
/// - `decimal`: the decimal number as a string, exact.
/// - `reference`: the record name of a related record (a to-one relationship).
public enum FieldValue: Hashable, Sendable, Codable {
    case null
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case date(Double)
    case bytes(Data)
    case asset(AssetReference)
    case decimal(String)
    case uuid(UUID)
    case url(String)
    case reference(String)

    private enum CodingKeys: String, CodingKey { case type, value }

    /// The `type` strings of the wire format, in the order of the cases.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case null, string, int, double, bool, date, bytes, asset, decimal, uuid, url, reference
    }

    public var kind: Kind {
        switch self {
        case .null: .null
        case .string: .string
        case .int: .int
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .bytes: .bytes
        case .asset: .asset
        case .decimal: .decimal
        case .uuid: .uuid
        case .url: .url
        case .reference: .reference
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(Kind.self, forKey: .type)
        switch kind {
        case .null: self = .null
        case .string: self = .string(try container.decode(String.self, forKey: .value))
        case .int: self = .int(try container.decode(Int64.self, forKey: .value))
        case .double: self = .double(try container.decode(Double.self, forKey: .value))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: .value))
        case .date: self = .date(try container.decode(Double.self, forKey: .value))
        case .bytes: self = .bytes(try container.decode(Data.self, forKey: .value))
        case .asset: self = .asset(try container.decode(AssetReference.self, forKey: .value))
        case .decimal: self = .decimal(try container.decode(String.self, forKey: .value))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: .value))
        case .url: self = .url(try container.decode(String.self, forKey: .value))
        case .reference: self = .reference(try container.decode(String.self, forKey: .value))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .type)
        switch self {
        case .null: break
        case .string(let value), .decimal(let value), .url(let value), .reference(let value):
            try container.encode(value, forKey: .value)
        case .int(let value): try container.encode(value, forKey: .value)
        case .double(let value), .date(let value): try container.encode(value, forKey: .value)
        case .bool(let value): try container.encode(value, forKey: .value)
        case .bytes(let value): try container.encode(value, forKey: .value)
        case .asset(let value): try container.encode(value, forKey: .value)
        case .uuid(let value): try container.encode(value, forKey: .value)
        }
    }
}

/// Bytes kept in a zone's asset store, named by their content.
public struct AssetReference: Hashable, Sendable, Codable {
    /// SHA-256 of the bytes, lower-case hex (64 characters).
    public var sha256: String
    public var size: Int64

    public init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }
}

/// One change a client pushes: the fields it changed (only those) with the clock reading of
/// each, or the record's deletion with the reading of the delete.
public struct RecordChange: Hashable, Sendable, Codable {
    public enum Operation: String, Hashable, Sendable, Codable {
        case upsert, delete
    }

    public var recordType: String
    public var recordName: String
    public var operation: Operation
    /// The changed fields (upsert); empty for a delete.
    public var fields: [String: FieldValue]
    /// The clock reading of each changed field (upsert): the same keys as `fields`.
    public var clocks: [String: HybridLogicalClock]
    /// The clock reading of the delete (delete only).
    public var deleteClock: HybridLogicalClock?

    public init(
        recordType: String, recordName: String, operation: Operation, fields: [String: FieldValue] = [:],
        clocks: [String: HybridLogicalClock] = [:], deleteClock: HybridLogicalClock? = nil
    ) {
        self.recordType = recordType
        self.recordName = recordName
        self.operation = operation
        self.fields = fields
        self.clocks = clocks
        self.deleteClock = deleteClock
    }

    /// As synthesized, except that `deleteClock` is absent or a clock, never `null`: the wire
    /// format (Documentation/sync-openapi.yaml) has no null there, and the writers leave it out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordType = try container.decode(String.self, forKey: .recordType)
        recordName = try container.decode(String.self, forKey: .recordName)
        operation = try container.decode(Operation.self, forKey: .operation)
        fields = try container.decode([String: FieldValue].self, forKey: .fields)
        clocks = try container.decode([String: HybridLogicalClock].self, forKey: .clocks)
        deleteClock =
            container.contains(.deleteClock) ? try container.decode(HybridLogicalClock.self, forKey: .deleteClock) : nil
    }
}

/// A record as the server keeps it after merging every push: the winning value and clock of
/// each field, or a tombstone. Pulls and queries answer with these.
public struct RecordState: Hashable, Sendable, Codable {
    public var recordType: String
    public var recordName: String
    public var fields: [String: FieldValue]
    public var clocks: [String: HybridLogicalClock]
    /// Whether the record was deleted (a tombstone: `fields` is empty).
    public var deleted: Bool
    public var deleteClock: HybridLogicalClock?
    /// The zone sequence number of the record's latest change.
    public var serverSequence: Int64
    /// The client whose push made the latest change, so that a client can tell its own.
    public var changedBy: String?

    public init(
        recordType: String, recordName: String, fields: [String: FieldValue], clocks: [String: HybridLogicalClock],
        deleted: Bool, deleteClock: HybridLogicalClock?, serverSequence: Int64, changedBy: String?
    ) {
        self.recordType = recordType
        self.recordName = recordName
        self.fields = fields
        self.clocks = clocks
        self.deleted = deleted
        self.deleteClock = deleteClock
        self.serverSequence = serverSequence
        self.changedBy = changedBy
    }
}

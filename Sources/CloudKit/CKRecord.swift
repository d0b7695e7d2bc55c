import Foundation
import StrataSyncProtocol

/// The name CloudKit gives the current user as a zone's owner.
public let CKCurrentUserDefaultName = "__defaultOwner__"

/// A value a record field holds: the Foundation types CloudKit takes.
public protocol CKRecordValue {}
extension String: CKRecordValue {}
extension NSNumber: CKRecordValue {}
extension Date: CKRecordValue {}
extension Data: CKRecordValue {}
extension NSArray: CKRecordValue {}

/// A record zone's identity: its name and owner.
public final class CKRecordZone: NSObject, @unchecked Sendable {
    /// The zone Core Data's mirroring keeps its records in.
    public static let coreDataZoneName = SyncPaths.defaultZone

    public let zoneID: ID

    public init(zoneName: String) {
        zoneID = ID(zoneName: zoneName, ownerName: CKCurrentUserDefaultName)
        super.init()
    }

    /// A zone's name and owner.
    public final class ID: NSObject, @unchecked Sendable {
        public let zoneName: String
        public let ownerName: String

        public init(zoneName: String = "_defaultZone", ownerName: String = CKCurrentUserDefaultName) {
            self.zoneName = zoneName
            self.ownerName = ownerName
            super.init()
        }

        public static let `default` = ID()

        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? ID else { return false }
            return other.zoneName == zoneName && other.ownerName == ownerName
        }

        public override var hash: Int { zoneName.hashValue ^ ownerName.hashValue }

        public override var description: String { "<CKRecordZoneID: \(zoneName):\(ownerName)>" }
    }
}

/// Bytes a record keeps beside its fields (Core Data's large binary values).
public final class CKAsset: NSObject, CKRecordValue, @unchecked Sendable {
    /// Where the bytes are on disk; nil until downloaded (Strata keeps them on the server).
    public let fileURL: URL?
    /// The bytes' SHA-256 (lower-case hex) and size, as the server names them (Strata).
    public let sha256: String
    public let size: Int64

    init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
        self.fileURL = nil
        super.init()
    }
}

/// One record of a zone, with its fields as Foundation values: strings, numbers (`NSNumber`,
/// booleans included), dates, data, assets; a to-one relationship as the related record's
/// name (a string), as Core Data's mirroring keeps it.
///
/// ```swift
/// let title = record["CD_title"] as? String
/// let isExample = (record["CD_isExample"] as? NSNumber)?.boolValue
/// ```
public final class CKRecord: NSObject, @unchecked Sendable {
    public let recordType: String
    public let recordID: ID
    private var values: [String: any CKRecordValue]

    /// A record's identity: its name and zone.
    public final class ID: NSObject, @unchecked Sendable {
        public let recordName: String
        public let zoneID: CKRecordZone.ID

        public init(recordName: String, zoneID: CKRecordZone.ID = .default) {
            self.recordName = recordName
            self.zoneID = zoneID
            super.init()
        }

        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? ID else { return false }
            return other.recordName == recordName && other.zoneID == zoneID
        }

        public override var hash: Int { recordName.hashValue }

        public override var description: String { "<CKRecordID: \(recordName); zoneID=\(zoneID.zoneName)>" }
    }

    public init(recordType: String, recordID: ID = ID(recordName: UUID().uuidString)) {
        self.recordType = recordType
        self.recordID = recordID
        self.values = [:]
        super.init()
    }

    /// A record as the server gave it.
    init(state: RecordState, zoneID: CKRecordZone.ID) {
        recordType = state.recordType
        recordID = ID(recordName: state.recordName, zoneID: zoneID)
        values = [:]
        super.init()
        for (key, value) in state.fields {
            if let converted = Self.recordValue(value) { values[key] = converted }
        }
    }

    /// A field's value; nil when the record has none.
    public subscript(key: String) -> (any CKRecordValue)? {
        get { values[key] }
        set { values[key] = newValue }
    }

    public func object(forKey key: String) -> (any CKRecordValue)? { values[key] }

    public func setObject(_ object: (any CKRecordValue)?, forKey key: String) { values[key] = object }

    /// The names of the fields that have values.
    public func allKeys() -> [String] { values.keys.sorted() }

    public override var description: String {
        "<CKRecord \(recordType) \(recordID.recordName) {\(allKeys().joined(separator: ", "))}>"
    }

    /// A wire value as CloudKit's Foundation value.
    static func recordValue(_ value: FieldValue) -> (any CKRecordValue)? {
        switch value {
        case .null: nil
        case .string(let text), .url(let text), .reference(let text): text
        case .int(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .bool(let flag): NSNumber(value: flag)
        case .date(let seconds): Date(timeIntervalSinceReferenceDate: seconds)
        case .bytes(let data): data
        case .asset(let reference): CKAsset(sha256: reference.sha256, size: reference.size)
        case .decimal(let text):
            Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { NSDecimalNumber(decimal: $0) }
        case .uuid(let uuid): uuid.uuidString
        }
    }
}

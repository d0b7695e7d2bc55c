import Foundation

/// The requests and answers of each endpoint. Paths (all under `/v1`, every one but
/// `/health` with `Authorization: Bearer <JWT>`):
///
/// | method and path | body | answer |
/// |---|---|---|
/// | `GET /health` | | 200 `{"status":"ok"}` |
/// | `GET /v1/zones` | | `ZoneList` |
/// | `PUT /v1/zones/{zone}` | | `ZoneInfo` (creates it for the token's user; idempotent) |
/// | `GET /v1/zones/{zone}` | | `ZoneInfo` |
/// | `DELETE /v1/zones/{zone}` | | 204; the zone's epoch moves, so every client resyncs |
/// | `POST /v1/zones/{zone}/push` | `PushRequest` | `PushResponse` |
/// | `GET /v1/zones/{zone}/changes?since=T&limit=N&wait=S` | | `ChangesResponse` |
/// | `POST /v1/zones/{zone}/query` | `QueryRequest` | `QueryResponse` |
/// | `PUT /v1/zones/{zone}/assets/{sha256}` | the bytes | 204 (the hash is checked) |
/// | `GET /v1/schema` | | `SchemaIndexes` |
/// | `PUT /v1/schema` | `SchemaIndexes` | `SchemaIndexes` (adds indexes; built in the background) |
/// | `GET /v1/zones/{zone}/assets/{sha256}` | | the bytes |
///
/// Errors answer with `ErrorResponse` and the status codes of `SyncErrorCode`.
public enum SyncPaths {
    /// The zone Apple's mirroring uses; Strata's client uses it too unless told otherwise.
    public static let defaultZone = "com.apple.coredata.cloudkit.zone"
    /// The longest long poll, in seconds: a pull's `wait=` past it answers 400.
    public static let longestWait = 60
    public static let health = "/health"
    public static let zones = "/v1/zones"
    public static func zone(_ name: String) -> String { "/v1/zones/\(escape(name))" }
    public static func push(_ zone: String) -> String { "\(self.zone(zone))/push" }
    public static func changes(_ zone: String) -> String { "\(self.zone(zone))/changes" }
    public static func query(_ zone: String) -> String { "\(self.zone(zone))/query" }
    public static func asset(_ zone: String, sha256: String) -> String { "\(self.zone(zone))/assets/\(sha256)" }
    /// The server's indexes of record fields (all users' zones share them, as a CloudKit
    /// container's schema does).
    public static let schema = "/v1/schema"

    /// A zone name as one path segment.
    static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}

/// A client's changes, in the order it made them. Each batch is one local transaction; the
/// server applies a batch at most once (by client ID and batch sequence) and in order: a batch
/// whose `batchSequence` is not one past the last applied one of that client answers 409
/// `outOfOrder` with the last applied number, so the client resends from there.
public struct PushRequest: Hashable, Sendable, Codable {
    /// The client's ID: stable for one store on one device, registered to the token's user
    /// on first push.
    public var clientID: String
    public var batches: [ChangeBatch]

    public init(clientID: String, batches: [ChangeBatch]) {
        self.clientID = clientID
        self.batches = batches
    }
}

public struct ChangeBatch: Hashable, Sendable, Codable {
    /// 1, 2, 3… per client, without gaps.
    public var batchSequence: Int64
    /// The version hash of the client's model, for the zone's schema checks and diagnostics.
    public var modelHash: String?
    public var changes: [RecordChange]

    public init(batchSequence: Int64, modelHash: String? = nil, changes: [RecordChange]) {
        self.batchSequence = batchSequence
        self.modelHash = modelHash
        self.changes = changes
    }

    /// As synthesized, except that `modelHash` is absent or a string, never `null`, as the
    /// wire format has it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        batchSequence = try container.decode(Int64.self, forKey: .batchSequence)
        modelHash = container.contains(.modelHash) ? try container.decode(String.self, forKey: .modelHash) : nil
        changes = try container.decode([RecordChange].self, forKey: .changes)
    }
}

public struct PushResponse: Hashable, Sendable, Codable {
    /// The batch sequence numbers applied by this request.
    public var applied: [Int64]
    /// Batches applied before (a retried push): skipped, nothing changed.
    public var alreadyApplied: [Int64]
    /// The last batch sequence number of this client the server has applied.
    public var lastBatchSequence: Int64
    /// The zone's sequence number after the push.
    public var serverSequence: Int64

    public init(applied: [Int64], alreadyApplied: [Int64], lastBatchSequence: Int64, serverSequence: Int64) {
        self.applied = applied
        self.alreadyApplied = alreadyApplied
        self.lastBatchSequence = lastBatchSequence
        self.serverSequence = serverSequence
    }
}

/// The records changed after the request's `since` token (every record, tombstones included,
/// when it has none), in server sequence order, at most `limit` of them. With `wait=S` (up to
/// 60 seconds) and nothing new, the server holds the request until a change arrives or the
/// time is up (a long poll), then answers.
public struct ChangesResponse: Hashable, Sendable, Codable {
    public var records: [RecordState]
    /// The token to send next time; opaque to clients.
    public var nextToken: String
    /// Whether more changes wait past `nextToken` (pull again at once).
    public var hasMore: Bool

    public init(records: [RecordState], nextToken: String, hasMore: Bool) {
        self.records = records
        self.nextToken = nextToken
        self.hasMore = hasMore
    }
}

/// `CKQuery` on the server: records of one type whose fields match an `NSPredicate` format
/// string (the predicate's `predicateFormat`, constants written in), evaluated with Strata's
/// predicate language over the zone's live records.
public struct QueryRequest: Hashable, Sendable, Codable {
    public var recordType: String
    /// Nil or `"TRUEPREDICATE"` for every record of the type.
    public var predicate: String?
    public var sort: [SortKey]
    /// At most this many records (the server caps it); nil for the server's cap.
    public var limit: Int?
    /// The `cursor` of a previous answer, to continue it.
    public var cursor: String?

    public init(recordType: String, predicate: String?, sort: [SortKey] = [], limit: Int? = nil, cursor: String? = nil) {
        self.recordType = recordType
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
    }
}

/// The indexes of record fields a server keeps, as CloudKit's schema marks fields: a
/// *queryable* field answers `==`, `<`, `BEGINSWITH`, `IN`… from an index, a *sortable* one
/// sorts from it. Indexes belong to the server (every user's zones), like a CloudKit
/// container's schema; `PUT /v1/schema` adds the ones it names (never drops one) and answers
/// with all of them. A new index is built in the background (`state` `building`, then
/// `ready`); queries are answered without it until then, only slower.
public struct SchemaIndexes: Hashable, Sendable, Codable {
    public var indexes: [FieldIndex]

    public init(indexes: [FieldIndex]) { self.indexes = indexes }
}

public struct FieldIndex: Hashable, Sendable, Codable {
    /// `building` while PostgreSQL builds it, `ready` once queries use it, `failed` when the
    /// build failed (a `PUT` of the same index tries again).
    public enum State: String, Hashable, Sendable, Codable {
        case building, ready, failed
    }

    public var recordType: String
    public var field: String
    /// The kind of the field's values the index orders (a zone whose field holds another
    /// kind is answered without it).
    public var kind: FieldValue.Kind
    public var queryable: Bool
    public var sortable: Bool
    /// Set by the server in answers; ignored in requests.
    public var state: State?

    public init(
        recordType: String, field: String, kind: FieldValue.Kind, queryable: Bool = true, sortable: Bool = true,
        state: State? = nil
    ) {
        self.recordType = recordType
        self.field = field
        self.kind = kind
        self.queryable = queryable
        self.sortable = sortable
        self.state = state
    }

    /// As synthesized, except that `state` is absent or a state, never `null`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordType = try container.decode(String.self, forKey: .recordType)
        field = try container.decode(String.self, forKey: .field)
        kind = try container.decode(FieldValue.Kind.self, forKey: .kind)
        queryable = try container.decodeIfPresent(Bool.self, forKey: .queryable) ?? false
        sortable = try container.decodeIfPresent(Bool.self, forKey: .sortable) ?? false
        state = container.contains(.state) ? try container.decode(State.self, forKey: .state) : nil
    }
}

public struct SortKey: Hashable, Sendable, Codable {
    public var field: String
    public var ascending: Bool

    public init(field: String, ascending: Bool) {
        self.field = field
        self.ascending = ascending
    }
}

public struct QueryResponse: Hashable, Sendable, Codable {
    public var records: [RecordState]
    /// Present when more records match: send it back as `QueryRequest.cursor`.
    public var cursor: String?

    public init(records: [RecordState], cursor: String?) {
        self.records = records
        self.cursor = cursor
    }
}

public struct ZoneInfo: Hashable, Sendable, Codable {
    public var name: String
    /// The zone's latest sequence number.
    public var serverSequence: Int64
    /// Tokens at or below this sequence number answer 410 `resyncRequired`.
    public var tombstoneHorizon: Int64
    /// Changes when the zone is deleted and made again: tokens of another epoch answer 410.
    public var epoch: Int64
    /// The fields seen per record type, with their value kinds.
    public var schema: [String: [String: FieldValue.Kind]]

    public init(
        name: String, serverSequence: Int64, tombstoneHorizon: Int64, epoch: Int64,
        schema: [String: [String: FieldValue.Kind]]
    ) {
        self.name = name
        self.serverSequence = serverSequence
        self.tombstoneHorizon = tombstoneHorizon
        self.epoch = epoch
        self.schema = schema
    }
}

public struct ZoneList: Hashable, Sendable, Codable {
    public var zones: [ZoneInfo]

    public init(zones: [ZoneInfo]) { self.zones = zones }
}

/// What went wrong, with the HTTP status each answers with.
public enum SyncErrorCode: String, Hashable, Sendable, Codable {
    /// 400: a body that is not the expected JSON, a bad field, a bad token.
    case badRequest
    /// 400: more records in one request than the server takes (CloudKit's "limit exceeded").
    case limitExceeded
    /// 401: no token, a bad signature, an expired token.
    case unauthorized
    /// 404: no such zone or asset, or one that belongs to another user.
    case notFound
    /// 409: a batch out of order (`lastBatchSequence` in the details says where to resume).
    case outOfOrder
    /// 409: a field whose kind differs from the one the zone's schema has.
    case schemaConflict
    /// 410: the token is older than the tombstone horizon or of another epoch: resync.
    case resyncRequired
    /// 413: the body is larger than the server takes.
    case payloadTooLarge
    /// 429: too many requests; retry after the `Retry-After` header's seconds.
    case rateLimited
    /// 500: the server failed; retry later.
    case internalError

    public var httpStatus: Int {
        switch self {
        case .badRequest, .limitExceeded: 400
        case .unauthorized: 401
        case .notFound: 404
        case .outOfOrder, .schemaConflict: 409
        case .resyncRequired: 410
        case .payloadTooLarge: 413
        case .rateLimited: 429
        case .internalError: 500
        }
    }
}

public struct ErrorResponse: Hashable, Sendable, Codable {
    public struct Body: Hashable, Sendable, Codable {
        public var code: SyncErrorCode
        public var message: String
        /// For `outOfOrder`: the last batch sequence the server applied for the client.
        public var lastBatchSequence: Int64?

        public init(code: SyncErrorCode, message: String, lastBatchSequence: Int64? = nil) {
            self.code = code
            self.message = message
            self.lastBatchSequence = lastBatchSequence
        }
    }

    public var error: Body

    public init(error: Body) { self.error = error }
}

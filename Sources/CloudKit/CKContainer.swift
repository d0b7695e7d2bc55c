import Foundation
import Strata
import StrataSyncProtocol

/// A container of databases, named by its identifier. The server it talks to is the one of the
/// `NSPersistentCloudKitContainer` whose store options carry the same identifier (looked up
/// when a request runs, so that the order of set-up does not matter), or the one given
/// explicitly.
///
/// ```swift
/// let container = CKContainer(identifier: "iCloud.com.example.Habits")
/// let records = try await container.privateCloudDatabase.perform(query, inZoneWith: nil)
/// ```
public final class CKContainer: NSObject, @unchecked Sendable {
    public let containerIdentifier: String?
    let explicit: Connection?

    /// The server a container talks to.
    struct Connection: Sendable {
        var serverURL: URL
        var tokenProvider: (@Sendable () async throws -> String)?
        var zoneName: String
    }

    /// The container with the identifier: its server is the one of the
    /// `NSPersistentCloudKitContainer` whose options name the identifier.
    public init(identifier: String) {
        containerIdentifier = identifier
        explicit = nil
        super.init()
    }

    /// A container talking to a given server (Strata, beyond Apple).
    public init(
        identifier: String, serverURL: URL, zoneName: String = CKRecordZone.coreDataZoneName,
        tokenProvider: (@Sendable () async throws -> String)? = nil
    ) {
        containerIdentifier = identifier
        explicit = Connection(serverURL: serverURL, tokenProvider: tokenProvider, zoneName: zoneName)
        super.init()
    }

    /// The user's private database: where Core Data's mirroring keeps its records.
    public var privateCloudDatabase: CKDatabase { CKDatabase(container: self, scope: .private) }
    /// The public database, which a Strata server does not have: its requests fail.
    public var publicCloudDatabase: CKDatabase { CKDatabase(container: self, scope: .public) }

    /// The server to ask, or why there is none.
    func connection() throws -> Connection {
        if let explicit { return explicit }
        guard let identifier = containerIdentifier,
            let found = NSPersistentCloudKitContainer.syncConnection(forContainerIdentifier: identifier)
        else {
            throw CKError(
                .badContainer,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "No sync server is configured for container \(containerIdentifier ?? "nil"): load an "
                        + "NSPersistentCloudKitContainer whose options have this identifier and a server URL, "
                        + "or use CKContainer(identifier:serverURL:)."
                ])
        }
        return Connection(serverURL: found.serverURL, tokenProvider: found.tokenProvider, zoneName: found.zoneName)
    }
}

/// One of a container's databases.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// Which database.
    public enum Scope: Int, Sendable {
        case `public` = 1
        case `private` = 2
        case shared = 3
    }

    public let databaseScope: Scope
    private let container: CKContainer

    init(container: CKContainer, scope: Scope) {
        self.container = container
        self.databaseScope = scope
        super.init()
    }

    /// The records of the query's type matching its predicate in a zone (the container's
    /// mirrored zone for nil or the default zone), all of them, in the query's order.
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        guard databaseScope == .private else {
            throw CKError(
                .permissionFailure, userInfo: [NSLocalizedDescriptionKey: "A Strata sync server has only private databases."])
        }
        let connection = try container.connection()
        let zoneName =
            zoneID.flatMap { $0.zoneName == CKRecordZone.ID.default.zoneName ? nil : $0.zoneName } ?? connection.zoneName
        let zone = CKRecordZone.ID(zoneName: zoneName, ownerName: zoneID?.ownerName ?? CKCurrentUserDefaultName)
        let client = CloudKitClient(serverURL: connection.serverURL, tokenProvider: connection.tokenProvider)
        let sort = (query.sortDescriptors ?? []).compactMap { descriptor in
            descriptor.key.map { SortKey(field: $0, ascending: descriptor.ascending) }
        }
        var records: [CKRecord] = []
        var cursor: String?
        repeat {
            let request = QueryRequest(
                recordType: query.recordType, predicate: query.predicate.predicateFormat, sort: sort, cursor: cursor)
            let answer = try await client.query(request, zone: zoneName)
            records += answer.records.filter { !$0.deleted }.map { CKRecord(state: $0, zoneID: zone) }
            cursor = answer.cursor
        } while cursor != nil
        return records
    }

    /// `perform(_:inZoneWith:)` with a completion handler, called on a background queue.
    public func perform(
        _ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?,
        completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void
    ) {
        Task.detached {
            do {
                completionHandler(try await self.perform(query, inZoneWith: zoneID), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }
}

extension NSPersistentCloudKitContainer {
    /// The ID of the record mirroring an object, once it was exported or imported.
    public func recordID(for managedObjectID: NSManagedObjectID) -> CKRecord.ID? {
        guard let name = recordName(for: managedObjectID) else { return nil }
        return CKRecord.ID(recordName: name, zoneID: CKRecordZone.ID(zoneName: CKRecordZone.coreDataZoneName))
    }

    /// The IDs of the records mirroring objects, for those that have one.
    public func recordIDs(for managedObjectIDs: [NSManagedObjectID]) -> [NSManagedObjectID: CKRecord.ID] {
        var ids: [NSManagedObjectID: CKRecord.ID] = [:]
        for id in managedObjectIDs { ids[id] = recordID(for: id) }
        return ids
    }
}

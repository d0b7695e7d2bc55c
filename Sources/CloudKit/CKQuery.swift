import Foundation
import Strata

/// A search for records of one type whose fields match a predicate, run by a database.
///
/// ```swift
/// let query = CKQuery(recordType: "CD_Habit", predicate: NSPredicate(format: "CD_isExample = %@", NSNumber(true)))
/// let records = try await container.privateCloudDatabase.perform(query, inZoneWith: nil)
/// ```
///
/// The server evaluates the predicate's format (`predicateFormat`, constants written in) with
/// Strata's predicate language over the zone's records.
public final class CKQuery: NSObject, @unchecked Sendable {
    public let recordType: String
    public let predicate: NSPredicate
    /// The order of the results: field keys, ascending or not.
    public var sortDescriptors: [NSSortDescriptor]?

    public init(recordType: String, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
        super.init()
    }
}

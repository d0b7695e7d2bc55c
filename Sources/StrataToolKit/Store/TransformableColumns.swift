import Foundation
import GRDB
import Strata

/// The stored bytes of transformable attributes, read and written in their columns.
///
/// Going through the attribute's value would unarchive the bytes and archive them again:
/// Foundation's keyed archiver orders dictionary keys by hash, which differs from process to
/// process, and an archive of an app's own classes cannot always be read on Linux. The export
/// copies the bytes as they are, and the import writes them back after its save, in the same
/// copy of the store, before that copy replaces the store.
final class TransformableColumns {
    private let queue: DatabaseQueue
    private var columns: [String: Set<String>] = [:]

    init(storeURL: URL, readOnly: Bool) throws {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.prepareDatabase { db in
            // Apple's derived-attribute triggers call these (STORE-FORMAT §3.1).
            for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"] {
                db.add(function: DatabaseFunction(name, argumentCount: nil, pure: false) { _ in nil })
            }
        }
        queue = try DatabaseQueue(path: storeURL.path, configuration: configuration)
    }

    deinit { try? queue.close() }

    /// The table (the root entity's) and column of an attribute, when the column exists.
    func location(of attribute: NSAttributeDescription) -> (table: String, column: String)? {
        guard var root = attribute.entity else { return nil }
        while let parent = root.superentity { root = parent }
        let table = "Z" + (root.name ?? "").uppercased()
        let column = "Z" + attribute.name.uppercased()
        if columns[table] == nil {
            columns[table] = Set(((try? queue.read { db in try db.columns(in: table) }) ?? []).map { $0.name.uppercased() })
        }
        return columns[table]?.contains(column) == true ? (table, column) : nil
    }

    /// The bytes stored for an object's attribute; `nil` when NULL.
    func bytes(of attribute: NSAttributeDescription, primaryKey: Int64) throws -> Data? {
        guard let (table, column) = location(of: attribute) else { return nil }
        return try queue.read { db in
            try Data.fetchOne(db, sql: "SELECT \(column) FROM \(table) WHERE Z_PK = ?", arguments: [primaryKey])
        }
    }

    /// Writes stored bytes, all in one transaction.
    func write(_ values: [(attribute: NSAttributeDescription, primaryKey: Int64, bytes: Data)]) throws {
        let located = values.compactMap { value in location(of: value.attribute).map { ($0, value) } }
        try queue.write { db in
            for ((table, column), value) in located {
                try db.execute(
                    sql: "UPDATE \(table) SET \(column) = ? WHERE Z_PK = ?", arguments: [value.bytes, value.primaryKey])
            }
        }
    }
}

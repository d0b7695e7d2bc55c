import Foundation
import TodoKit

/// The data of a `change` event: a `TodoChange` with the number of the change, counted from 1
/// since the server started (also the event's id).
///
/// ```json
/// {"version": 3, "inserted": [{"id": "…", "title": "Buy milk", …}], "updated": [], "deleted": []}
/// ```
public struct LiveEvent: Codable, Equatable, Sendable {
    public var version: Int
    public var inserted: [TodoModel]
    public var updated: [TodoModel]
    public var deleted: [UUID]

    public init(version: Int, change: TodoChange) {
        self.version = version
        inserted = change.inserted
        updated = change.updated
        deleted = change.deleted
    }

    /// The change it carries.
    public var change: TodoChange { TodoChange(inserted: inserted, updated: updated, deleted: deleted) }

    /// The JSON of an event's `data:`: the interfaces' dates (`TodoJSON`), on one line.
    static func encoder() -> JSONEncoder {
        let encoder = TodoJSON.encoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

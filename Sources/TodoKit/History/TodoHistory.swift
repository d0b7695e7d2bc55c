import CoreData
import Foundation

extension PersistenceController {
    /// The store's most recent changes, oldest first, read from its persistent history (which
    /// the controller turns on): at most `limit` entries.
    ///
    /// A tag given to a to-do changes both (the relationship has two sides): the entry is the
    /// to-do's. A deleted object's title is gone with it, except what history preserved.
    public func recentHistory(limit: Int = 20) async throws -> [TodoHistoryEntry] {
        let context = newTaskContext()
        return try await context.perform {
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            let result = try context.execute(request) as? NSPersistentHistoryResult
            let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
            var entries: [TodoHistoryEntry] = []
            for transaction in transactions {
                let changes = transaction.changes ?? []
                // A to-do's tags changed when a tag's side of the relationship did.
                let tagsMoved = changes.contains { change in
                    change.changedObjectID.entity.name == "Tag"
                        && (change.changeType == .insert || change.updatedProperties?.contains { $0.name == "todos" } == true)
                }
                for change in changes {
                    if let entry = Self.entry(for: change, in: transaction, tagsMoved: tagsMoved, context: context) {
                        entries.append(entry)
                    }
                }
            }
            return Array(entries.suffix(max(0, limit)))
        }
    }

    private static func entry(
        for change: NSPersistentHistoryChange, in transaction: NSPersistentHistoryTransaction, tagsMoved: Bool,
        context: NSManagedObjectContext
    ) -> TodoHistoryEntry? {
        let kind: TodoHistoryEntry.Kind
        switch change.changedObjectID.entity.name {
        case "Todo": kind = .todo
        case "Tag": kind = .tag
        case "Location": kind = .place
        default: return nil
        }
        let action: TodoHistoryEntry.Action
        switch change.changeType {
        case .insert: action = .added
        case .update: action = .changed
        case .delete: action = .deleted
        @unknown default: return nil
        }
        // The DAOs write every property of what they save: the history's values (Strata's
        // `StrataPersistentHistoryValuesKey`) tell which ones moved.
        let properties = (change.updatedProperties ?? []).map(\.name).filter { name in
            switch name {
            case "updatedAt": false
            case "tags": tagsMoved
            default: Self.differs(change.previousValues?[name], change.updatedValues?[name]) || change.updatedValues == nil
            }
        }.sorted()
        // The other side of a to-do's tags or place: told as the to-do's change.
        if action == .changed, kind != .todo, properties.allSatisfy({ $0 == "todos" }) { return nil }
        if action == .changed, properties.isEmpty { return nil }
        var title = change.tombstone?["title"] as? String
        if change.changeType != .delete, let object = try? context.existingObject(with: change.changedObjectID) {
            title = kind == .place ? Self.placeName(of: object) : object.value(forKey: "title") as? String
        }
        return TodoHistoryEntry(
            date: transaction.timestamp, author: transaction.author, action: action, kind: kind, title: title,
            properties: action == .changed ? properties : [])
    }

    /// Whether a recorded old value and new value differ (`nil` is no value).
    private static func differs(_ old: Any?, _ new: Any?) -> Bool {
        switch (old, new) {
        case (nil, nil): false
        case (let old?, let new?): (old as? AnyHashable) != (new as? AnyHashable)
        default: true
        }
    }

    private static func placeName(of location: NSManagedObject) -> String? {
        if let name = location.value(forKey: "placeName") as? String { return name }
        guard let latitude = location.value(forKey: "latitude") as? Double,
            let longitude = location.value(forKey: "longitude") as? Double
        else { return nil }
        return String(format: "%.4f, %.4f", latitude, longitude)
    }
}

import CoreData
import Foundation

/// What one save that reached the store did to the to-dos, as the interfaces show them: the
/// to-dos it made, those it changed (with their new values), and the ids of those it deleted.
///
/// A live page applies these without asking the server again: the values travel with the
/// change, so a page shows a to-do another page just added before any refetch.
public struct TodoChange: Codable, Equatable, Sendable {
    public var inserted: [TodoModel]
    public var updated: [TodoModel]
    public var deleted: [UUID]

    public init(inserted: [TodoModel] = [], updated: [TodoModel] = [], deleted: [UUID] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// A save that touched no to-do (and no tag or place a to-do shows).
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension TodoChange {
    /// The change told by the user info of a `NSManagedObjectContextDidSave`, read on the
    /// saving context's queue (the notification is posted there, so its objects may be read).
    ///
    /// A to-do shows its tags' titles and its place, so a renamed tag or a moved place counts
    /// as a change of every to-do that carries it. A deleted to-do whose id cannot be read any
    /// more is left out (the live page refetches its list after each change, which drops it
    /// there); deleting a fault fires it, so its id is normally there.
    init(savedObjects info: [AnyHashable: Any]) {
        let inserted = Self.objects(info[NSInsertedObjectsKey])
        let updated = Self.objects(info[NSUpdatedObjectsKey])
        let deleted = Self.objects(info[NSDeletedObjectsKey])
        let deletedTodos = deleted.compactMap { $0 as? TodoEntity }
        let insertedTodos = inserted.compactMap { $0 as? TodoEntity }
        var seen = Set((insertedTodos + deletedTodos).map(ObjectIdentifier.init))
        var updatedTodos: [TodoEntity] = []
        for object in updated {
            let todos: [TodoEntity]
            switch object {
            case let todo as TodoEntity: todos = [todo]
            case let tag as TagEntity: todos = tag.todos?.allObjects as? [TodoEntity] ?? []
            case let location as LocationEntity: todos = location.todos?.allObjects as? [TodoEntity] ?? []
            default: todos = []
            }
            for todo in todos where seen.insert(ObjectIdentifier(todo)).inserted {
                updatedTodos.append(todo)
            }
        }
        self.init(
            inserted: insertedTodos.map(TodoModel.init),
            updated: updatedTodos.map(TodoModel.init),
            deleted: deletedTodos.compactMap(\.todoId)
        )
    }

    /// The managed objects of one user-info entry (a `Set<NSManagedObject>`), in no order.
    private static func objects(_ value: Any?) -> [NSManagedObject] {
        (value as? Set<NSManagedObject>).map(Array.init) ?? []
    }
}

import Foundation

/// The end of an event: delete rules run for newly deleted objects, and observers hear
/// what changed since the last time (`NSManagedObjectContextObjectsDidChange`).
extension NSManagedObjectContext {
    /// Runs delete rules for objects deleted since the last call, registers the event's undo
    /// operation with the undo manager (see ContextUndo.swift), and posts
    /// `NSManagedObjectContextObjectsDidChange` for the changes since then.
    public func processPendingChanges() {
        if propagatesDeletesAtEndOfEvent { propagateDeletes() }
        forgetUnsavedDeletes()
        undoRecorder?.endEvent()
        postObjectsDidChange()
    }

    /// Objects inserted and deleted before any save leave the context: there is nothing to
    /// delete in the store. (Those whose insertion was announced are announced as deleted.)
    private func forgetUnsavedDeletes() {
        for object in unsavedDeletes.objects where deleted.contains(object) {
            deleted.remove(object)
            unregister(object)
            object.managedObjectContext = nil
        }
        unsavedDeletes.removeAll()
    }

    /// Applies each deleted object's delete rules (STORE-FORMAT §6.2): Nullify removes the
    /// object from the inverse, Cascade deletes the destinations, Deny is checked at save,
    /// No Action leaves the destinations as they are.
    func propagateDeletes() {
        // In rounds: the objects deleted so far, then those their rules deleted, and so on;
        // each round loads the relationships its rules need in one query per relationship.
        var next = 0
        while next < pendingDeletes.count {
            let round = Array(pendingDeletes[next...])
            next = pendingDeletes.count
            loadRelationshipsForDeleteRules(of: round)
            for object in round where deleted.contains(object) { applyDeleteRules(of: object) }
        }
        pendingDeletes.removeAll()
    }

    private func applyDeleteRules(of object: NSManagedObject) {
        object.prepareForDeletion()
        for (index, kind) in object.layout.kinds.enumerated() where kind != .attribute && kind != .other {
            guard let relationship = object.layout.properties[index] as? NSRelationshipDescription else { continue }
            let destinations: [NSManagedObject]
            switch kind {
            case .toOne: destinations = (object.values[index] as? NSManagedObject).map { [$0] } ?? []
            case .toMany: destinations = object.toManyObjects(at: index)
            default: continue
            }
            switch relationship.deleteRule {
            case .nullifyDeleteRule:
                guard let inverse = relationship.inverseRelationship else { continue }
                for destination in destinations where !deleted.contains(destination) {
                    destination.inverseRemove(object, via: inverse)
                }
            case .cascadeDeleteRule:
                for destination in destinations where destination.managedObjectContext === self {
                    delete(destination)
                }
            case .denyDeleteRule, .noActionDeleteRule:
                continue
            }
        }
    }

    /// The unloaded to-many relationships that cascade or nullify, loaded for all the objects
    /// of a round together (their destinations' rows come along into the row cache), instead
    /// of one query per object.
    private func loadRelationshipsForDeleteRules(of objects: [NSManagedObject]) {
        guard objects.count > 1, let store = objectStore else { return }
        var groups: [ObjectIdentifier: (relationship: NSRelationshipDescription, index: Int, objects: [NSManagedObject])] =
            [:]
        for object in objects where deleted.contains(object) && !object.objectID.isTemporaryID && !object.faulted {
            for index in object.layout.properties.indices where object.layout.isToMany(index) {
                guard index < object.values.count, object.values[index] is RelationshipFault,
                    let relationship = object.layout.properties[index] as? NSRelationshipDescription,
                    relationship.deleteRule == .cascadeDeleteRule || relationship.deleteRule == .nullifyDeleteRule
                else { continue }
                groups[ObjectIdentifier(relationship), default: (relationship, index, [])].objects.append(object)
            }
        }
        for (_, group) in groups where group.objects.count > 1 {
            // A failed read leaves the relationships unloaded; each then loads on its own.
            try? loadRelationship(group.relationship, at: group.index, of: group.objects, store: store)
        }
    }

    private func postObjectsDidChange() {
        guard !eventInserted.isEmpty || !eventUpdated.isEmpty || !eventDeleted.isEmpty || !eventRefreshed.isEmpty else {
            return
        }
        var userInfo: [String: Any] = [:]
        let inserted = eventInserted.objects
        let updated = eventUpdated.objects
        let deleted = eventDeleted.objects
        notifiedSets = NotifiedSets()
        if !inserted.isEmpty { userInfo[NSInsertedObjectsKey] = notifiedSets.remember(inserted, in: \.inserted) }
        if !updated.isEmpty { userInfo[NSUpdatedObjectsKey] = notifiedSets.remember(updated, in: \.updated) }
        if !deleted.isEmpty { userInfo[NSDeletedObjectsKey] = notifiedSets.remember(deleted, in: \.deleted) }
        if !eventRefreshed.isEmpty { userInfo[NSRefreshedObjectsKey] = eventRefreshed.set }
        for object in inserted + updated + deleted {
            object.eventChangedIndexes.removeAll()
        }
        eventInserted.removeAll()
        eventUpdated.removeAll()
        eventDeleted.removeAll()
        eventRefreshed.removeAll()
        NotificationCenter.default.post(name: .NSManagedObjectContextObjectsDidChange, object: self, userInfo: userInfo)
    }
}

extension NSEntityDescription {
    /// A new object of the named entity of the context's model, inserted into the context.
    /// When the model has no such entity, the object has an empty entity and saving it fails
    /// with an error that names the entity.
    public class func insertNewObject(
        forEntityName entityName: String, into context: NSManagedObjectContext
    )
        -> NSManagedObject
    {
        let entity =
            context.model?.entity(named: entityName)
            ?? {
                let placeholder = NSEntityDescription()
                placeholder.name = entityName
                return placeholder
            }()
        let type = ManagedObjectClasses.objectClass(for: entity)
        return type.init(entity: entity, insertInto: context)
    }

    /// The named entity of the context's model.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.model?.entity(named: entityName)
    }
}

import Foundation

/// Reading and changing a to-many relationship's objects in place. Its position in an
/// object's values holds `RelationshipFault.marker` until loaded, then the loaded
/// `[NSManagedObject]`, and `ToManyMembers` from its first change on.
extension NSManagedObject {
    /// The objects of a to-many relationship, loading them from the store on first access.
    @usableFromInline
    func toManyObjects(at index: Int) -> [NSManagedObject] {
        fireFault()
        let value = values[index]
        // Members first, told by their type: a failed cast of them to an array asks for
        // bridging (1,300 instructions).
        if let members = ToManyMembers.held(in: value) {
            if !members.hasObjects { noteRelationshipCopy(members.count) }
            return members.objects
        }
        if let objects = value as? [NSManagedObject] { return objects }
        let objects = managedObjectContext?.loadRelationship(of: self, at: index) ?? []
        values[index] = objects
        return objects
    }

    /// The relationship's `NSSet` (`NSOrderedSet` when ordered), as `value(forKey:)` gives it.
    /// Members keep the set they made until their next change: reading again costs nothing.
    func toManyValue(at index: Int, ordered: Bool) -> AnyObject {
        fireFault()
        let members = ToManyMembers.held(in: values[index])
        if let published = members?.published { return published }
        let objects = toManyObjects(at: index)
        noteRelationshipCopy(objects.count)
        let value: AnyObject = ordered ? NSOrderedSet(array: objects) : Self.set(of: objects)
        members?.published = value
        return value
    }

    /// The members of a to-many relationship, made the object's own to change in place.
    func toManyMembers(at index: Int) -> ToManyMembers {
        fireFault()
        if let members = ToManyMembers.held(in: values[index]) { return members }
        let objects = toManyObjects(at: index)
        noteRelationshipCopy(objects.count)
        var ordered = false
        if case .toMany(let isOrdered) = layout.kinds[index] { ordered = isOrdered }
        let members = ToManyMembers(objects, ordered: ordered)
        values[index] = members
        return members
    }

    /// How many objects the to-many relationship holds.
    func toManyCount(at index: Int) -> Int {
        fireFault()
        if let members = ToManyMembers.held(in: values[index]) { return members.count }
        return toManyObjects(at: index).count
    }

    /// Adds and removes objects of a to-many relationship as `setValue(_:forKey:)` would set
    /// the whole changed set: `willChangeValue`, the change, the inverses of the objects that
    /// came and went, `didChangeValue`, and the property counts as changed even when nothing
    /// came or went. Each object costs the same however many the relationship holds.
    func changeToMany(at index: Int, adding added: [NSManagedObject], removing removed: [NSManagedObject]) {
        changeToMany(at: index) { members in
            var left: [NSManagedObject] = []
            for object in removed where members.remove(object) { left.append(object) }
            var came: [NSManagedObject] = []
            for object in added where members.append(object) { came.append(object) }
            return (left, came)
        }
    }

    /// Changes a to-many relationship in place through `change`, which edits its members and
    /// returns the objects that left and came, with the notifications, change tracking and
    /// inverse upkeep of `changeToMany(at:adding:removing:)`. Changes at a position of an
    /// ordered relationship (`insert(_:at:)` of its mutable ordered set, the generated
    /// `insertIntoChapters(_:at:)`) come here.
    func changeToMany(
        at index: Int, _ change: (ToManyMembers) -> (left: [NSManagedObject], came: [NSManagedObject])
    ) {
        let key = layout.name(at: index)
        willChangeValue(forKey: key)
        let members = toManyMembers(at: index)
        if recordsUndo { noteUndoableChange(at: index) }
        let (left, came) = change(members)
        changedIndexes.insert(index)
        eventChangedIndexes.insert(index)
        if let inverse = (layout.properties[index] as? NSRelationshipDescription)?.inverseRelationship {
            for object in left { object.inverseRemove(self, via: inverse) }
            for object in came { object.inverseAdd(self, via: inverse) }
        }
        keyHint = Int32(truncatingIfNeeded: index)
        didChangeValue(forKey: key)
    }

    /// Counts references copied out of or into a to-many relationship whole, in debug builds:
    /// tests check with it that changing one object of a relationship does not copy the others.
    @inline(__always)
    func noteRelationshipCopy(_ count: Int) {
        #if DEBUG
            managedObjectContext?.relationshipElementCopies += count
        #endif
    }
}

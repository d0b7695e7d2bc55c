import Foundation
import Testing

@testable import Strata

/// The context's registry (`ObjectRegistry`, an open-addressing table) checked against a
/// dictionary doing the same operations: every lookup, after every change, must agree.
@Suite struct ObjectRegistryTests {
    /// Two root entities and a subentity of the first (which shares its root's keys).
    private static let model = NSManagedObjectModel {
        Entity("Animal") { Attribute("name", .stringAttributeType) }
        Entity("Dog", parent: "Animal") { Attribute("breed", .stringAttributeType) }
        Entity("Plant") { Attribute("name", .stringAttributeType) }
    }
    private static let entities = ["Animal", "Dog", "Plant"].compactMap { model.entitiesByName[$0] }

    private static let origin = StoreReference(store: nil, identifier: "REGISTRY-TEST")

    /// An object in no context whose ID is the given one.
    private static func object(_ id: NSManagedObjectID) -> NSManagedObject {
        let object = NSManagedObject(entity: id.entity, insertInto: nil)
        object.storedObjectID = id
        return object
    }

    /// Keys that are multiples of 4096 share their low bits after the ID's multiplication,
    /// so they collide in any table of up to 4096 slots: the probing and the removal's
    /// shifting are exercised, not only direct hits.
    private static func randomID(_ random: inout SeededGenerator) -> NSManagedObjectID {
        let entity = entities[Int(random.next() % 3)]
        if random.next() % 8 == 0 { return NSManagedObjectID(temporaryFor: entity) }
        let key = random.next() % 2 == 0 ? Int64(random.next() % 64 + 1) * 4096 : Int64(random.next() % 300 + 1)
        return NSManagedObjectID(entity: entity, primaryKey: key, origin: origin)
    }

    @Test func agreesWithADictionaryThroughRandomChanges() {
        var random = SeededGenerator(seed: 34)
        var registry = ObjectRegistry()
        var oracle: [ObjectKey: NSManagedObject] = [:]
        var seen: [NSManagedObjectID] = []
        for step in 0..<20_000 {
            let id =
                seen.isEmpty || random.next() % 3 == 0
                ? Self.randomID(&random) : seen[Int(random.next() % UInt64(seen.count))]
            seen.append(id)
            switch random.next() % 5 {
            case 0, 1:
                let object = Self.object(id)
                registry.insert(object)
                oracle[ObjectKey(id)] = object
            case 2:
                let (found, vacancy) = registry.lookup(id)
                #expect(found === oracle[ObjectKey(id)], "step \(step)")
                if found == nil {
                    let object = Self.object(id)
                    registry.insert(object, at: vacancy)
                    oracle[ObjectKey(id)] = object
                }
            case 3:
                // Removing an object that is not the registered one leaves the registered one.
                let object = random.next() % 2 == 0 ? (oracle[ObjectKey(id)] ?? Self.object(id)) : Self.object(id)
                registry.remove(object)
                if oracle[ObjectKey(id)] === object { oracle[ObjectKey(id)] = nil }
            default:
                #expect(registry[id] === oracle[ObjectKey(id)], "step \(step)")
            }
            #expect(registry.count == oracle.count, "step \(step)")
            if step % 997 == 0 {
                for (key, object) in oracle {
                    #expect(registry[key.objectID] === object, "step \(step)")
                    let contained = registry.contains(object)
                    #expect(contained)
                }
                #expect(Set(registry.objects.map(ObjectIdentifier.init)) == Set(oracle.values.map(ObjectIdentifier.init)))
            }
        }
        #expect(registry.capacity > 8)
        registry.removeAll()
        #expect(registry.count == 0 && registry.objects.isEmpty)
        #expect(registry.capacity == 8, "an emptied registry gives its table back")
        for key in oracle.keys { #expect(registry[key.objectID] == nil) }
    }

    @Test func dropsTheObjectsNothingElseHolds() {
        var registry = ObjectRegistry()
        var kept: [NSManagedObject] = []
        var droppedIDs: [NSManagedObjectID] = []
        for key in 1...2_000 {
            let id = NSManagedObjectID(entity: Self.entities[key % 3], primaryKey: Int64(key * 4096), origin: Self.origin)
            let object = Self.object(id)
            registry.insert(object)
            if key % 3 == 0 { kept.append(object) } else { droppedIDs.append(id) }
        }
        weak var dropped = registry[droppedIDs[0]]
        #expect(dropped != nil)
        registry.removeUnreferenced()
        #expect(registry.count == kept.count)
        #expect(dropped == nil, "an object only the registry held is freed")
        for object in kept { #expect(registry[object.objectID] === object) }
        for id in droppedIDs { #expect(registry[id] == nil) }
    }

    @Test func dropsInPlaceWhateverTheRunsOfEntriesLookLike() {
        // Small tables, mostly colliding keys: runs of entries that wrap around the table's
        // end, removals that move entries back into slots the scan looks at again.
        var random = SeededGenerator(seed: 35)
        for trial in 0..<500 {
            var registry = ObjectRegistry()
            var kept: [NSManagedObject] = []
            var droppedIDs: [NSManagedObjectID] = []
            for _ in 0..<Int(random.next() % 40 + 1) {
                let id = Self.randomID(&random)
                guard registry[id] == nil else { continue }
                let object = Self.object(id)
                registry.insert(object)
                if random.next() % 2 == 0 { kept.append(object) } else { droppedIDs.append(id) }
            }
            registry.removeUnreferenced()
            #expect(registry.count == kept.count, "trial \(trial)")
            for object in kept { #expect(registry[object.objectID] === object, "trial \(trial)") }
            for id in droppedIDs { #expect(registry[id] == nil, "trial \(trial)") }
        }
    }

    @Test func anObjectRegisteredWhileItsNeighbourWasMadeIsStillFound() {
        // An initializer registering another object (between the lookup and the insert) takes
        // the slot the lookup found; the new object must still be registered where a lookup
        // finds it.
        var registry = ObjectRegistry()
        let first = NSManagedObjectID(entity: Self.entities[0], primaryKey: 4096, origin: Self.origin)
        let second = NSManagedObjectID(entity: Self.entities[0], primaryKey: 8192, origin: Self.origin)
        let (found, vacancy) = registry.lookup(first)
        #expect(found == nil)
        let other = Self.object(second)
        registry.insert(other)
        let made = Self.object(first)
        registry.insert(made, at: vacancy)
        #expect(registry.count == 2)
        #expect(registry[first] === made)
        #expect(registry[second] === other)
    }

    @Test func aSubentityIsFoundUnderItsRootsKey() throws {
        var registry = ObjectRegistry()
        let dog = NSManagedObjectID(entity: Self.entities[1], primaryKey: 7, origin: Self.origin)
        let object = Self.object(dog)
        registry.insert(object)
        let asAnimal = NSManagedObjectID(entity: Self.entities[0], primaryKey: 7, origin: Self.origin)
        #expect(registry[asAnimal] === object)
        let asPlant = NSManagedObjectID(entity: Self.entities[2], primaryKey: 7, origin: Self.origin)
        #expect(registry[asPlant] == nil)
    }

    @Test func resetAnnouncesEveryRegisteredObjectAsInvalidated() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let invalidated = Protected<[NSManagedObjectID]?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { notification in
            if let ids = notification.userInfo?[NSInvalidatedAllObjectsKey] as? [NSManagedObjectID] {
                invalidated.withLock { $0 = ids }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (saved, plants) = try context.performAndWait {
            for name in ["a", "b", "c"] {
                NSEntityDescription.insertNewObject(forEntityName: "Plant", into: context).setValue(name, forKey: "name")
            }
            try context.save()
            let plants = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Plant"))
            let saved = Set(plants.map(\.objectID))
            context.reset()
            return (saved, plants)
        }
        #expect(saved.count == 3)
        #expect(Set(invalidated.withLock { $0 } ?? []) == saved)
        #expect(plants.allSatisfy { $0.managedObjectContext == nil })
        let remaining = context.performAndWait { context.registeredObjects.count }
        #expect(remaining == 0)
    }
}

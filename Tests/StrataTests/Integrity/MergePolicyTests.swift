import Foundation
import Testing

@testable import Strata

/// The five merge policies (and a custom one) on the same optimistic-locking conflict: two
/// contexts change one object, the second save meets the first one's changes in the store.
@Suite struct MergePolicyTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Card") {
                Attribute("title", .stringAttributeType)
                Attribute("count", .integer32AttributeType, optional: false, defaultValue: Int32(0))
                Attribute("note", .stringAttributeType)
                Relationship("badges", to: "Badge", inverse: "cards", toMany: true)
            }
            Entity("Badge") {
                Attribute("name", .stringAttributeType)
                Relationship("cards", to: "Card", inverse: "badges", toMany: true)
            }
        }
    }

    struct Outcome: Equatable {
        var title: String?
        var count: Int32
        var note: String?
        var badges: [String]
    }

    /// Context 2 sets title B2 and count 2 and adds badge Y, and saves; context 1 (which read
    /// the card before) sets title B1 and note n1 and adds badge X, and saves with the policy.
    private func conflictingEdits(policy: Any) throws -> (error: NSError?, stored: Outcome, version: Int64) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("m.sqlite"))
        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }
        let setup = context()
        let id = try setup.performAndWait {
            let card = NSEntityDescription.insertNewObject(forEntityName: "Card", into: setup)
            card.setValue("A", forKey: "title")
            card.setValue(1, forKey: "count")
            card.setValue("n", forKey: "note")
            for name in ["X", "Y"] {
                NSEntityDescription.insertNewObject(forEntityName: "Badge", into: setup).setValue(name, forKey: "name")
            }
            try setup.save()
            return card.objectID
        }
        func badge(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Badge")
            request.predicate = NSPredicate(format: "name == %@", name)
            return try #require(try context.fetch(request).first)
        }
        let first = context()
        let second = context()
        let card1 = try first.performAndWait { () throws -> NSManagedObject in
            let card = try first.existingObject(with: id)
            _ = card.value(forKey: "badges")
            return card
        }
        try second.performAndWait {
            let card = try second.existingObject(with: id)
            card.setValue("B2", forKey: "title")
            card.setValue(2, forKey: "count")
            card.mutableSetValue(forKey: "badges").add(try badge("Y", in: second))
            try second.save()
        }
        first.mergePolicy = policy
        let error = try first.performAndWait { () throws -> NSError? in
            card1.setValue("B1", forKey: "title")
            card1.setValue("n1", forKey: "note")
            card1.mutableSetValue(forKey: "badges").add(try badge("X", in: first))
            do {
                try first.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        let reader = context()
        return try reader.performAndWait {
            let card = try reader.existingObject(with: id)
            let badges = ((card.value(forKey: "badges") as? NSSet)?.allObjects as? [NSManagedObject] ?? [])
                .compactMap { $0.value(forKey: "name") as? String }.sorted()
            let outcome = Outcome(
                title: card.value(forKey: "title") as? String, count: card.value(forKey: "count") as? Int32 ?? -1,
                note: card.value(forKey: "note") as? String, badges: badges)
            return (error, outcome, card.snapshot?.version ?? -1)
        }
    }

    @Test func errorPolicyFailsTheSaveWithTheConflict() throws {
        let (error, stored, version) = try conflictingEdits(policy: NSErrorMergePolicy)
        #expect(error?.code == NSManagedObjectMergeError)
        let conflicts = error?.userInfo["conflictList"] as? [NSMergeConflict]
        #expect(conflicts?.count == 1)
        #expect(conflicts?.first?.oldVersionNumber == 1 && conflicts?.first?.newVersionNumber == 2)
        #expect(conflicts?.first?.persistedSnapshot?["title"] as? String == "B2")
        #expect(stored == Outcome(title: "B2", count: 2, note: "n", badges: ["Y"]))
        #expect(version == 2)
    }

    @Test func storeTrumpKeepsTheStoresChangesAndTheContextsOthers() throws {
        let (error, stored, version) = try conflictingEdits(policy: NSMergeByPropertyStoreTrumpMergePolicy)
        #expect(error == nil)
        #expect(stored == Outcome(title: "B2", count: 2, note: "n1", badges: ["X", "Y"]))
        #expect(version == 3)
    }

    @Test func objectTrumpKeepsTheContextsChangesAndTheStoresOthers() throws {
        let (error, stored, version) = try conflictingEdits(policy: NSMergeByPropertyObjectTrumpMergePolicy)
        #expect(error == nil)
        #expect(stored == Outcome(title: "B1", count: 2, note: "n1", badges: ["X", "Y"]))
        #expect(version == 3)
    }

    @Test func overwriteWritesTheWholeObject() throws {
        let (error, stored, _) = try conflictingEdits(policy: NSOverwriteMergePolicy)
        #expect(error == nil)
        #expect(stored == Outcome(title: "B1", count: 1, note: "n1", badges: ["X"]))
    }

    @Test func rollbackDiscardsTheContextsChanges() throws {
        let (error, stored, _) = try conflictingEdits(policy: NSRollbackMergePolicy)
        #expect(error == nil)
        #expect(stored == Outcome(title: "B2", count: 2, note: "n", badges: ["Y"]))
    }

    /// A subclass that resolves by taking the larger count and concatenating titles.
    final class MaxCountPolicy: NSMergePolicy, @unchecked Sendable {
        init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
        override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
            let stored = list.map { ($0.sourceObject, $0.persistedSnapshot?["title"] as? String ?? "") }
            try super.resolve(optimisticLockingConflicts: list)
            for (object, theirs) in stored {
                object.setValue("\(theirs)+\(object.value(forKey: "title") as? String ?? "")", forKey: "title")
            }
        }
    }

    @Test func aCustomPolicyResolvesItsOwnWay() throws {
        let (error, stored, _) = try conflictingEdits(policy: MaxCountPolicy())
        #expect(error == nil)
        #expect(stored.title == "B2+B1")
        #expect(stored.count == 2)
    }

    /// A policy that lets another coordinator change the card again each time it has resolved,
    /// so that the retried save meets a newer change: a racing writer, on cue.
    final class RacedPolicy: NSMergePolicy, @unchecked Sendable {
        let races: Int
        let race: (Int) throws -> Void
        private(set) var resolutions = 0

        init(races: Int, race: @escaping (Int) throws -> Void) {
            self.races = races
            self.race = race
            super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        }

        override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
            try super.resolve(optimisticLockingConflicts: list)
            resolutions += 1
            if resolutions <= races { try race(resolutions) }
        }
    }

    /// A save whose policy resolves conflicts goes through however many saves race it (the
    /// concurrency harness met a fifth): it failed with 133020 after four attempts.
    @Test func aSaveThatKeepsMeetingNewerChangesGoesThrough() throws {
        let folder = ScratchFolder()
        let url = folder.file("raced.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let other = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try other.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let racer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        racer.persistentStoreCoordinator = other
        let card = try context.performAndWait {
            let card = NSEntityDescription.insertNewObject(forEntityName: "Card", into: context)
            card.setValue("A", forKey: "title")
            try context.save()
            return card
        }
        // The card as the other coordinator names it.
        let id = try #require(other.managedObjectID(forURIRepresentation: card.objectID.uriRepresentation()))
        // The racer changes the count each time: the card's row moves on before every retry.
        let race: (Int) throws -> Void = { round in
            try racer.performAndWait {
                let theirs = try racer.existingObject(with: id)
                racer.refresh(theirs, mergeChanges: false)
                theirs.setValue(Int32(round), forKey: "count")
                try racer.save()
            }
        }
        let policy = RacedPolicy(races: 8, race: race)
        context.mergePolicy = policy
        try race(0)
        try context.performAndWait {
            card.setValue("mine", forKey: "title")
            try context.save()
        }
        #expect(policy.resolutions == 9)
        let stored = try racer.performAndWait {
            let theirs = try racer.existingObject(with: id)
            racer.refresh(theirs, mergeChanges: false)
            return (theirs.value(forKey: "title") as? String, theirs.value(forKey: "count") as? Int32)
        }
        #expect(stored.0 == "mine")
        #expect(stored.1 == 8)
    }
}

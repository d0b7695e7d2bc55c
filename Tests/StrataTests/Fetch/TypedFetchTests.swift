import Foundation
import Testing

@testable import Strata

final class Chore: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    @Managed var household: Household?
}

class TypedPet: NSManagedObject {
    @Managed var name: String?
    @Managed var size: String?
}

final class TypedDog: TypedPet {
    @Managed var breed: String?
}

final class TypedCat: TypedPet {}

final class Household: NSManagedObject {
    @Managed var name: String?
    @Managed var chores: Set<Chore>
}

/// Foundation's `#Predicate` and `SortDescriptor` on managed objects fetch what the
/// equivalent format strings fetch.
@Suite struct TypedFetchTests {
    private static func model() -> NSManagedObjectModel {
        NSManagedObjectModel {
            Entity("Chore", className: "Chore") {
                Attribute("title", .stringAttributeType)
                Attribute("priority", .integer16AttributeType, optional: false, defaultValue: Int16(0))
                Relationship("household", to: "Household", inverse: "chores")
            }
            Entity("Household", className: "Household") {
                Attribute("name", .stringAttributeType)
                Relationship("chores", to: "Chore", inverse: "household", toMany: true)
            }
        }
    }

    private func context() throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let home = Household(context: context)
            home.name = "Home"
            let office = Household(context: context)
            office.name = "Office"
            for (title, priority, household) in [
                ("Dishes", 2, home), ("Laundry", 3, home), ("Mail", 1, office), ("Plants", 3, office),
            ] {
                let chore = Chore(context: context)
                chore.title = title
                chore.priority = Int16(priority)
                chore.household = household
            }
            try context.save()
        }
        return context
    }

    @Test func predicateMacrosFetchLikeFormatStrings() throws {
        let context = try context()
        try context.performAndWait {
            let urgent = try context.fetch(
                Chore.self, predicate: #Predicate { $0.priority >= 3 }, sortBy: [SortDescriptor(\Chore.title, order: .reverse)])
            #expect(urgent.map(\.title) == ["Plants", "Laundry"])
            let atHome = try context.fetch(
                Chore.self, predicate: #Predicate { $0.household?.name == "Home" }, sortBy: [SortDescriptor(\.priority)])
            #expect(atHome.map(\.title) == ["Dishes", "Laundry"])
            let format = NSFetchRequest<Chore>(entityName: "Chore")
            format.predicate = NSPredicate(format: "household.name == %@", "Home")
            #expect(Set(try context.fetch(format).map(\.objectID)) == Set(atHome.map(\.objectID)))
            #expect(try context.count(Chore.self, predicate: #Predicate { $0.title?.contains("a") == true }) == 3)
        }
    }

    @Test("is tests an object's class: its entity or a subentity, in SQL and in memory")
    func typeChecksAndEnumerations() throws {
        let model = NSManagedObjectModel {
            Entity("Pet", className: "TypedPet") {
                Attribute("name", .stringAttributeType)
                Attribute("size", .stringAttributeType)
            }
            Entity("Dog", parent: "Pet", className: "TypedDog") { Attribute("breed", .stringAttributeType) }
            Entity("Cat", parent: "Pet", className: "TypedCat") {}
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-is-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.appendingPathComponent("pets.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (name, kind, size) in [("Rex", "Dog", "large"), ("Tom", "Cat", "small"), ("Nib", "Pet", "small")] {
                let pet = NSEntityDescription.insertNewObject(forEntityName: kind, into: context)
                pet.setValue(name, forKey: "name")
                pet.setValue(size, forKey: "size")
            }
            try context.save()
            context.reset()
            func names(_ predicate: Predicate<TypedPet>) throws -> [String] {
                try context.fetch(TypedPet.self, predicate: predicate, sortBy: [SortDescriptor(\.name)]).compactMap(\.name)
            }
            #expect(try names(#Predicate { $0 is TypedDog }) == ["Rex"])
            #expect(try names(#Predicate { !($0 is TypedDog) }) == ["Nib", "Tom"])
            #expect(try names(#Predicate { $0 is TypedPet }) == ["Nib", "Rex", "Tom"])
            #expect(try names(#Predicate { $0 is TypedCat || $0.size == "large" }) == ["Rex", "Tom"])
            // Unsaved objects: the predicate evaluated in memory.
            let pup = NSEntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            pup.setValue("Ace", forKey: "name")
            #expect(try names(#Predicate { $0 is TypedDog }) == ["Ace", "Rex"])
            // Without a fetch, no model says which entities a class's objects are.
            #expect(NSPredicate(#Predicate<TypedPet> { $0 is TypedCat }) == nil)
        }
    }

    @Test func nsPredicateAndNSSortDescriptorFromFoundationTypes() throws {
        let context = try context()
        try context.performAndWait {
            let predicate = try #require(NSPredicate(#Predicate<Chore> { $0.priority < 3 }))
            #expect(predicate.predicateFormat == "priority < 3")
            let request = NSFetchRequest<Chore>(entityName: "Chore")
            request.predicate = predicate
            request.sortDescriptors = [NSSortDescriptor(SortDescriptor(\Chore.title))]
            #expect(request.sortDescriptors?.first?.key == "title")
            #expect(try context.fetch(request).map(\.title) == ["Dishes", "Mail"])
        }
    }
}

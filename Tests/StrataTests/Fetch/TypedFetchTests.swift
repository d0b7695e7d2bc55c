import Foundation
import Testing

@testable import Strata

final class Chore: NSManagedObject {
    @Managed var title: String?
    @Managed var priority: Int16
    @Managed var household: Household?
}

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

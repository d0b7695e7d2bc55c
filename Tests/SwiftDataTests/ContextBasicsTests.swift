import CoreData
import Foundation
import SwiftData
import Testing

@Suite("ModelContext over Strata")
struct ContextBasicsTests {
    @Test("insert, save, fetch with a #Predicate and sort; relationships and their inverses")
    func insertSaveFetch() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: HandTrip.self, configurations: ModelConfiguration(url: url))
            #expect(container.schema.entities.map(\.name).sorted() == ["HandStop", "HandTrip"])
            let context = ModelContext(container)
            let paris = HandTrip(name: "Paris", days: 4, code: "PAR")
            let rome = HandTrip(name: "Rome", days: 6)
            let louvre = HandStop(title: "Louvre")
            paris.stops.append(louvre)
            #expect(paris.stops.count == 1)
            #expect(!paris.hasChanges)
            context.insert(paris)
            context.insert(rome)
            #expect(paris.modelContext == context)
            #expect(louvre.modelContext == context, "a model reached by a relationship is inserted with it")
            #expect(louvre.trip === paris, "the inverse is set")
            #expect(context.hasChanges)
            #expect(paris.persistentModelID.isTemporary)
            try context.save()
            #expect(!context.hasChanges)
            #expect(!paris.persistentModelID.isTemporary)

            let long = try context.fetch(
                FetchDescriptor<HandTrip>(predicate: #Predicate { $0.days > 5 }, sortBy: [SortDescriptor(\.name)]))
            #expect(long.map(\.name) == ["Rome"])
            #expect(long.first === rome, "a fetch answers the context's own model of a row")
            let all = try context.fetch(FetchDescriptor<HandTrip>(sortBy: [SortDescriptor(\.days, order: .reverse)]))
            #expect(all.map(\.name) == ["Rome", "Paris"])
            #expect(try context.fetchCount(FetchDescriptor<HandStop>()) == 1)
        }

        // A second container on the same file: the rows as saved, read as new models.
        let container = try ModelContainer(for: HandTrip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<HandTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Paris", "Rome"])
        #expect(trips.map(\.days) == [4, 6])
        #expect(trips.map(\.code) == ["PAR", nil])
        #expect(trips[0].stops.map(\.title) == ["Louvre"])
        #expect(trips[0].stops.first?.trip === trips[0])
        let withStop = try context.fetch(
            FetchDescriptor<HandStop>(predicate: #Predicate { $0.trip?.name == "Paris" }))
        #expect(withStop.map(\.title) == ["Louvre"])
        let parisID = trips[0].persistentModelID
        let byIdentifier = try context.fetch(
            FetchDescriptor<HandStop>(predicate: #Predicate { $0.trip?.persistentModelID == parisID }))
        #expect(byIdentifier.map(\.title) == ["Louvre"])
        let byOwnIdentifier = try context.fetch(
            FetchDescriptor<HandTrip>(predicate: #Predicate { $0.persistentModelID == parisID }))
        #expect(byOwnIdentifier.map(\.name) == ["Paris"])
    }

    @Test("delete cascades as @Relationship(deleteRule: .cascade) says; rollback forgets")
    func deleteAndRollback() throws {
        let container = try ModelContainer(
            for: HandTrip.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
        let context = ModelContext(container)
        let trip = HandTrip(name: "Oslo")
        trip.stops = [HandStop(title: "Opera"), HandStop(title: "Fjord")]
        context.insert(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<HandStop>()) == 2)
        let stops = trip.stops
        context.delete(trip)
        #expect(trip.isDeleted)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<HandTrip>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<HandStop>()) == 0)
        // The models the deletion cascaded to leave the context too, keeping what they read.
        #expect(trip.modelContext == nil && stops.count == 2 && stops.allSatisfy { $0.modelContext == nil })
        #expect(Set(stops.map(\.title)) == ["Opera", "Fjord"])

        let kept = HandTrip(name: "Kept")
        context.insert(kept)
        try context.save()
        kept.name = "Changed"
        let dropped = HandTrip(name: "Dropped")
        context.insert(dropped)
        context.rollback()
        #expect(kept.name == "Kept")
        #expect(dropped.modelContext == nil)
        #expect(try context.fetch(FetchDescriptor<HandTrip>()).map(\.name) == ["Kept"])
    }

    @Test("a unique attribute makes an insert of a known value an update of its row (upsert)")
    func uniqueUpserts() throws {
        let container = try ModelContainer(
            for: HandTrip.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
        let context = ModelContext(container)
        context.insert(HandTrip(name: "First", days: 1, code: "X"))
        try context.save()
        context.insert(HandTrip(name: "Second", days: 2, code: "X"))
        try context.save()
        let fresh = ModelContext(container)
        let rows = try fresh.fetch(FetchDescriptor<HandTrip>())
        #expect(rows.map(\.name) == ["Second"])
        #expect(rows.map(\.days) == [2])
    }

    @Test("the store opens through NSPersistentContainer with the entities SwiftData named")
    func oneFileTwoAPIs() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: HandTrip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let trip = HandTrip(name: "Lisbon", days: 3)
            trip.stops = [HandStop(title: "Tram 28")]
            context.insert(trip)
            try context.save()
        }
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [HandTrip.self]))
        let coreData = NSPersistentContainer(name: "check", managedObjectModel: model)
        coreData.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        coreData.loadPersistentStores { _, error in failure = error }
        #expect(failure == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "HandTrip")
        let rows = try coreData.viewContext.fetch(request)
        #expect(rows.map { $0.value(forKey: "name") as? String } == ["Lisbon"])
        #expect(rows.map { $0.value(forKey: "days") as? Int64 } == [3])
        let stops = rows.first?.value(forKey: "stops") as? Set<NSManagedObject>
        #expect(stops?.map { $0.value(forKey: "title") as? String } == ["Tram 28"])
    }
}

@Suite("ModelConfiguration")
struct ModelConfigurationTests {
    @Test("the default store is default.store in the program's data folder; a name names the file")
    func locations() {
        let folder = NSPersistentContainer.defaultDirectoryURL()
        #expect(ModelConfiguration().url == folder.appendingPathComponent("default.store"))
        #expect(ModelConfiguration("Archive").url == folder.appendingPathComponent("Archive.store"))
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).isStoredInMemoryOnly)
    }

    @Test("allowsSave: false opens the store read-only: a save fails and the file keeps its rows")
    func readOnly() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: HandTrip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(HandTrip(name: "Kept"))
            try context.save()
        }
        let readOnly = try ModelContainer(
            for: HandTrip.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(readOnly)
        #expect(try context.fetch(FetchDescriptor<HandTrip>()).map(\.name) == ["Kept"])
        context.insert(HandTrip(name: "Refused"))
        #expect(throws: (any Error).self) { try context.save() }
        let again = try ModelContainer(for: HandTrip.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(again).fetch(FetchDescriptor<HandTrip>()).map(\.name) == ["Kept"])
    }
}

import CoreData
import Foundation
import SwiftData
import Synchronization
import Testing

// Models as Apple's documentation writes them, expanded by Strata's @Model.

@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate])
    #Index<Trip>([\.name], [\.startDate, \.endDate])

    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Attribute(.unique) var code: String?
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = []
    var livingAccommodation: LivingAccommodation?
    @Transient var isSelected = false

    var days: Int { Calendar(identifier: .gregorian).dateComponents([.day], from: startDate, to: endDate).day ?? 0 }

    init(name: String, destination: String, startDate: Date = .now, endDate: Date = .now, code: String? = nil) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
        self.code = code
    }
}

@Model
final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: Trip?

    init(title: String, details: String = "", hasReservation: Bool = false, isInPlan: Bool = false) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var trip: Trip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

@ModelActor
actor TripImporter {
    func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
        var made: [Trip] = []
        for name in names {
            let trip = Trip(name: name, destination: "Somewhere")
            modelContext.insert(trip)
            made.append(trip)
        }
        try modelContext.save()
        return made.map(\.persistentModelID)
    }

    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
}

@Suite("@Model classes over Strata")
struct ModelMacroRuntimeTests {
    private func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
    }

    @Test("the schema Apple's rules give: entities, attributes, relationships, inverses, constraints")
    func schema() throws {
        let schema = Schema([Trip.self])
        #expect(schema.entities.map(\.name).sorted() == ["BucketListItem", "LivingAccommodation", "Trip"])
        let trip = try #require(schema.entitiesByName["Trip"])
        #expect(trip.attributes.map(\.name).sorted() == ["code", "destination", "endDate", "name", "startDate"])
        #expect(trip.relationships.map(\.name).sorted() == ["bucketList", "livingAccommodation"])
        #expect(trip.uniquenessConstraints.sorted { $0.count < $1.count } == [["code"], ["name", "startDate"]])
        #expect(trip.indices == [["name"], ["startDate", "endDate"]])
        let bucketList = try #require(trip.relationships.first { $0.name == "bucketList" })
        #expect(bucketList.deleteRule == .cascade)
        #expect(!bucketList.isToOneRelationship)
        #expect(bucketList.inverseName == "trip")
        let lodging = try #require(trip.relationships.first { $0.name == "livingAccommodation" })
        #expect(lodging.inverseName == "trip", "the only relationship back is the inverse")

        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Trip.self]))
        let entity = try #require(model.entitiesByName["Trip"])
        #expect(entity.attributesByName["isSelected"] == nil, "@Transient is not stored")
        #expect(entity.attributesByName["days"] == nil, "a computed property is not stored")
        #expect(entity.attributesByName["name"]?.isOptional == false)
        #expect(entity.attributesByName["code"]?.isOptional == true)
        #expect(entity.relationshipsByName["bucketList"]?.inverseRelationship?.name == "trip")
    }

    @Test("Apple's sample flow: insert, relate, save, fetch, change, delete with cascade")
    func sampleFlow() throws {
        let container = try container()
        let context = ModelContext(container)
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let trip = Trip(name: "Cape Town", destination: "South Africa", startDate: start, endDate: start + 86_400 * 5)
        trip.bucketList.append(BucketListItem(title: "Table Mountain", hasReservation: true))
        trip.livingAccommodation = LivingAccommodation(address: "Long Street", placeName: "Guest house")
        trip.isSelected = true
        context.insert(trip)
        #expect(trip.bucketList.first?.trip === trip)
        #expect(trip.livingAccommodation?.trip === trip)
        try context.save()
        #expect(trip.isSelected, "a transient value stays on the model")
        #expect(trip.days == 5)

        let other = ModelContext(container)
        let fetched = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "South Africa" }))
        #expect(fetched.count == 1)
        let copy = try #require(fetched.first)
        #expect(copy !== trip)
        #expect(copy.persistentModelID == trip.persistentModelID)
        #expect(copy.bucketList.map(\.title) == ["Table Mountain"])
        #expect(copy.livingAccommodation?.placeName == "Guest house")
        #expect(!copy.isSelected, "a transient value is not saved")

        copy.bucketList.first?.isInPlan = true
        #expect(copy.hasChanges == false)
        #expect(other.hasChanges)
        try other.save()
        let planned = try context.fetch(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.isInPlan }))
        #expect(planned.map(\.title) == ["Table Mountain"])

        context.delete(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0, "cascaded")
        #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 1, "nullified")
    }

    @Test("a model actor saves in the background; the main context sees its rows")
    func modelActor() async throws {
        let container = try container()
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(["A", "B", "C"])
        #expect(ids.count == 3)
        #expect(try await importer.count() == 3)
        let names = try await MainActor.run {
            let context = container.mainContext
            return try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["A", "B", "C"])
        let first = try await MainActor.run { (container.mainContext.model(for: ids[0]) as? Trip)?.name }
        #expect(first == "A")
    }

    @Test("the models observe changes as Observation says")
    func observation() throws {
        let trip = Trip(name: "Kyoto", destination: "Japan")
        let changed = Atomic(0)
        withObservationTracking {
            _ = trip.name
        } onChange: {
            changed.add(1, ordering: .relaxed)
        }
        trip.destination = "Nara"
        #expect(changed.load(ordering: .relaxed) == 0, "a property not read does not notify")
        trip.name = "Osaka"
        #expect(changed.load(ordering: .relaxed) == 1)
    }

    @Test("a fetched model and a subclass's own property are observed; a model never read changes without observers")
    func observationOfFetchedModels() throws {
        let container = try ModelContainer(
            for: Trip.self, Article.self, Tutorial.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let unread = Trip(name: "Lima", destination: "Peru")
        unread.destination = "Cusco"
        context.insert(unread)
        context.insert(Tutorial(title: "Knots", difficulty: 1))
        try context.save()
        let other = ModelContext(container)
        let trip = try #require(try other.fetch(FetchDescriptor<Trip>()).first)
        let tutorial = try #require(try other.fetch(FetchDescriptor<Tutorial>()).first)
        let changes = Atomic(0)
        withObservationTracking {
            _ = trip.destination
            _ = tutorial.difficulty
        } onChange: {
            changes.add(1, ordering: .relaxed)
        }
        tutorial.title = "Ropes"
        #expect(changes.load(ordering: .relaxed) == 0, "an inherited property not read does not notify")
        tutorial.difficulty = 2
        #expect(changes.load(ordering: .relaxed) == 1, "a subclass's own property read notifies")
        let again = Atomic(0)
        withObservationTracking {
            _ = trip.destination
        } onChange: {
            again.add(1, ordering: .relaxed)
        }
        trip.destination = "Arequipa"
        #expect(again.load(ordering: .relaxed) == 1 && unread.destination == "Cusco")
    }
}

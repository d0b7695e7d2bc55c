import Foundation
import SwiftData
import Synchronization
import Testing

enum TripSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var notes: String

        init(name: String, notes: String) {
            self.name = name
            self.notes = notes
        }
    }
}

enum TripSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        @Attribute(originalName: "notes") var details: String
        var rating: Int = 0

        init(name: String, details: String) {
            self.name = name
            self.details = details
        }
    }
}

enum TripSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        var details: String
        var rating: Int = 0
        var badge: String = ""

        init(name: String, details: String) {
            self.name = name
            self.details = details
        }
    }
}

enum TripMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripSchemaV1.self, TripSchemaV2.self, TripSchemaV3.self] }

    static var stages: [MigrationStage] {
        [
            // V2 makes names unique: the duplicates go first, on the old schema.
            .custom(
                fromVersion: TripSchemaV1.self, toVersion: TripSchemaV2.self,
                willMigrate: { context in
                    var seen: Set<String> = []
                    for trip in try context.fetch(FetchDescriptor<TripSchemaV1.Trip>(sortBy: [SortDescriptor(\.notes)])) {
                        if !seen.insert(trip.name).inserted { context.delete(trip) }
                    }
                    try context.save()
                }, didMigrate: nil),
            // V3 adds a badge, filled from the rating after the lightweight step.
            .custom(
                fromVersion: TripSchemaV2.self, toVersion: TripSchemaV3.self, willMigrate: nil,
                didMigrate: { context in
                    for trip in try context.fetch(FetchDescriptor<TripSchemaV3.Trip>()) {
                        trip.badge = "rated \(trip.rating)"
                    }
                    try context.save()
                }),
        ]
    }
}

@Suite("Schema migration plans")
struct MigrationPlanTests {
    @Test("a V1 store reaches V3 through a custom stage, a lightweight rename and a default, and a custom fill")
    func migratesThroughThePlan() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: TripSchemaV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(TripSchemaV1.Trip(name: "Rome", notes: "a first"))
            context.insert(TripSchemaV1.Trip(name: "Rome", notes: "b duplicate"))
            context.insert(TripSchemaV1.Trip(name: "Oslo", notes: "c fjords"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV3.self), migrationPlan: TripMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<TripSchemaV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Oslo", "Rome"])
        #expect(trips.map(\.details) == ["c fjords", "a first"], "renamed by originalName, values kept")
        #expect(trips.map(\.rating) == [0, 0], "the new attribute's default")
        #expect(trips.map(\.badge) == ["rated 0", "rated 0"], "didMigrate ran on the new schema")

        // Opening again runs no stage (the store is at V3 already).
        let again = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV3.self), migrationPlan: TripMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(again).fetchCount(FetchDescriptor<TripSchemaV3.Trip>()) == 2)
    }

    @Test("a store of a schema the plan does not know is refused with an error, not opened")
    func unknownStore() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Trip(name: "x", destination: "y"))
            try context.save()
        }
        let error = #expect(throws: NSError.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: TripSchemaV3.self), migrationPlan: TripMigrationPlan.self,
                configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == 134_100)
        let untouched = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(untouched).fetch(FetchDescriptor<Trip>()).map(\.destination) == ["y"])
    }
}

// Adopting inheritance through a migration, as Apple's WWDC25 session does: V1 marks business
// journeys with a flag, V2 makes them a subclass; a custom stage carries them over.

enum JourneySchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model
    final class Journey {
        var name: String
        var isBusiness: Bool = false
        var company: String?

        init(name: String, isBusiness: Bool = false, company: String? = nil) {
            self.name = name
            self.isBusiness = isBusiness
            self.company = company
        }
    }
}

enum JourneySchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self, BusinessJourney.self] }

    @Model
    class Journey {
        var name: String

        init(name: String) {
            self.name = name
        }
    }

    @Model
    final class BusinessJourney: Journey {
        var company: String

        init(name: String, company: String) {
            self.company = company
            super.init(name: name)
        }
    }
}

enum JourneyMigrationPlan: SchemaMigrationPlan {
    /// The business journeys read on V1 (name and company), made again as subclass models on V2.
    static let carried = Mutex<[(String, String)]>([])

    static var schemas: [any VersionedSchema.Type] { [JourneySchemaV1.self, JourneySchemaV2.self] }

    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JourneySchemaV1.self, toVersion: JourneySchemaV2.self,
                willMigrate: { context in
                    let business = try context.fetch(
                        FetchDescriptor<JourneySchemaV1.Journey>(predicate: #Predicate { $0.isBusiness }))
                    carried.withLock { $0 = business.map { ($0.name, $0.company ?? "") } }
                    for journey in business { context.delete(journey) }
                    try context.save()
                },
                didMigrate: { context in
                    for (name, company) in carried.withLock({ $0 }) {
                        context.insert(JourneySchemaV2.BusinessJourney(name: name, company: company))
                    }
                    try context.save()
                })
        ]
    }
}

@Suite("Adopting inheritance through a migration plan")
struct InheritanceMigrationTests {
    @Test("a V1 store with flagged rows reaches V2, where they are subclass models; the others stay as they were")
    func flagsBecomeSubclasses() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: JourneySchemaV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(JourneySchemaV1.Journey(name: "Lisbon"))
            context.insert(JourneySchemaV1.Journey(name: "Berlin", isBusiness: true, company: "Acme"))
            context.insert(JourneySchemaV1.Journey(name: "Paris"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: JourneySchemaV2.self), migrationPlan: JourneyMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let journeys = try context.fetch(FetchDescriptor<JourneySchemaV2.Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(journeys.map(\.name) == ["Berlin", "Lisbon", "Paris"])
        #expect(journeys.map { $0 is JourneySchemaV2.BusinessJourney } == [true, false, false])
        let business = try context.fetch(FetchDescriptor<JourneySchemaV2.BusinessJourney>())
        #expect(business.map(\.company) == ["Acme"])
        // New models of both classes after the migration.
        context.insert(JourneySchemaV2.BusinessJourney(name: "Oslo", company: "Fjord"))
        context.insert(JourneySchemaV2.Journey(name: "Rome"))
        try context.save()
        let reopened = try ModelContainer(
            for: Schema(versionedSchema: JourneySchemaV2.self), migrationPlan: JourneyMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        let all = try ModelContext(reopened).fetch(FetchDescriptor<JourneySchemaV2.Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(
            all.map { "\($0.name):\(type(of: $0))" } == [
                "Berlin:BusinessJourney", "Lisbon:Journey", "Oslo:BusinessJourney", "Paris:Journey", "Rome:Journey",
            ])
    }
}

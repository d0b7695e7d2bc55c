import Foundation
import SwiftData
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

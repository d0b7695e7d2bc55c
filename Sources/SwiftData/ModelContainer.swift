import Foundation
import Strata

/// The store (or stores) of a schema, opened: the models' Core Data model, a persistent
/// container over the configurations' stores, and the contexts that read and write them.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: @unchecked Sendable {
    public let schema: Schema
    public let configurations: Set<ModelConfiguration>
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The Core Data container underneath (one engine, two APIs).
    let persistentContainer: NSPersistentContainer

    /// The container of the schema's stores: each configuration's (or one default store),
    /// migrated first by the plan when one is given.
    public init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration]
    ) throws {
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        schema = givenSchema
        self.configurations = Set(configurations)
        self.migrationPlan = migrationPlan
        // A configuration that names a CloudKit container syncs through Strata's CloudKit
        // container (with the sync server it names), as Apple's SwiftData mirrors to CloudKit.
        let syncs = configurations.contains { $0.cloudKitDatabase.containerIdentifier != nil && !$0.isStoredInMemoryOnly }
        persistentContainer =
            syncs
            ? NSPersistentCloudKitContainer(name: "default", managedObjectModel: givenSchema.managedObjectModel)
            : NSPersistentContainer(name: "default", managedObjectModel: givenSchema.managedObjectModel)
        persistentContainer.persistentStoreDescriptions = configurations.map { $0.storeDescription() }
        for configuration in configurations where !configuration.isStoredInMemoryOnly {
            try FileManager.default.createDirectory(
                at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        if let migrationPlan {
            for configuration in configurations where !configuration.isStoredInMemoryOnly {
                try SchemaMigration.migrate(storeAt: configuration.url, plan: migrationPlan, to: givenSchema)
            }
        }
        var failure: (any Error)?
        persistentContainer.loadPersistentStores { _, error in
            if let error, failure == nil { failure = error }
        }
        if let failure { throw failure }
    }

    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// The context of the main actor, which saves by itself (`autosaveEnabled`). The
    /// container keeps it; it refers back to the container weakly.
    @MainActor
    public var mainContext: ModelContext {
        if let context = main { return context }
        let context = ModelContext(self, isMain: true)
        main = context
        return context
    }

    @MainActor private var main: ModelContext?

    /// Sends every local change to the sync server and brings in the server's until it has
    /// nothing newer (Strata, beyond Apple: what a command-line program calls before it exits,
    /// and tests call to wait for sync). Does nothing for a container that does not sync.
    public func syncNow() async throws {
        guard let syncing = persistentContainer as? NSPersistentCloudKitContainer else { return }
        try await syncing.syncNow()
    }

    /// Deletes every row of every store, leaving the stores empty and open.
    public func deleteAllData() {
        let context = ModelContext(self)
        for entity in schema.managedObjectModel.entities where entity.superentity == nil {
            guard let name = entity.name else { continue }
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: name))
            _ = try? context.managed.execute(request)
        }
    }
}

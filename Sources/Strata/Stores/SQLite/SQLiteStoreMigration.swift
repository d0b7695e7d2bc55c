import Foundation
internal import GRDB

/// Automatic lightweight migration when a store is added: a store written with another
/// version of the model is migrated to the coordinator's model when the options ask for it
/// (`NSMigratePersistentStoresAutomaticallyOption` and
/// `NSInferMappingModelAutomaticallyOption`, both on in a container's store descriptions).
extension SQLiteStore {
    /// The store's metadata after migrating it to `model` when it was written with another
    /// model and the options allow it; the metadata unchanged otherwise (opening then fails
    /// with 134100, as without the options).
    ///
    /// Errors: no source model found (134130); migration allowed but inference not (134140,
    /// since mapping-model files are not searched); a change that cannot be inferred
    /// (134190); a destination requirement the data fails (134110, naming entity and
    /// property) or a uniqueness constraint it breaks (134111). Each leaves the file as it was.
    func migrateIfNeeded(
        _ database: any DatabaseWriter, metadata: [String: Any], model: NSManagedObjectModel, mapping: SQLiteStoreMapping
    ) throws -> [String: Any] {
        let configuration = configurationName == NSManagedObjectModel.defaultConfigurationName ? nil : configurationName
        guard !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata),
            option(NSMigratePersistentStoresAutomaticallyOption), !isReadOnly
        else { return metadata }
        // The app's models first; then the model the store itself caches, as Apple's framework
        // falls back to it when the app no longer ships the store's version.
        let cached = { try? database.read { db in StoreModelCache.model(in: db) } }
        guard
            let sourceModel = MigrationSourceModels.model(forStoreMetadata: metadata, destination: model)
                ?? cached().flatMap({ model in
                    (metadata[NSStoreModelVersionHashesKey] as? [String: Any])
                        .flatMap { MigrationSourceModels.matches(model, $0) ? model : nil }
                })
        else {
            throw CoreDataError.make(
                NSMigrationMissingSourceModelError, "Can't find model for source store at \(url?.path ?? "?").",
                userInfo: [NSURLErrorKey: url as Any, "metadata": metadata])
        }
        guard option(NSInferMappingModelAutomaticallyOption) else {
            throw CoreDataError.make(
                NSMigrationMissingMappingModelError, "Can't find mapping model for migration.",
                userInfo: [NSURLErrorKey: url as Any])
        }
        let mappingModel = try NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: model)
        let migration = try SQLiteMigration(
            mappingModel: mappingModel, source: sourceModel, destination: model, destinationMapping: mapping)
        var updated = metadata
        do {
            try database.writeWithoutTransaction { db in
                try db.inTransaction {
                    updated = try migration.run(in: db, metadata: metadata)
                    try StoreModelCache.write(model, in: db)
                    return .commit
                }
            }
        } catch let error as DatabaseError {
            throw CoreDataError.make(
                NSMigrationError, "An error occurred during persistent store migration: \(error.message ?? "\(error)").",
                userInfo: [NSURLErrorKey: url as Any, NSUnderlyingErrorKey: error as NSError])
        }
        return updated
    }

    /// A boolean store option, given as `Bool` or `NSNumber`.
    private func option(_ key: String) -> Bool {
        switch options?[key] {
        case let value as Bool: value
        case let value as NSNumber: value.boolValue
        default: false
        }
    }
}

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
    /// (A mapping model found in the bundles was already applied, before the file was
    /// opened: `migrateWithMappingModelIfFound`.)
    func migrateIfNeeded(
        _ database: any DatabaseWriter, metadata: [String: Any], model: NSManagedObjectModel, mapping: SQLiteStoreMapping
    ) throws -> [String: Any] {
        let configuration = configurationName == NSManagedObjectModel.defaultConfigurationName ? nil : configurationName
        guard !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata),
            option(NSMigratePersistentStoresAutomaticallyOption), !isReadOnly
        else { return metadata }
        // A staged migration's given source model; else the app's models; else the model the
        // store itself caches, as Apple's framework falls back to it when the app no longer
        // ships the store's version.
        let givenSource = options?[StagedMigrationSourceModelKey] as? NSManagedObjectModel
        let cached = { try? database.read { db in StoreModelCache.model(in: db) } }
        guard
            let sourceModel = givenSource
                ?? MigrationSourceModels.model(forStoreMetadata: metadata, destination: model)
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
                userInfo: [NSURLErrorKey: url as Any, NSUnderlyingErrorKey: StoreFile.sqliteError(error)])
        }
        // The migrated store whole in its main file, as after Apple's migration. (`restart`, not
        // `truncate`: the WAL keeps its length, so that the pool opening next finds one and does
        // not write a transaction of its own to make it.)
        _ = try? database.writeWithoutTransaction { db in try db.checkpoint(.restart) }
        return updated
    }

    /// Before the file is opened: finishes what an interrupted explicit migration left (its
    /// staging folder), runs the stages of a staged migration manager given in the options,
    /// and migrates the store with a mapping model found in the bundles when its model is
    /// another version and the options allow migration, as Apple's coordinator does before it
    /// falls back on inference.
    func prepareFileForOpening(_ url: URL, model: NSManagedObjectModel) throws {
        guard !isInMemory, !isReadOnly else { return }
        ExplicitStoreMigration.discardLeftovers(of: url)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        if let staged = options?[NSPersistentStoreStagedMigrationManagerOptionKey] as? NSStagedMigrationManager {
            try staged.migrateStore(at: url, type: NSSQLiteStoreType, to: model, options: options)
        }
        guard option(NSMigratePersistentStoresAutomaticallyOption), options?[StagedMigrationSourceModelKey] == nil,
            let metadata = try? SQLiteStore.readMetadata(at: url)
        else { return }
        let configuration = configurationName == NSManagedObjectModel.defaultConfigurationName ? nil : configurationName
        let bundles = (options?[MappingModelBundlesKey] as? [Bundle] ?? []) + [Bundle.main] + Bundle.allBundles
        // Most apps ship no mapping model: the source model is only looked for when one exists.
        guard !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata),
            !MappingModelLookup.mappingModelURLs(in: bundles).isEmpty,
            let sourceModel = MigrationSourceModels.model(forStoreMetadata: metadata, destination: model),
            let mapping = NSMappingModel(from: bundles, forSourceModel: sourceModel, destinationModel: model)
        else { return }
        try ExplicitStoreMigration.migrateInPlace(
            url, sourceModel: sourceModel, destinationModel: model, mapping: mapping, options: options)
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

/// An internal store option: more bundles to look for mapping models in, before the app's
/// (Linux's `Bundle.allBundles` holds only the main bundle; tests give theirs here).
let MappingModelBundlesKey = "StrataMappingModelBundles"
